package collect

import (
	"fmt"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// lagLimit is how late an open loop's events may start at the 99th percentile before the
// iteration is said to be behind its schedule. A replay on schedule starts its statements
// tens of microseconds late, a rate's events a fraction of a millisecond; a client short of
// CPU, or a session whose statement ran longer than captured, makes the next ones late by
// the time lost: 100 ms is far above the first and well below what changes a replay's
// interleaving of sessions (a lock held a tenth of a second longer by every transaction).
const lagLimit = 100 * time.Millisecond

// behindWatch finds an open loop falling behind its schedule: it says so once, in the
// log and on the console, when an interval's lag first passes lagLimit, and the iteration's
// run.json and report say it at the end.
type behindWatch struct {
	logf      func(string, ...any)
	iteration int
	from      time.Duration // the end of the first interval past the limit
}

// see is told every interval, in order.
func (b *behindWatch) see(iv *measure.Interval) {
	if iv.Warmup || b.from > 0 || iv.Lag == nil || iv.Lag.Count() == 0 {
		return
	}
	if p99 := iv.Lag.Percentile(99); p99 > lagLimit {
		b.from = max(iv.Elapsed, time.Nanosecond)
		b.logf("warning: iteration %d: falling behind its schedule at %.0f s: events of the last interval started %.0f ms late at p99 (limit %.0f ms)",
			b.iteration, iv.Elapsed.Seconds(), measure.Ms(p99), measure.Ms(lagLimit))
	}
}

// result is the iteration's lag when its p99 passed lagLimit, nil otherwise (a closed loop
// has no schedule).
func (b *behindWatch) result(total *measure.Total) *results.Behind {
	if total == nil || total.Lag == nil || total.Lag.Count() == 0 || total.Lag.Percentile(99) <= lagLimit {
		return nil
	}
	h := total.Lag
	return &results.Behind{LimitMs: measure.Ms(lagLimit), LagP50Ms: measure.Ms(h.Percentile(50)), LagP99Ms: measure.Ms(h.Percentile(99)),
		LagMaxMs: measure.Ms(h.Max()), FromS: b.from.Seconds()}
}

// BehindWarning is the iteration's warning of its lag.
func BehindWarning(b *results.Behind) string {
	return fmt.Sprintf("%s; its latency counts from the schedule, but the load was slower than planned: a client short of CPU, or events held up by slower ones before them on their connection", b)
}
