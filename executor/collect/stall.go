package collect

import (
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// stallWatch finds what a host stall does to a measured workload: the engine's ticker
// cannot tick while the client is stopped, so the next interval covers the whole stop,
// and the measured part ends later than planned. Averages over such an iteration hide
// the stop; the console, run.json and the report say so instead.
type stallWatch struct {
	every time.Duration // the report interval
	gaps  []results.Gap
}

// gapFactor is how much longer than the report interval an interval must be to be a gap:
// the ticker's own jitter is milliseconds, a stop that matters is a second or more.
const gapFactor = 1.5

// see is told every interval, in order.
func (s *stallWatch) see(iv *measure.Interval) {
	if iv.Warmup || s.every <= 0 {
		return
	}
	if length := iv.End.Sub(iv.Start); length > time.Duration(gapFactor*float64(s.every)) {
		to := iv.Elapsed.Seconds()
		s.gaps = append(s.gaps, results.Gap{FromS: to - length.Seconds(), ToS: to})
	}
}

// result is the iteration's stall, nil when it ran as planned. Longer than planned means
// by more than one report interval and more than 5%: the last interval is cut at the
// planned end, so a few milliseconds more is how every run ends.
func (s *stallWatch) result(planned time.Duration, total *measure.Total) *results.Stall {
	if total == nil {
		return nil
	}
	measured := total.End.Sub(total.Start)
	over := planned > 0 && measured-planned > max(s.every, planned/20)
	if !over && len(s.gaps) == 0 {
		return nil
	}
	return &results.Stall{PlannedS: planned.Seconds(), MeasuredS: measured.Seconds(), Overrun: over, Gaps: s.gaps}
}
