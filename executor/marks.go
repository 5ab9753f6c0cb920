package executor

import (
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// marks are the moments an iteration's steps marked (step.Env.Mark), kept as wall times:
// a during: step marks them while the workload runs, before the measured part's start is
// known to the executor (the workload's total says it at the end).
// They keep the workload's intervals too, for a during: step that measures the workload
// itself (step.Env.Intervals: a failover drill's recovery).
type marks struct {
	mu        sync.Mutex
	at        []mark
	intervals []measure.Interval
}

// interval keeps a copy of iv's times and counts (not its histograms, which the rows'
// writer still reads).
func (m *marks) interval(iv *measure.Interval) {
	c := measure.Interval{Index: iv.Index, Start: iv.Start, End: iv.End, Elapsed: iv.Elapsed, Warmup: iv.Warmup, Threads: iv.Threads, Stage: iv.Stage}
	c.Counts = iv.Counts
	if iv.ErrorsByCode != nil {
		c.ErrorsByCode = make(map[int]int64, len(iv.ErrorsByCode))
		for k, v := range iv.ErrorsByCode {
			c.ErrorsByCode[k] = v
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.intervals = append(m.intervals, c)
}

// seen are the intervals so far, in order.
func (m *marks) seen() []measure.Interval {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]measure.Interval(nil), m.intervals...)
}

type mark struct {
	name string
	at   time.Time
}

func (m *marks) add(name string, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.at = append(m.at, mark{name, at})
}

// events are the marks in seconds from start, the measured part's (the intervals' elapsed).
func (m *marks) events(start time.Time) []results.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []results.Event
	for _, k := range m.at {
		out = append(out, results.Event{Name: k.name, AtS: k.at.Sub(start).Seconds()})
	}
	return out
}
