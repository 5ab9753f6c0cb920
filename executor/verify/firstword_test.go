package verify

import (
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// TestFirstWord: firstWord reads only the first word, with the same answer as splitting the
// whole upper-cased text.
func TestFirstWord(t *testing.T) {
	whole := func(text string) string {
		w := strings.Fields(strings.ToUpper(sqltext.SkipComments(text)))
		if len(w) == 0 {
			return ""
		}
		return strings.TrimLeft(w[0], "(")
	}
	for _, text := range []string{
		"select 1", "  SELECT\tc FROM t", "(select 1) union (select 2)", "/* hint */ with x as (select 1) select * from x",
		"-- note\nshow tables", "# note\n  desc t", "select(1)", "\u00a0select 1", "sElEcT\u2003x", "", "   ", "/* open",
		"((SELECT 1))", "ǆ select", "update t set a = 1",
	} {
		if got, want := firstWord(text), whole(text); got != want {
			t.Errorf("firstWord(%q) = %q, want %q", text, got, want)
		}
	}
}
