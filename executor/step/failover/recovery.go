package failover

import (
	"context"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// recoveredShare is how much of its throughput before the fault the workload must have
// again to count as recovered (docs/failover.md).
const recoveredShare = 0.9

// recovery waits until the workload's throughput is back: the first report interval that
// starts at or after the first commit on the new primary with a TPS of at least
// recoveredShare of the TPS of the measured intervals that ended before the fault. It
// records the seconds from the fault to that interval's end (so at the report interval's
// resolution) and the workload's errors of the intervals from the fault's to it. It gives
// up quietly when the workload ends first (the figures are then missing).
func (d *drill) recovery(ctx context.Context, faultAt, first time.Time, m map[string]float64) {
	if d.intervals == nil {
		return
	}
	before := rateBefore(d.intervals(), faultAt)
	if before <= 0 {
		d.logf("no measured interval ended before the fault: time to full throughput not measured")
		return
	}
	for {
		if at, errs, ok := recovered(d.intervals(), faultAt, first, recoveredShare*before); ok {
			m[MetricRecovery], m[MetricErrors] = at.Sub(faultAt).Seconds(), float64(errs)
			d.logf("throughput back to %.0f%% of %.0f tps %.2fs after the fault; %d workload errors meanwhile", 100*recoveredShare, before, m[MetricRecovery], errs)
			return
		}
		if sleep(ctx, 100*time.Millisecond) != nil {
			d.logf("throughput not back to %.0f%% of %.0f tps before the workload ended: time to full throughput not measured", 100*recoveredShare, before)
			return
		}
	}
}

// rateBefore is the TPS of the measured intervals that ended by to; 0 when there is none.
func rateBefore(ivs []measure.Interval, to time.Time) float64 {
	var events int64
	var secs float64
	for i := range ivs {
		iv := &ivs[i]
		if iv.Warmup || iv.End.After(to) {
			continue
		}
		events += iv.Events
		secs += iv.Seconds()
	}
	if secs <= 0 {
		return 0
	}
	return float64(events) / secs
}

// recovered finds the first interval from first on at tps or more: its end and the errors
// of the intervals ending after the fault up to it.
func recovered(ivs []measure.Interval, faultAt, first time.Time, tps float64) (time.Time, int64, bool) {
	var errs int64
	for i := range ivs {
		iv := &ivs[i]
		if !iv.End.After(faultAt) {
			continue
		}
		errs += iv.Errors
		if !iv.Start.Before(first) && iv.Seconds() > 0 && float64(iv.Events)/iv.Seconds() >= tps {
			return iv.End, errs, true
		}
	}
	return time.Time{}, 0, false
}
