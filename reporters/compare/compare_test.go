package compare

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

func load(t *testing.T, scale float64, edit func(*results.RunInfo)) *results.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	fixture.Folder(t, dir, scale)
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(r.Info)
	}
	return r
}

func TestCompareLinesUpCellsAndReportsChanges(t *testing.T) {
	a := load(t, 1, nil)
	b := load(t, 1.25, func(ri *results.RunInfo) {
		ri.PlanSHA256 = "other"
		ri.Targets[0].ServerVersion = "11.4.2"
		ri.Targets[0].VariablesBefore = map[string]string{"innodb_flush_method": "fsync", "sync_binlog": "0", "port": "1"}
	})
	c := Compare([]*results.Run{a, b}, []string{"tps", "p95_ms"})
	if len(c.Cells) != 2 {
		t.Fatalf("cells %v, want 2", c.Cells)
	}
	if c.Cells[1].Key != "threads=4 @primary" {
		t.Fatalf("second cell %q", c.Cells[1].Key)
	}
	tps := c.Cells[1].Values["tps"]
	if tps[0] != 4000 || tps[1] != 5000 {
		t.Fatalf("tps %v, want [4000 5000]", tps)
	}
	if ch := Change(tps[0], tps[1]); math.Abs(ch-25) > 1e-9 {
		t.Fatalf("change %v, want 25", ch)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"25.0", "different resolved plan", "10.11.19", "11.4.2", "innodb_flush_method O_DIRECT -> fsync"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "port ") {
		t.Errorf("noisy variable port reported:\n%s", out)
	}
}

func TestCompareMissingCellIsNaN(t *testing.T) {
	a := load(t, 1, nil)
	b := load(t, 1, nil)
	b.Summary.Rows = b.Summary.Rows[:1]
	c := Compare([]*results.Run{a, b}, []string{"tps"})
	if v := c.Cells[1].Values["tps"]; !math.IsNaN(v[1]) || v[0] != 4000 {
		t.Fatalf("values %v, want [4000 NaN]", v)
	}
}
