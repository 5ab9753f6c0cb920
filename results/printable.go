package results

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable is s made safe for a terminal: text from a results folder (a plan's name, a
// setting's value, an error a server sent) is a stranger's, and a terminal obeys the
// control characters in it (ESC]0;TITLE BEL retitles the window, ESC[2J clears the
// screen, a lone 0x9b byte is CSI on 8-bit terminals). Every C0 control (tabs and
// newlines too: a name with a newline could forge a line of the tool's own), DEL, every
// C1 control and every byte that is not UTF-8 is written as a visible escape such as
// \x1b or \u009b; everything else is kept.
func Printable(s string) string { return printable(s, false) }

// PrintableText is Printable for text of several lines (an error's text, a description):
// newlines and tabs are kept, every other control is escaped.
func PrintableText(s string) string { return printable(s, true) }

func printable(s string, layout bool) string {
	clean := true
	for i := 0; i < len(s) && clean; {
		r, n := utf8.DecodeRuneInString(s[i:])
		clean = !unsafeRune(r, n, layout)
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r, n, layout) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r, n, layout):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func unsafeRune(r rune, n int, layout bool) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r == '\n' || r == '\t':
		return !layout
	}
	return r < 0x20 || r >= 0x7f && r < 0xa0
}
