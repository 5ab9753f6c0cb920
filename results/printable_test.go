package results

import "testing"

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, one, text string }{
		{"plain · ünïcode", "plain · ünïcode", "plain · ünïcode"},
		{"\x1b]0;TITLE\a", `\x1b]0;TITLE\x07`, `\x1b]0;TITLE\x07`},
		{"a\x1b[2Jb", `a\x1b[2Jb`, `a\x1b[2Jb`},
		{"8-bit \x9b2J", `8-bit \x9b2J`, `8-bit \x9b2J`},
		{"utf-8 C1 \u009b2J", `utf-8 C1 \u009b2J`, `utf-8 C1 \u009b2J`},
		{"two\nlines\tand\rcr\x7f", `two\x0alines\x09and\x0dcr\x7f`, "two\nlines\tand\\x0dcr\\x7f"},
	} {
		if got := Printable(c.in); got != c.one {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.one)
		}
		if got := PrintableText(c.in); got != c.text {
			t.Errorf("PrintableText(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}
