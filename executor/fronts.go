package executor

import (
	"net"
	"slices"
	"strconv"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// A front is an address the run keeps in front of a sandbox target whose primary a step
// moves (spec.StepKind.Front: a failover drill): the target's workloads connect through
// it, the step switches it to the promoted replica, and each iteration starts with it on
// the cluster's own primary again (restore: has put the cluster back).

// openFront opens target name's front when a step of the plan moves its primary, or when
// its sandbox links the client to it (client: of sandbox.links, then the front is that
// link).
func (f *fleet) openFront(name string, c *sandbox.Cluster, client bool) error {
	moved := slices.Contains(f.plan.Fronted(), name)
	if !moved && !client {
		return nil
	}
	// A front is a link: shaped when the sandbox links the client to its primary, carrying
	// bytes as they come otherwise (a zero shape writes through).
	fr, err := link.Listen(serverAddr(c.Primary), link.Shape{})
	if err != nil {
		return err
	}
	if client {
		f.netOf(name).client = fr
		f.log.logf("target %s: workloads connect through link %s (client -> primary)", name, fr.Addr())
	}
	if f.fronts == nil {
		f.fronts = map[string]*link.Link{}
	}
	f.fronts[name] = fr
	if moved {
		f.log.logf("target %s: workloads connect through %s, which follows its primary", name, fr.Addr())
	}
	return nil
}

// resetFronts points every front at its cluster's primary, before an iteration.
func (f *fleet) resetFronts() {
	for name, fr := range f.fronts {
		if c := f.cluster(name); c != nil && fr.Upstream() != serverAddr(c.Primary) {
			fr.Switch(serverAddr(c.Primary))
			f.log.logf("target %s: front %s back on the primary %s", name, fr.Addr(), c.Primary.Name())
		}
	}
}

func (f *fleet) closeFronts() {
	for _, fr := range f.fronts {
		fr.Close()
	}
}

// workloadConfig is how a workload on s connects: through its front when it has one.
func (f *fleet) workloadConfig(s *liveTarget) *mysql.Config {
	c := s.Config()
	if fr := f.fronts[s.Name()]; fr != nil {
		c = c.Clone()
		c.Net, c.Addr = "tcp", fr.Addr()
	}
	return c
}

// followedPid is the pid of the server target name's front points at (0: none, a pause),
// else of the target's own server: a failover's samplers read the promoted server's process.
func (f *fleet) followedPid(name string, own func() int) func() (int, error) {
	fr, c := f.fronts[name], f.cluster(name)
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

func serverAddr(s *sandbox.Server) string {
	return net.JoinHostPort(s.Host(), strconv.Itoa(s.Port()))
}
