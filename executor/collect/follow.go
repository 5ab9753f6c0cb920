package collect

import "github.com/quadrant-bench/quadrant/executor/watch"

// A target with a front (a sandbox whose primary a step moves) is watched through it: after
// a failover its samplers read the promoted replica the workload goes on on, not the killed
// server (whose Com_insert was 0 while the workload wrote elsewhere). Its status counters
// start anew at the switch (watch.Mover), and its process sampler reads the process of the
// server the front points at. The replicas' own samplers keep their servers.

// followFronts marks the samplers whose target's front was switched since they last read:
// their next reading is another server's. On the ticker's goroutine only.
func (w *Watchers) followFronts() {
	for _, sm := range w.active {
		if sm.front == nil {
			continue
		}
		if up := sm.front.Upstream(); up != sm.upstream {
			sm.upstream = up
			sm.moved.Store(true)
		}
	}
}

// moveIfSwitched tells sm's sampler, before it reads, that its source is another server.
func moveIfSwitched(sm *sampler) {
	if sm.moved.CompareAndSwap(true, false) {
		if m, ok := sm.s.(watch.Mover); ok {
			m.Moved()
		}
	}
}
