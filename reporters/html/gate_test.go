package html

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/gate"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

// The comparison of two runs fits the page: its verdicts table, the verdicts wrapped and each
// run's value and noise in one column, needs no sideways scroll at a 1200 px window; and a
// gate's outcome (compare --fail-on --out) is at the top, its failed checks listed.
func TestComparisonFitsThePageAndShowsTheGate(t *testing.T) {
	var runs []*results.Run
	for _, scale := range []float64{1, 0.8} {
		dir := filepath.Join(t.TempDir(), "run")
		fixture.MatrixOf(t, dir, fixture.Shape{Threads: []int{1, 4}, Axis: "flush_log", Values: []string{"1", "2"}, Repeats: 3, Scale: scale})
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	c := compare.Compare(runs, nil)
	rules, err := gate.Parse("tps < -2.5%")
	if err != nil {
		t.Fatal(err)
	}
	g := gate.Evaluate(c, rules)
	if g.Failed() == 0 {
		t.Fatalf("the fixture's 20%% drop failed no check: %+v", g.Checks)
	}
	path := filepath.Join(t.TempDir(), "compare.html")
	if err := WriteComparisonGate(path, c, g, "test"); err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	if px := bodyAttr(t, dom, "data-page-overflow"); px != "0" {
		t.Errorf("the page is %s px wider than the window", px)
	}
	if !strings.Contains(dom, `<div class="scroll"><table class="summary" id="verdicts">`) {
		t.Errorf("the verdicts table of two runs is wider than the page (it scrolls sideways)")
	}
	if !strings.Contains(dom, "<h2>CI gate: FAIL</h2>") || !strings.Contains(dom, g.Tally()) || !strings.Contains(dom, `<tr class="gate-failed"><td>failed</td><td>tps &lt; -2.5%</td>`) {
		t.Errorf("the page lacks the gate's outcome %q", g.Tally())
	}
	if strings.Index(dom, "CI gate: FAIL") > strings.Index(dom, `id="verdicts"`) {
		t.Errorf("the gate is below the verdicts")
	}
	// without a gate, no gate section
	if err := WriteComparison(path, c, "test"); err != nil {
		t.Fatal(err)
	}
	if dom := rendered(t, path); strings.Contains(dom, "<h2>CI gate") {
		t.Errorf("a comparison without a gate shows one")
	}
}
