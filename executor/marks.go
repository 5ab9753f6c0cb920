package executor

import (
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/results"
)

// marks are the moments an iteration's steps marked (step.Env.Mark), kept as wall times:
// a during: step marks them while the workload runs, before the measured part's start is
// known to the executor (the workload's total says it at the end).
type marks struct {
	mu sync.Mutex
	at []mark
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
