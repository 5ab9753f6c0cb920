package tail

import "testing"

func TestLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb", 5, "a\nb"},
		{"\n\n", 3, "(no output)"},
		{"", 1, "(no output)"},
	} {
		if got := Lines(c.in, c.n); got != c.want {
			t.Errorf("Lines(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
