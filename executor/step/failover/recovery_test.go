package failover

import (
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// The rule of docs/failover.md on made-up intervals: the rate before is the measured
// intervals' that ended by the fault (warmup left out); the recovery is the end of the first
// interval that starts at or after the first commit at 90% of it; the errors are those of
// the intervals that ended after the fault, up to it.
func TestRecoveryRule(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	iv := func(from float64, events, errs int64, warm bool) measure.Interval {
		x := measure.Interval{Start: sec(from), End: sec(from + 1), Warmup: warm}
		x.Events, x.Errors = events, errs
		return x
	}
	ivs := []measure.Interval{
		iv(0, 5000, 0, true), // warmup: not part of the rate before
		iv(1, 1000, 0, false),
		iv(2, 1200, 0, false),
		iv(3, 300, 4, false),  // the fault at 3.5
		iv(4, 1000, 9, false), // starts before the first commit (at 4.6): not back, whatever its rate
		iv(5, 900, 1, false),  // 82%
		iv(6, 980, 0, false),  // 89% of 1100: not back yet
		iv(7, 1000, 2, false),
		iv(8, 1100, 0, false),
	}
	fault, first := sec(3.5), sec(4.6)
	before := rateBefore(ivs, fault)
	if before != 1100 {
		t.Fatalf("rate before %v, want 1100 (intervals 1-2 s and 2-3 s)", before)
	}
	at, errs, ok := recovered(ivs, fault, first, recoveredShare*before)
	if !ok || !at.Equal(sec(8)) || errs != 16 {
		t.Errorf("recovered at %v (%v), %d errors; want at 8 s, 16 errors", at.Sub(t0), ok, errs)
	}
	if _, _, ok := recovered(ivs[:7], fault, first, recoveredShare*before); ok {
		t.Error("recovered before any interval reached 90%")
	}
	if rateBefore(ivs[:1], fault) != 0 {
		t.Error("a rate from warmup intervals only")
	}
}
