package results

import (
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
