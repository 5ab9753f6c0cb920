package failover

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"time"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/executor/internal/tail"
)

// dsnSide fails a dsn target over with the user's own promote command, which fails the
// primary and promotes another however the user's setup does (an orchestrator's API, a
// script); the target's address is to follow the new primary (a VIP, a proxy), so the
// ledger goes on writing to it and is counted there. Quadrant knows none of the
// target's replicas: no lag is measured.
type dsnSide struct {
	d       *drill
	name    string
	command string
}

func (s *dsnSide) primary() (*sql.DB, string, error) {
	c := s.d.cfg.Clone()
	c.Logger = quiet{}
	conn, err := authretry.NewConnector(c)
	if err != nil {
		return nil, "", err
	}
	return sql.OpenDB(conn), s.name, nil
}

func (s *dsnSide) addr() string { return s.d.cfg.Addr }

func (s *dsnSide) prepare(ctx context.Context) error {
	db, _, err := s.primary()
	if err != nil {
		return err
	}
	defer db.Close()
	return createLedger(ctx, db, s.name)
}

// linkFault: check refuses link: on a dsn target (its network is the user's).
func (s *dsnSide) linkFault(*LinkFault) {}

func (s *dsnSide) atFault(context.Context, *ledger, map[string]float64) {}

// failover runs the promote command, bounded by recover_timeout; its output is in the
// error when it fails.
func (s *dsnSide) failover(ctx context.Context, _ map[string]float64) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.d.b.RecoverTimeout)
	defer cancel()
	s.d.logf("promote: %s", s.command)
	cmd := exec.CommandContext(ctx, "sh", "-c", s.command)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("failover: the promote command %q failed: %v\n%s", s.command, err, tail.Lines(string(out), 15))
	}
	return "", nil
}

func (s *dsnSide) restore() error { return nil } // the user's servers are the user's
