package compare

import (
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

func TestHostNotesOnlyWhenTheHostsDiffer(t *testing.T) {
	a := load(t, 1, nil)
	b := load(t, 1, nil)
	if n := hostNotes([]*results.Run{a, b}); len(n) != 0 {
		t.Errorf("same host: %v", n)
	}
	b.Info.Host = "san-host"
	n := hostNotes([]*results.Run{a, b})
	if len(n) != 1 || !strings.Contains(n[0], "ran on testhost") || !strings.Contains(n[0], b.Dir+" on san-host") {
		t.Errorf("notes %v", n)
	}
	c := Compare([]*results.Run{a, b}, []string{"tps"})
	if len(c.Cells) != 2 || len(c.Cells[0].Iterations) != 2 || c.Cells[0].Iterations[1][0] != 1 || c.Cells[0].Target != "primary" {
		t.Errorf("cell iterations %+v target %q", c.Cells[0].Iterations, c.Cells[0].Target)
	}
}
