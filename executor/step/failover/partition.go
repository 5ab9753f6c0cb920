package failover

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// A partition cuts the primary off from its clients and its replicas while it runs on: the
// replicas replicate through links of the drill's own from its start, and the fault
// points the front and the links nowhere. What the replicas had not received when the
// network went is on none of them, as after a crash, but the old primary is alive and has
// it. partition_replicas cuts the links alone; a link fault (link:) shapes them before.

// detours says whether the drill moves the replicas behind its links.
func (b *Failover) detours() bool {
	return b.Fault == "partition" || b.Fault == "partition_replicas" || b.Link != nil
}

// replLink is a replica's path to the primary during a drill: a link of the drill's in
// front of the port it replicated from (the primary's own, or a link of the topology's,
// whose shape stays in force behind the drill's).
type replLink struct {
	r    *sandbox.Server
	l    *link.Link
	port int // where the replica replicated from before the drill
}

// detour makes each replica replicate through a link of the drill's (MariaDB: by GTID, so
// the change of address loses nothing), unshaped until a link fault.
func (s *sandboxSide) detour(ctx context.Context) error {
	if s.d.b.Fault == "partition" && s.d.front == nil {
		return errors.New("failover: a partition cuts the clients off at the run's front address, and this target has none")
	}
	if s.old.Binary().Flavor != sandbox.FlavorMariaDB {
		return fmt.Errorf("failover: fault %s and link: move the replicas to a proxy by GTID: MariaDB sandboxes only", s.d.b.Fault)
	}
	for _, r := range s.c.Replicas {
		st, err := stateOf(ctx, r)
		if err != nil {
			return fmt.Errorf("failover: %w", err)
		}
		l, err := link.Listen(net.JoinHostPort("127.0.0.1", strconv.Itoa(st.masterPort)), link.Shape{})
		if err != nil {
			return err
		}
		s.repl = append(s.repl, replLink{r: r, l: l, port: st.masterPort})
		_, port, _ := net.SplitHostPort(l.Addr())
		if err := s.pointReplica(ctx, r, port); err != nil {
			return err
		}
	}
	return nil
}

// pointReplica points a replica at port of 127.0.0.1, its credentials kept, and waits
// until it replicates again.
func (s *sandboxSide) pointReplica(ctx context.Context, r *sandbox.Server, port string) error {
	if err := r.Exec(ctx, "STOP SLAVE", "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT="+port, "START SLAVE"); err != nil {
		return fmt.Errorf("failover: point %s at 127.0.0.1:%s: %w", r.Name(), port, err)
	}
	deadline := time.Now().Add(s.d.b.CatchupTimeout)
	for {
		st, err := stateOf(ctx, r)
		if err == nil && st.ioRunning == "Yes" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("failover: %s does not replicate through 127.0.0.1:%s after %s (IO thread %q)", r.Name(), port, s.d.b.CatchupTimeout, st.ioRunning)
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// partition is the fault: no replica reaches the primary any more, nor (clients) any
// client. What the links held is lost.
func (s *sandboxSide) partition(clients bool) {
	if clients {
		s.d.front.Switch("")
	}
	s.cutLinks()
}

// cutLinks cuts the replication links' connections for good, losing what they held: a
// partition, or a kill behind a link fault (the primary's host gone with its network).
func (s *sandboxSide) cutLinks() {
	for _, rl := range s.repl {
		held := rl.l.Stats().Held
		rl.l.Switch("")
		s.d.logf("replication link to %s cut: %d bytes it held never reach it", rl.r.Name(), held)
	}
}

// linkFault starts the link fault (the drill's lead ends with it); prepare put the
// replicas behind the links.
func (s *sandboxSide) linkFault(f *LinkFault) {
	for _, rl := range s.repl {
		rl.l.Set(f.shape())
	}
	s.d.logf("replication link %s", f)
}

// undetour closes the drill's links; when nothing was promoted, each replica replicates
// from where it did before the drill again.
func (s *sandboxSide) undetour() error {
	links := s.repl
	s.repl = nil
	defer func() {
		for _, rl := range links {
			rl.l.Close()
		}
	}()
	if s.now != nil {
		return nil // the promoted one replicates from nobody, the others from it
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var errs []error
	for _, rl := range links {
		errs = append(errs, s.pointReplica(ctx, rl.r, strconv.Itoa(rl.port)))
	}
	return errors.Join(errs...)
}
