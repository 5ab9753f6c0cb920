package collect

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// The window a server was unreachable closes at the first later interval that completed
// transactions, even when its reconnecting workers met refusals in it too (a restart that
// ends in the iteration's last interval, as on a busy host); a window still open when the
// workload ends says so.
func TestDowntimeWindow(t *testing.T) {
	at := time.Date(2026, 12, 6, 10, 27, 6, 0, time.UTC)
	iv := func(i int, events int64, codes map[int]int64) *measure.Interval {
		var errs int64
		for _, n := range codes {
			errs += n
		}
		return &measure.Interval{Start: at.Add(time.Duration(i) * time.Second), End: at.Add(time.Duration(i+1) * time.Second),
			Stats: measure.Stats{Counts: measure.Counts{Events: events, Errors: errs}, ErrorsByCode: codes}}
	}
	var log []string
	rw := &Rows{RowInputs: RowInputs{Iteration: 1, Target: "db", Logf: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }}}
	for i, x := range []*measure.Interval{
		iv(0, 500, nil),
		iv(1, 120, map[int]int64{2013: 2}), // the restart: the window opens
		iv(2, 0, map[int]int64{2003: 6}),
		iv(3, 40, map[int]int64{2003: 3}), // back, after more refusals in the same interval
		iv(4, 500, nil),
		iv(5, 0, map[int]int64{2003: 4}), // gone again until the end
	} {
		rw.downtime(x)
		if i == 3 && !strings.Contains(strings.Join(log, "\n"), "db answering again at about 10:27:10.000, after at most 3.0s (11 errors in the window)") {
			t.Fatalf("no end of the window at the interval that completed transactions:\n%s", strings.Join(log, "\n"))
		}
	}
	rw.queue, rw.done = make(chan *pending), make(chan struct{})
	close(rw.done)
	rw.Close()
	if last := log[len(log)-1]; last != "iteration 1: db still unreachable when the workload ended (4 errors since about 10:27:11.000)" {
		t.Errorf("the open window at the end: %q", last)
	}
}
