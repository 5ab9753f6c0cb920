package failover

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// sandboxSide fails a sandbox cluster over: quadrant kills (or shuts down) its primary and
// promotes the most advanced replica itself.
type sandboxSide struct {
	d   *drill
	c   *sandbox.Cluster
	old *sandbox.Server // the primary the drill fails
	now *sandbox.Server // the primary of the moment
}

func (s *sandboxSide) primary() (*sql.DB, string, error) {
	p := s.now
	if p == nil {
		p = s.c.Primary
	}
	db, err := p.Open()
	return db, p.Name(), err
}

func (s *sandboxSide) addr() string { return addrOf(s.c.Primary) }

func (s *sandboxSide) prepare(ctx context.Context) error {
	s.old = s.c.Primary
	db, err := s.old.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	return createLedger(ctx, db, s.old.Name(), s.c.Replicas, s.d.b.CatchupTimeout)
}

func (s *sandboxSide) atFault(ctx context.Context, l *ledger, m map[string]float64) {
	lag := measureLag(ctx, s.c.Replicas, l)
	m[MetricLagSeconds], m[MetricLagRows] = lag.seconds, float64(lag.rows)
	s.d.logf("replica lag just before the fault: %.0fs, %d acknowledged ledger rows not applied", lag.seconds, lag.rows)
}

func (s *sandboxSide) failover(ctx context.Context, m map[string]float64) (string, error) {
	switch s.d.b.Fault {
	case "shutdown":
		if err := s.old.Stop(ctx); err != nil {
			return "", fmt.Errorf("failover: shutdown of %s: %w", s.old.Name(), err)
		}
	default:
		if err := s.old.Kill(); err != nil {
			return "", fmt.Errorf("failover: kill -9 of %s: %w", s.old.Name(), err)
		}
	}
	s.d.logf("%s of %s", s.d.b.Fault, s.old.Name())
	p, err := s.d.promote(ctx, s.c, m)
	if err != nil {
		return "", err
	}
	s.now = p
	return addrOf(p), nil
}

// restore brings the old primary back with its files (crash recovery after a kill), as a
// server of its own: the servers are left running, and restore: puts the cluster back as
// setup left it before the next iteration.
func (s *sandboxSide) restore() error {
	if s.old == nil || s.old.Running() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.old.Start(ctx); err != nil {
		return fmt.Errorf("failover: starting the old primary %s again: %w", s.old.Name(), err)
	}
	s.d.logf("old primary %s running again, out of the cluster (restore: puts the cluster back)", s.old.Name())
	return nil
}

func addrOf(s *sandbox.Server) string { return net.JoinHostPort(s.Host(), strconv.Itoa(s.Port())) }
