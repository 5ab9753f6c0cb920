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

// `quadrant compare` opens folders with their time series left on disk: a cell of one repeat
// still gets its noise estimate from the batch means of its intervals, as with Load.
func TestIntervalNoiseOfFoldersLeftOnDisk(t *testing.T) {
	var loaded, opened []*results.Run
	for _, scale := range []float64{1, 1.1} {
		r := load(t, scale, nil)
		o, err := results.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		loaded, opened = append(loaded, r), append(opened, o)
	}
	a := Compare(loaded, []string{"tps"}).Cells[0].Stats["tps"][0]
	b := Compare(opened, []string{"tps"}).Cells[0].Stats["tps"][0]
	if a.Source != FromIntervals || b.Source != FromIntervals || a.Lo != b.Lo || a.Hi != b.Hi {
		t.Errorf("loaded %+v, opened %+v: want the same estimate from intervals", a, b)
	}
}
