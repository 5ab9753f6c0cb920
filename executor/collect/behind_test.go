package collect

import (
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// lagged is an interval ending at elapsed whose 100 events started lag late.
func lagged(elapsed, lag time.Duration) *measure.Interval {
	iv := &measure.Interval{Elapsed: elapsed}
	iv.Lag = measure.NewHistogram()
	for range 100 {
		iv.Lag.Record(lag)
	}
	return iv
}

// An open loop is behind its schedule when its lag p99 passes lagLimit: said once, when the
// first interval past it ends, and at the end; a closed loop (no lag) and one on schedule
// are not.
func TestBehindItsScheduleIsSaidOnce(t *testing.T) {
	var logged []string
	b := behindWatch{iteration: 2, logf: func(f string, a ...any) { logged = append(logged, f) }}
	total := &measure.Total{}
	total.Lag = measure.NewHistogram()
	for i, lag := range []time.Duration{time.Millisecond, lagLimit / 2, 3 * lagLimit, 4 * lagLimit} {
		iv := lagged(time.Duration(i+1)*time.Second, lag)
		b.see(iv)
		total.Lag.Merge(iv.Lag)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "falling behind its schedule") {
		t.Fatalf("logged %q, want one warning", logged)
	}
	r := b.result(total)
	if r == nil || r.FromS != 3 || r.LagP99Ms < 390 || r.LimitMs != 100 {
		t.Fatalf("behind %+v, want from 3 s, p99 about 400 ms", r)
	}
	onTime := behindWatch{logf: b.logf}
	ok := &measure.Total{}
	ok.Lag = lagged(time.Second, lagLimit/2).Lag
	onTime.see(lagged(time.Second, lagLimit/2))
	if r := onTime.result(ok); r != nil || len(logged) != 1 {
		t.Fatalf("a loop on schedule is behind: %+v, %q", r, logged)
	}
	if r := onTime.result(&measure.Total{}); r != nil {
		t.Fatalf("a closed loop is behind: %+v", r)
	}
}
