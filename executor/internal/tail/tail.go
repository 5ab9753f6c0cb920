// Package tail keeps the end of a command's or a server's output for an error message:
// the last lines say why it failed.
package tail

import "strings"

// Lines is the last n lines of s, trailing newlines dropped; "(no output)" when s has none.
func Lines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if strings.TrimSpace(s) == "" {
		return "(no output)"
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
