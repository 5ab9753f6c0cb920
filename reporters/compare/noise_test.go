package compare

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// synthetic is a run of one axis (threads 1 and 2) with the given tps and p95 per repeat.
func synthetic(dir string, tps map[string][]float64, p95 float64) *results.Run {
	header := []string{"iteration", "repeat", "threads", "target", "status", "tps", "p95_ms"}
	var rows [][]string
	it := 0
	for _, threads := range []string{"1", "2"} {
		for r, v := range tps[threads] {
			it++
			rows = append(rows, []string{fmt.Sprint(it), fmt.Sprint(r + 1), threads, "db", "done",
				results.FormatFloat(v), results.FormatFloat(p95 * (1 + 0.01*float64(r%3)))})
		}
	}
	return &results.Run{Dir: dir, Info: &results.RunInfo{Axes: []string{"threads"}},
		Summary: results.NewData(header, rows), Timeseries: map[string]*results.Data{}}
}

func TestVerdictsWithRepeats(t *testing.T) {
	a := synthetic("a", map[string][]float64{"1": {1000, 1030, 970, 1010, 990}, "2": {2000, 2060, 1940, 2020, 1980}}, 1)
	// threads=1: 20% slower; threads=2 the same within its noise
	b := synthetic("b", map[string][]float64{"1": {800, 824, 776, 808, 792}, "2": {2010, 1950, 2050, 1990, 2000}}, 1)
	c := Compare([]*results.Run{a, b}, []string{"tps", "p95_ms"})
	v1 := c.Cells[0].Verdicts["tps"][1]
	if v1.Kind != Worse || !strings.HasPrefix(v1.Text, "slower by 20% (95% CI ") || v1.Hi >= 0 || v1.Lo > -15 {
		t.Errorf("threads=1 tps: %+v", v1)
	}
	if v2 := c.Cells[1].Verdicts["tps"][1]; v2.Kind != WithinNoise || !strings.HasPrefix(v2.Text, "within noise (±") {
		t.Errorf("threads=2 tps: %+v", v2)
	}
	st := c.Cells[0].Stats["tps"][0]
	if st.N != 5 || st.Median != 1000 || st.Mean != 1000 || math.Abs(st.CV-0.0224) > 0.001 || !(st.Lo < 1000 && st.Hi > 1000) {
		t.Errorf("stats %+v", st)
	}
	// a latency that went down is faster; the same folder against itself is within noise
	fast := synthetic("f", map[string][]float64{"1": {1000, 1030, 970, 1010, 990}, "2": {2000, 2060, 1940, 2020, 1980}}, 0.5)
	c = Compare([]*results.Run{a, fast, a}, []string{"p95_ms", "tps"})
	if v := c.Cells[0].Verdicts["p95_ms"][1]; v.Kind != Better || !strings.HasPrefix(v.Text, "faster by 50%") {
		t.Errorf("p95 halved: %+v", v)
	}
	for _, cell := range c.Cells {
		for _, m := range c.Metrics {
			if v := cell.Verdicts[m][2]; v.Kind != WithinNoise {
				t.Errorf("%s %s against itself: %+v", cell.Key, m, v)
			}
		}
	}
	// seeded: the same comparison twice reads the same
	again := Compare([]*results.Run{a, b}, []string{"tps"})
	if again.Cells[0].Verdicts["tps"][1].Text != Compare([]*results.Run{a, b}, []string{"tps"}).Cells[0].Verdicts["tps"][1].Text {
		t.Error("the bootstrap is not repeatable")
	}
}

func TestVerdictWithoutRepeats(t *testing.T) {
	a := synthetic("a", map[string][]float64{"1": {1000}, "2": {2000}}, 1)
	b := synthetic("b", map[string][]float64{"1": {1100}}, 1)
	// threads=1 of run a has a time series of 12 intervals; run b has none
	var rows [][]string
	for i := 1; i <= 12; i++ {
		rows = append(rows, []string{"1", fmt.Sprint(i), "0", results.FormatFloat(1000 + float64(10*(i%3-1)))})
	}
	a.Timeseries["db"] = results.NewData([]string{"iteration", "elapsed_s", "warmup", "tps"}, rows)
	c := Compare([]*results.Run{a, b}, []string{"tps"})
	st := c.Cells[0].Stats["tps"][0]
	if st.Source != FromIntervals || len(st.Samples) != 6 {
		t.Fatalf("stats from intervals: %+v", st)
	}
	if v := c.Cells[0].Verdicts["tps"][1]; !strings.Contains(v.Text, "noise of one side only") || v.Kind != Better {
		t.Errorf("estimated verdict: %+v", v)
	}
	if v := c.Cells[1].Verdicts["tps"][1]; v.Kind != NotComparable || v.Text != "not comparable: run 2 has no such cell" {
		t.Errorf("missing cell: %+v", v)
	}
	a.Timeseries = map[string]*results.Data{}
	c = Compare([]*results.Run{a, b}, []string{"tps"})
	if v := c.Cells[0].Verdicts["tps"][1]; v.Kind != NoNoiseEstimate || !strings.HasPrefix(v.Text, "no noise estimate: +10.0%") {
		t.Errorf("no estimate: %+v", v)
	}
}
