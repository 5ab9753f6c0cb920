package failover

import (
	"context"
	"database/sql"
	"errors"
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
	// repl are the links the replicas replicate through in a partition drill or one with a
	// link fault (partition.go).
	repl []replLink
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
	if s.d.b.detours() {
		if err := s.detour(ctx); err != nil {
			return err
		}
	}
	return createLedger(ctx, db, s.old.Name())
}

func (s *sandboxSide) atFault(ctx context.Context, l *ledger, m map[string]float64) {
	lag := measureLag(ctx, s.c.Primary, s.c.Replicas, l)
	m[MetricLagSeconds], m[MetricLagRows] = lag.seconds, float64(lag.rows)
	if lag.bytes >= 0 {
		m[MetricLagBytes] = float64(lag.bytes)
	}
	bytes := fmt.Sprintf("%d bytes", lag.bytes)
	if lag.bytes < 0 {
		bytes = "unknown bytes (the primary did not say where its binary log ends within 3s, as when a semi-sync commit waiting for its acknowledgement holds SHOW MASTER STATUS, or the replica reads another file of it)"
	}
	s.d.logf("replica lag just before the fault: %.0fs, %d acknowledged ledger rows not applied, %s of binary log not received", lag.seconds, lag.rows, bytes)
}

func (s *sandboxSide) failover(ctx context.Context, m map[string]float64) (string, error) {
	switch s.d.b.Fault {
	case "partition":
		s.partition(true)
	case "partition_replicas":
		s.partition(false)
	case "switchover":
		if err := s.pause(ctx); err != nil {
			return "", err
		}
	case "shutdown":
		if err := s.old.StopForReplicas(ctx); err != nil {
			return "", fmt.Errorf("failover: shutdown of %s: %w", s.old.Name(), err)
		}
	default:
		if err := s.old.Kill(); err != nil {
			return "", fmt.Errorf("failover: kill -9 of %s: %w", s.old.Name(), err)
		}
		if s.d.b.Link != nil {
			s.cutLinks()
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

// pause is a switchover's fault: no client reaches the primary (the front points nowhere),
// then every replica waits until it has applied all the primary wrote.
func (s *sandboxSide) pause(ctx context.Context) error {
	if s.d.front == nil {
		return errors.New("failover: a switchover stops the clients at the run's front address, and this target has none")
	}
	if s.old.Binary().Flavor != sandbox.FlavorMariaDB {
		return errors.New("failover: a switchover waits for the replicas by GTID (MASTER_GTID_WAIT): MariaDB sandboxes only")
	}
	s.d.front.Switch("")
	db, err := s.old.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	var pos string
	if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_binlog_pos").Scan(&pos); err != nil {
		return fmt.Errorf("failover: switchover: gtid_binlog_pos of %s: %w", s.old.Name(), err)
	}
	for _, r := range s.c.Replicas {
		if err := poll(ctx, r, s.d.b.CatchupTimeout, fmt.Sprintf("SELECT MASTER_GTID_WAIT('%s', 1) = 0", pos), func() string {
			return fmt.Sprintf("failover: switchover: replica %s did not reach the primary's GTID position %s within catchup_timeout %s; the clients stay cut off from %s, which runs on", r.Name(), pos, s.d.b.CatchupTimeout, s.old.Name())
		}); err != nil {
			return err
		}
	}
	return nil
}

// restore brings the old primary back with its files (crash recovery after a kill), as a
// server of its own, and the front back on it when nothing was promoted: the servers are
// left running, and restore: puts the cluster back as setup left it before the next
// iteration.
func (s *sandboxSide) restore() error {
	if s.now == nil && s.d.front != nil && s.old != nil {
		s.d.front.Switch(addrOf(s.old)) // no promotion: the clients go back to the primary
	}
	if err := s.undetour(); err != nil {
		return err
	}
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

func (s *sandboxSide) commits(ctx context.Context) int64 { return s.d.binlogCommits(ctx) }
