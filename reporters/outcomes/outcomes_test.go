package outcomes

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

// A drill plan's folder, written by the real writer: per cell every repeat's outcome figures
// and their median, and one sentence per mode pair on the losses, from run.json's
// descriptions alone (the fixture's own metric names).
func TestOutcomesOfADrillPlan(t *testing.T) {
	dir := t.TempDir()
	fixture.Drill(t, dir)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := Of(run)
	if o == nil {
		t.Fatal("no outcomes in a drill plan's folder")
	}
	var names []string
	for _, m := range o.Metrics {
		names = append(names, m.Name)
	}
	if want := []string{fixture.DrillUnavailable, fixture.DrillLost, fixture.DrillRecovery}; !slices.Equal(names, want) {
		t.Errorf("metrics %v, want the outcomes %v (not the rate before, no outcome)", names, want)
	}
	if len(o.Cells) != 2 || o.Cells[0].Label(1) != "replication=async" || !slices.Equal(o.Cells[1].Iterations, []int{4, 5, 6}) {
		t.Fatalf("cells %+v", o.Cells)
	}
	if v := o.Cells[0].Values[fixture.DrillLost]; !slices.Equal(v, fixture.DrillLosses["async"]) || o.Cells[0].Median(fixture.DrillLost) != 17 {
		t.Errorf("async's losses %v (median %v), want %v (median 17)", v, o.Cells[0].Median(fixture.DrillLost), fixture.DrillLosses["async"])
	}
	if rec := o.Cells[1].Values[fixture.DrillRecovery]; !math.IsNaN(rec[2]) || o.Cells[1].Median(fixture.DrillRecovery) != 2.5 {
		t.Errorf("semisync's recoveries %v (median %v): the third was not recorded, the median is of the two", rec, o.Cells[1].Median(fixture.DrillRecovery))
	}
	want := []string{"replication=async lost acknowledged commits in 3 of 3 repeats, 12-40; semisync in 0 of 3 repeats"}
	if !slices.Equal(o.Sentences, want) {
		t.Errorf("sentences\n%q\nwant\n%q", o.Sentences, want)
	}
	var b bytes.Buffer
	if err := WriteText(&b, o); err != nil || !strings.Contains(b.String(), want[0]) {
		t.Errorf("text %q (%v)", b.String(), err)
	}
}

// A folder whose run.json describes no outcome (a plan without such a step) has none, and
// says nothing.
func TestNoOutcomesWithoutAStepThatRecordsThem(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if o := Of(run); o != nil {
		t.Errorf("outcomes %+v of a folder without any", o)
	}
	var b bytes.Buffer
	if WriteText(&b, Of(run)); b.Len() != 0 {
		t.Errorf("text %q", b.String())
	}
}

// Several axes: a sentence per axis at each combination of the others; a repeat without a
// count is said, not counted.
func TestSentencesPerAxisAndMissingCounts(t *testing.T) {
	m := results.MetricInfo{Name: "lost", Loss: "lost rows"}
	cell := func(mode, th string, v ...float64) Cell {
		return Cell{Matrix: []results.Field{{Name: "mode", Value: mode}, {Name: "threads", Value: th}}, Target: "db", Values: map[string][]float64{"lost": v}}
	}
	cells := []Cell{cell("a", "1", 1, 0), cell("b", "1", 0, math.NaN()), cell("a", "8", 5, 5), cell("b", "8", 0, 0)}
	got := sentences([]string{"mode", "threads"}, cells, m)
	want := []string{
		"mode=a lost rows in 1 of 2 repeats, 1; b in 0 of 1 repeat (1 without a count: the step did not get as far) (at threads=1)",
		"mode=a lost rows in 2 of 2 repeats, 5; b in 0 of 2 repeats (at threads=8)",
		"threads=1 lost rows in 1 of 2 repeats, 1; 8 in 2 of 2 repeats, 5 (at mode=a)",
		"threads=1 lost rows in 0 of 1 repeat (1 without a count: the step did not get as far); 8 in 0 of 2 repeats (at mode=b)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sentences\n%q\nwant\n%q", got, want)
	}
}
