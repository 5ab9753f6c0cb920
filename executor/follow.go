package executor

import (
	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/executor/watch"
)

// A target with a front (a sandbox whose primary a step moves) is watched through it: after
// a failover its samplers read the promoted replica the workload goes on on, not the killed
// server (whose Com_insert was 0 while the workload wrote elsewhere). Its status counters
// start anew at the switch (watch.Mover), and its process sampler reads the process of the
// server the front points at. The replicas' own samplers keep their servers.

// watchConfig is how the samplers of s connect: through its front when it has one.
func (f *fleet) watchConfig(s *liveTarget) *mysql.Config {
	return f.workloadConfig(s).Clone()
}

// frontOf is target name's front, nil when it has none.
func (f *fleet) frontOf(name string) *link.Link { return f.fronts[name] }

// followedPid is the pid of the server target name's front points at (0: none, a pause),
// else of the target's own server.
func (f *fleet) followedPid(name string, own func() int) func() (int, error) {
	fr, c := f.frontOf(name), f.cluster(name)
	if fr == nil || c == nil {
		return func() (int, error) { return own(), nil }
	}
	return func() (int, error) {
		up := fr.Upstream()
		for _, srv := range c.Servers() {
			if serverAddr(srv) == up {
				return srv.Pid(), nil
			}
		}
		return 0, nil
	}
}

// followFronts marks the samplers whose target's front was switched since they last read:
// their next reading is another server's. On the ticker's goroutine only.
func (w *watchers) followFronts() {
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
