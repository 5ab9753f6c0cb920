package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// oneCell is a run of one cell whose metric m took values, one per repeat; load, when
// given, is each iteration's host load per CPU as run.json records it (2 CPUs).
func oneCell(dir, m string, values []float64, load ...float64) *results.Run {
	header := []string{"iteration", "repeat", "target", "status", m}
	var rows [][]string
	info := &results.RunInfo{}
	for i, v := range values {
		rows = append(rows, []string{fmt.Sprint(i + 1), fmt.Sprint(i + 1), "db", "done", results.FormatFloat(v)})
		it := results.IterationInfo{Index: i + 1, Repeat: i + 1, Status: "done"}
		if i < len(load) {
			it.HostLoad = &results.HostLoad{Start: &results.LoadAverage{Load1: 2 * load[i]}, End: &results.LoadAverage{Load1: 2 * load[i]}, CPUs: 2}
		}
		info.Iterations = append(info.Iterations, it)
	}
	return &results.Run{Dir: dir, Info: info, Summary: results.NewData(header, rows), Timeseries: map[string]*results.Data{}}
}

func verdictOf(t *testing.T, m string, a, b *results.Run) Verdict {
	t.Helper()
	c := Compare([]*results.Run{a, b}, []string{m})
	if len(c.Cells) != 1 {
		t.Fatalf("%d cells", len(c.Cells))
	}
	return c.Cells[0].Verdicts[m][1]
}

// A count that is 0 on one side is judged by the difference of the means: one deadlock in
// one repeat is within noise, not "worse: 0 -> 1" in red; errors in every repeat are worse;
// errors gone in every repeat are better, never "better by 100% (95% CI 100–100%)".
func TestVerdictFromAndToZero(t *testing.T) {
	none := oneCell("a", "errors", []float64{0, 0, 0, 0, 0})
	if v := verdictOf(t, "errors", none, oneCell("b", "errors", []float64{0, 5, 0, 0, 0})); v.Kind != WithinNoise || !strings.Contains(v.Text, "0 -> 1") {
		t.Errorf("one repeat's errors: %+v", v)
	}
	if v := verdictOf(t, "errors", none, oneCell("b", "errors", []float64{2, 1, 3, 2, 2})); v.Kind != Worse || !strings.HasPrefix(v.Text, "worse: 0 -> 2 (95% CI of the difference +") {
		t.Errorf("errors in every repeat: %+v", v)
	}
	v := verdictOf(t, "errors", oneCell("a", "errors", []float64{3, 2, 4, 3, 3}), none)
	if v.Kind != Better || strings.Contains(v.Text, "100–100") || !strings.Contains(v.Text, "3 -> 0") || v.Change != -100 || !(v.Lo < -60 && v.Lo >= -100 && v.Hi > -100) {
		t.Errorf("errors gone: %+v", v)
	}
	if v := verdictOf(t, "errors", oneCell("a", "errors", []float64{0, 5, 0, 0, 0}), none); v.Kind != WithinNoise {
		t.Errorf("one repeat's errors gone: %+v", v)
	}
}

// Two repeats give a bootstrap interval of the range of two values: a change from them is
// inconclusive, never faster or slower; three are judged.
func TestVerdictFromTwoRepeatsIsInconclusive(t *testing.T) {
	v := verdictOf(t, "tps", oneCell("a", "tps", []float64{1000, 1010}), oneCell("b", "tps", []float64{800, 805}))
	if v.Kind != Inconclusive || v.Significant() || !strings.Contains(v.Text, "2 repeats") || !strings.Contains(v.Text, "repeat: 3") {
		t.Errorf("two repeats: %+v", v)
	}
	v = verdictOf(t, "tps", oneCell("a", "tps", []float64{1000, 1010, 990}), oneCell("b", "tps", []float64{800, 805, 795}))
	if v.Kind != Worse {
		t.Errorf("three repeats: %+v", v)
	}
}

