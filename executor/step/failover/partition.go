package failover

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/quadrant-bench/quadrant/executor/front"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// A partition cuts the primary off from its clients and its replicas while it runs on: the
// replicas replicate through a front of the drill's own from its start, and the fault
// points both fronts nowhere. What the replicas had not received when the network went
// is on none of them, as after a crash, but the old primary is alive and has it.

// detour makes the replicas replicate through a front of the drill's (MariaDB: by GTID, so
// the change of address loses nothing).
func (s *sandboxSide) detour(ctx context.Context) error {
	if s.d.front == nil {
		return errors.New("failover: a partition cuts the clients off at the run's front address, and this target has none")
	}
	if s.old.Binary().Flavor != sandbox.FlavorMariaDB {
		return errors.New("failover: a partition moves the replicas to a proxy by GTID: MariaDB sandboxes only")
	}
	repl, err := front.Listen(addrOf(s.old))
	if err != nil {
		return err
	}
	s.repl = repl
	_, port, _ := net.SplitHostPort(repl.Addr())
	return s.pointReplicas(ctx, port)
}

// pointReplicas points every replica at port of 127.0.0.1, its credentials kept, and waits
// until each replicates again.
func (s *sandboxSide) pointReplicas(ctx context.Context, port string) error {
	for _, r := range s.c.Replicas {
		if err := r.Exec(ctx, "STOP SLAVE", "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT="+port, "START SLAVE"); err != nil {
			return fmt.Errorf("failover: point %s at 127.0.0.1:%s: %w", r.Name(), port, err)
		}
		deadline := time.Now().Add(s.d.b.CatchupTimeout)
		for {
			st, err := stateOf(ctx, r)
			if err == nil && st.ioRunning == "Yes" {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("failover: %s does not replicate through 127.0.0.1:%s after %s (IO thread %q)", r.Name(), port, s.d.b.CatchupTimeout, st.ioRunning)
			}
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return err
			}
		}
	}
	return nil
}

// partition is the fault: no client and no replica reaches the primary any more.
func (s *sandboxSide) partition() {
	s.d.front.Switch("")
	s.repl.Switch("")
}

// undetour closes the replicas' front; when nothing was promoted, the replicas replicate
// from the primary directly again.
func (s *sandboxSide) undetour() error {
	if s.repl == nil {
		return nil
	}
	defer s.repl.Close()
	if s.now != nil {
		return nil // the promoted one replicates from nobody, the others from it
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, port, _ := net.SplitHostPort(addrOf(s.old))
	return s.pointReplicas(ctx, port)
}
