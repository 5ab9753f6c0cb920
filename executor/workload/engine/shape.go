package engine

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Stage is one level of a load shape: Threads workers running (closed loop) or Rate
// events/s over all workers (open loop), for Duration.
type Stage struct {
	Duration time.Duration
	Threads  int
	Rate     float64
}

// shape is a load shape over the measured part: the level at any offset from its start.
type shape struct {
	stages []Stage
	linear bool
	ends   []time.Duration // each stage's end, from the measured start
}

func newShape(stages []Stage, linear bool) *shape {
	s := &shape{stages: stages, linear: linear}
	var at time.Duration
	for _, st := range stages {
		at += st.Duration
		s.ends = append(s.ends, at)
	}
	return s
}

func (s *shape) open() bool { return s.stages[0].Rate > 0 }

func (s *shape) total() time.Duration { return s.ends[len(s.ends)-1] }

// level is the threads (closed loop) or rate (open loop) at offset d from the measured
// start: warmup runs at the first stage's level, the end holds the last's.
func (s *shape) level(d time.Duration) float64 {
	lv := func(st Stage) float64 {
		if st.Rate > 0 {
			return st.Rate
		}
		return float64(st.Threads)
	}
	if d < 0 {
		return lv(s.stages[0])
	}
	var begin time.Duration
	for i, st := range s.stages {
		if d < s.ends[i] {
			if !s.linear || i == 0 {
				return lv(st)
			}
			from, to := lv(s.stages[i-1]), lv(st)
			return from + (to-from)*float64(d-begin)/float64(st.Duration)
		}
		begin = s.ends[i]
	}
	return lv(s.stages[len(s.stages)-1])
}

// StageEnds are the stages' ends from the start of the measured part, for the collector.
func StageEnds(stages []Stage) []time.Duration { return newShape(stages, false).ends }

// gate lets the first n workers of a closed-loop shape run; the others wait for it to
// open to them. Workers read n between events without a lock.
type gate struct {
	n    atomic.Int64
	mu   sync.Mutex
	wake chan struct{} // closed and replaced whenever n grows
}

func newGate(n int) *gate {
	g := &gate{wake: make(chan struct{})}
	g.n.Store(int64(n))
	return g
}

func (g *gate) set(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if int64(n) > g.n.Load() {
		close(g.wake)
		g.wake = make(chan struct{})
	}
	g.n.Store(int64(n))
}

// wait blocks worker id until the gate is open to it; false when stop came first.
func (g *gate) wait(id int, stop <-chan struct{}) bool {
	for int64(id) >= g.n.Load() {
		g.mu.Lock()
		wake, closed := g.wake, int64(id) >= g.n.Load()
		g.mu.Unlock()
		if !closed {
			break
		}
		select {
		case <-wake:
		case <-stop:
			return false
		}
	}
	return true
}

func (g *gate) threads() int { return int(g.n.Load()) }

// shapeStep is how often a linear ramp moves its level; steps are timed to their stage's start.
const shapeStep = 100 * time.Millisecond

// steer moves the load along the shape until stop is closed: the gate's width in closed
// loop, the arrivals' rate in open loop.
func (r *run) steer() {
	s := r.shape
	apply := func(d time.Duration) {
		lv := s.level(d)
		if r.arrivals != nil {
			r.arrivals.setRate(lv)
		} else {
			r.gate.set(max(1, int(math.Round(lv))))
		}
	}
	for {
		d := time.Since(r.measured)
		apply(d)
		if d >= s.total() {
			return
		}
		// The next change: a linear ramp's next step, or the next stage's start.
		wait := shapeStep
		if !s.linear || d < 0 {
			for _, e := range s.ends {
				if e > d {
					wait = e - d
					break
				}
			}
			if d < 0 {
				wait = -d
			}
		}
		select {
		case <-time.After(wait):
		case <-r.Done():
			return
		}
	}
}
