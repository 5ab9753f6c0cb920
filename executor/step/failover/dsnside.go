package failover

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
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
	logFile func(string, ...any) // log.txt only; nil: the drill's log
	// before is the server the address led to before the fault ("" unknown); returned says
	// the promote command returned without an error.
	before   string
	returned bool
	ledger   *ledger // the drill's, from the fault on
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
	s.before = serverOf(ctx, db)
	return createLedger(ctx, db, s.name)
}

// linkFault: check refuses link: on a dsn target (its network is the user's).
func (s *dsnSide) linkFault(*LinkFault) {}

func (s *dsnSide) atFault(_ context.Context, l *ledger, _ map[string]float64) { s.ledger = l }

// failover runs the promote command, bounded by recover_timeout; the fault counts from its
// start. Its output goes to log.txt, and into the error when it fails. The output is a file,
// not a pipe: the drill waits for the command's sh to exit, never for a process the command
// left running that still holds its output.
func (s *dsnSide) failover(ctx context.Context, _ map[string]float64) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, s.d.b.RecoverTimeout)
	defer cancel()
	s.d.logf("promote: %s", s.command)
	f, err := os.CreateTemp("", "quadrant-promote-*.out")
	if err != nil {
		return "", fmt.Errorf("failover: a file for the promote command's output: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd := exec.CommandContext(cctx, "sh", "-c", s.command)
	cmd.Stdout, cmd.Stderr = f, f
	began := time.Now()
	stop := make(chan struct{})
	failed := firstFailure(s.ledger, stop)
	err = cmd.Run()
	took := time.Since(began)
	close(stop)
	if at, ok := <-failed; ok {
		s.d.logf("the ledger's writers met the fault (their first failed write) %.3fs after the promote command started", at.Sub(began).Seconds())
	} else {
		s.d.logf("no ledger write failed while the promote command ran")
	}
	out, _ := os.ReadFile(f.Name())
	s.logOutput(strings.TrimRight(string(out), "\n"))
	switch {
	case err != nil && cctx.Err() != nil && ctx.Err() == nil:
		return "", fmt.Errorf("failover: the promote command %q did not return within recover_timeout %s: its sh was killed (the processes it started were not)\n%s", s.command, s.d.b.RecoverTimeout, tail.Lines(string(out), 15))
	case err != nil:
		return "", fmt.Errorf("failover: the promote command %q failed: %v\n%s", s.command, err, tail.Lines(string(out), 15))
	}
	s.d.logf("promote command returned after %.3fs", took.Seconds())
	s.returned = true
	return "", nil
}

// firstFailure is when the ledger's first write failed after now, before stop is closed
// (nothing, the channel closed, when none did): the moment the clients met the fault, which a
// promote command's preamble (an ssh login) puts after its start.
func firstFailure(l *ledger, stop <-chan struct{}) <-chan time.Time {
	out := make(chan time.Time, 1)
	if l == nil {
		close(out)
		return out
	}
	errs := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.errs
	}
	before := errs()
	go func() {
		defer close(out)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				if errs() > before {
					out <- now
					return
				}
			}
		}
	}()
	return out
}

// logOutput writes the promote command's output to log.txt (the console has its line).
func (s *dsnSide) logOutput(out string) {
	if strings.TrimSpace(out) == "" {
		out = "(no output)"
	}
	logf := s.logFile
	if logf == nil {
		logf = s.d.logf
	}
	logf("promote output:\n%s", out)
}

// restore leaves the user's servers as they are. After a promote command that returned, it
// says when the address still leads to the server it led to before the fault: the count was
// then that server's (a command that returned before it moved the address, or moved nothing).
func (s *dsnSide) restore() error {
	if !s.returned || s.before == "" {
		return nil
	}
	db, _, err := s.primary()
	if err != nil {
		return nil
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if now := serverOf(ctx, db); now == s.before {
		s.d.logf("warning: after the promote command the address %s still leads to %s, the server it led to before the fault: the first commit and the count are that server's; the command must return only once the address leads to the new primary (docs/failover.md, Own servers)", s.addr(), now)
	}
	return nil
}

// serverOf names the server db reaches ("" when it does not answer).
func serverOf(ctx context.Context, db *sql.DB) string {
	var id string
	if db.QueryRowContext(ctx, "SELECT CONCAT('server_id ', @@server_id, ' (', @@hostname, ':', @@port, ')')").Scan(&id) != nil {
		return ""
	}
	return id
}

func (s *dsnSide) commits(ctx context.Context) int64 { return s.d.binlogCommits(ctx) }