// A change the host's load explains is confounded, not faster: the host was busier on the
// slower side by more than ConfoundedLoad, and the change is within what that ratio accounts
// for. Under the same load, faster on the busier side, or far beyond what the load explains
// (a server six times slower), the verdict stands and says the load.
func TestVerdictConfoundedByHostLoad(t *testing.T) {
	base := []float64{1000, 1010, 990}
	fast := []float64{1500, 1510, 1490}
	v := verdictOf(t, "tps", oneCell("a", "tps", base, 1.8, 1.9, 2.0), oneCell("b", "tps", fast, 0.3, 0.4, 0.3))
	if v.Kind != Confounded || v.Significant() || !strings.Contains(v.Text, "load per CPU was 1.90") {
		t.Errorf("load dropped: %+v", v)
	}
	if v := verdictOf(t, "tps", oneCell("a", "tps", base, 1.8, 1.9, 2.0), oneCell("b", "tps", fast, 1.7, 2.1, 1.9)); v.Kind != Better {
		t.Errorf("same load: %+v", v)
	}
	if v := verdictOf(t, "tps", oneCell("a", "tps", base, 0.3, 0.4, 0.3), oneCell("b", "tps", fast, 1.8, 1.9, 2.0)); v.Kind != Better || !strings.Contains(v.Text, "load per CPU") {
		t.Errorf("faster while busier: %+v", v)
	}
	// a busy host a little busier: 9 per CPU is 12.5% more than 8, which explains 12.5%, not 50%
	if v := verdictOf(t, "tps", oneCell("a", "tps", base, 9, 9, 9), oneCell("b", "tps", fast, 8, 8, 8)); v.Kind != Better {
		t.Errorf("9 to 8 per CPU, 50%% faster: %+v", v)
	}
	// 30% busier explains a 23% drop: a 10% drop is confounded, an 83% drop is not
	slower := []float64{900, 905, 895}
	if v := verdictOf(t, "tps", oneCell("a", "tps", base, 2, 2, 2), oneCell("b", "tps", slower, 2.6, 2.6, 2.6)); v.Kind != Confounded || !strings.Contains(v.Text, "explains a change of up to 23%") {
		t.Errorf("10%% slower, 30%% busier: %+v", v)
	}
	if v := verdictOf(t, "tps", oneCell("a", "tps", base, 2, 2, 2), oneCell("b", "tps", []float64{170, 168, 172}, 2.6, 2.6, 2.6)); v.Kind != Worse {
		t.Errorf("six times slower, 30%% busier: %+v", v)
	}
	// a host with idle CPUs on both sides (below 1 per CPU) slows nothing
	if v := verdictOf(t, "tps", oneCell("a", "tps", base, 0.2, 0.2, 0.2), oneCell("b", "tps", slower, 0.9, 0.9, 0.9)); v.Kind != Worse {
		t.Errorf("idle CPUs: %+v", v)
	}
	// an older folder without loads is judged as before
	if v := verdictOf(t, "tps", oneCell("a", "tps", base), oneCell("b", "tps", fast, 0.3, 0.4, 0.3)); v.Kind != Better {
		t.Errorf("no load recorded: %+v", v)
	}
}

// Three repeats each, as noisy as a shared host makes them: Welch's t says the 16% drop could
// be noise (t 1.7, 2-3 degrees of freedom), and so does the verdict, whose bootstrap interval
// is widened to t's width (noise.Widen); the bootstrap alone called it slower.
func TestVerdictOfThreeNoisyRepeatsIsWithinNoise(t *testing.T) {
	v := verdictOf(t, "tps", oneCell("a", "tps", []float64{100, 120, 90}), oneCell("b", "tps", []float64{80, 95, 85}))
	if v.Kind != WithinNoise || v.Lo > -40 {
		t.Errorf("three noisy repeats: %+v", v)
	}
}
