package sqltext

import "strings"

// Short is statement s on one line, cut to n characters with "..." when longer. Only its
// first 4n bytes are looked at, so a statement of many MB (a dump's INSERT) costs no more
// than a short one.
func Short(s string, n int) string {
	cut := len(s) > 4*n
	if cut {
		s = s[:4*n]
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); cut || len(r) > n {
		return string(r[:min(len(r), n-3)]) + "..."
	}
	return s
}
