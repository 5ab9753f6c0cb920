package results

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

func TestGridSeconds(t *testing.T) {
	for _, c := range []struct {
		elapsed, interval time.Duration
		want              float64
	}{
		{2025 * time.Millisecond, time.Second, 2},
		{8300 * time.Millisecond, time.Second, 8},
		{-4 * time.Second, time.Second, -4},
		{1480 * time.Millisecond, 500 * time.Millisecond, 1.5},
		{3 * time.Second, 0, 3},
	} {
		if got := GridSeconds(c.elapsed, c.interval); got != c.want {
			t.Errorf("GridSeconds(%s, %s) = %v, want %v", c.elapsed, c.interval, got, c.want)
		}
	}
}

// A workload that never ran has no duration and no watched values: empty cells, never 0.
func TestSummaryRowNotMeasuredIsEmpty(t *testing.T) {
	watched := []measure.Value{{Name: "status.Com_select", Value: 0}}
	cells := func(o SummaryRow) map[string]string {
		m := map[string]string{}
		for _, f := range o.record() {
			m[f.Name] = f.Value
		}
		return m
	}
	ran := cells(SummaryRow{Iteration: 1, Target: "db", Status: StatusDone, Duration: 2 * time.Second, Watched: watched})
	if ran["duration_s"] != "2" || ran["status.Com_select"] != "0" {
		t.Fatalf("a measured row: %v", ran)
	}
	never := cells(SummaryRow{Iteration: 1, Target: "db", Status: StatusFailed, Watched: watched, NotMeasured: true})
	if v, ok := never["duration_s"]; !ok || v != "" {
		t.Fatalf("duration_s of a workload that never ran: %q (present %v), want an empty cell", v, ok)
	}
	if v, ok := never["status.Com_select"]; !ok || v != "" {
		t.Fatalf("status.Com_select of a workload that never ran: %q, want an empty cell", v)
	}
}

// A load interrupted 0.3 s after its 5 s tick rounds to 5 on the grid; its row keeps its
// real end instead, so no two rows of an iteration share an elapsed_s (merge keys rows by
// it and would keep only one; export's primary key would refuse the second). A warmup tick
// just before the start is 0, not -0, and the next iteration starts its own grid again.
func TestElapsedStrictlyIncreasesWithinAnIteration(t *testing.T) {
	w, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ms := time.Millisecond
	rows := []struct {
		iteration int
		elapsed   time.Duration
		want      string
	}{
		{1, -1300 * ms, "-1"},
		{1, -300 * ms, "0"}, // a 2.3 s warmup's second tick
		{1, 0, "0.001"},     // its end: the grid's 0 is taken
		{1, 1003 * ms, "1"},
		{1, 2 * time.Second, "2"},
		{1, 2300 * ms, "2.3"}, // interrupted
		{2, 1 * time.Second, "1"},
		{2, 1000*ms + 200*time.Microsecond, "1.001"}, // a sliver: rounded up, at least 1 ms after the previous row
	}
	for _, r := range rows {
		iv := &measure.Interval{Elapsed: r.elapsed, End: time.Now()}
		if err := w.AppendTimeseries("db", &TimeseriesRow{Iteration: r.iteration, Interval: iv, ReportInterval: time.Second}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	header, got, err := ReadTable(filepath.Join(w.Dir, TimeseriesDir, "db.csv"))
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(header, "elapsed_s")
	for i, r := range rows {
		if got[i][col] != r.want {
			t.Errorf("row %d (iteration %d, elapsed %s): elapsed_s %q, want %q", i+1, r.iteration, r.elapsed, got[i][col], r.want)
		}
	}
}
