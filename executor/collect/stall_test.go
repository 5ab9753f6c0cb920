package collect

import (
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// The run: a 20 s iteration whose rows jumped 19 -> 21 -> 26 s and that measured
// 26.01 s. Both the gaps and the overrun are found; a run that ends a few milliseconds
// late with every interval in place is not a stall.
func TestStallWatchFindsGapsAndOverrun(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	run := func(ends ...float64) (*stallWatch, *measure.Total) {
		s := &stallWatch{every: time.Second}
		s.see(&measure.Interval{Warmup: true, Start: t0.Add(-5 * time.Second), End: t0}) // warmups never count
		prev := 0.0
		for _, e := range ends {
			at := func(x float64) time.Time { return t0.Add(time.Duration(x * float64(time.Second))) }
			s.see(&measure.Interval{Start: at(prev), End: at(e), Elapsed: time.Duration(e * float64(time.Second))})
			prev = e
		}
		return s, &measure.Total{Start: t0, End: t0.Add(time.Duration(prev * float64(time.Second)))}
	}
	var ends []float64
	for i := 1; i <= 19; i++ {
		ends = append(ends, float64(i))
	}
	s, total := run(append(ends, 21, 26.01)...)
	st := s.result(20*time.Second, total)
	if st == nil || len(st.Gaps) != 2 || st.Gaps[0].FromS != 19 || st.Gaps[1].ToS != 26.01 || st.MeasuredS < 26 {
		t.Fatalf("stall %+v", st)
	}
	if got := st.String(); got != "measured 26.0 s of a planned 20 s; no interval of its own for 19–21 s, 21–26 s" {
		t.Errorf("String() = %q", got)
	}
	ends = nil
	for i := 1; i <= 20; i++ {
		ends = append(ends, float64(i))
	}
	ends[19] = 20.004
	if s, total := run(ends...); s.result(20*time.Second, total) != nil {
		t.Errorf("a run ending 4 ms late is a stall")
	}
	// events only: no planned length, gaps still count
	if s, total := run(1, 2, 5); s.result(0, total) == nil {
		t.Errorf("a gap without a planned duration went unflagged")
	}
}
