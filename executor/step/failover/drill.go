package failover

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
)

type runner struct{}

// Run runs one drill on the step's target.
func (runner) Run(ctx context.Context, st *spec.Step, env step.Env) error {
	if env.Targets == nil {
		return errors.New("failover: this run gives steps no access to the targets' servers")
	}
	c := env.Targets.Cluster(st.Target)
	if c == nil || len(c.Replicas) == 0 {
		return fmt.Errorf("failover: target %s is no sandbox with replicas", st.Target)
	}
	cfg, err := env.Targets.Config(st.Target)
	if err != nil {
		return fmt.Errorf("failover: %w", err)
	}
	d := &drill{b: body(st), c: c, cfg: cfg, front: env.Targets.Front(st.Target), logf: func(f string, a ...any) { env.Logf("%s: "+f, append([]any{env.Where}, a...)...) }}
	m, err := d.run(ctx)
	if env.Record != nil && m != nil {
		for _, name := range Metrics {
			if v, ok := m[name]; ok {
				env.Record(name, v)
			}
		}
	}
	return err
}

// drill is one failover of cluster c.
type drill struct {
	b     *Failover
	c     *sandbox.Cluster
	cfg   *mysql.Config // the target's, for its credentials; the address is the drill's
	front step.Front    // nil: the ledger follows the primary itself
	logf  func(string, ...any)
	// beforeFault, in tests, runs once the ledger has acknowledged ids, just before the
	// fault: a test plants a loss there.
	beforeFault func(ctx context.Context, l *ledger) error
	// lost are the acknowledged ids the new primary lacked, once counted.
	lost []int64
	// promoted is the replica the drill promoted.
	promoted *sandbox.Server
}

// run is the drill's timeline: ledger, fault, promotion, first write, count. The metrics
// measured so far come back with an error too.
func (d *drill) run(ctx context.Context) (map[string]float64, error) {
	old := d.c.Primary
	m := map[string]float64{}
	if err := createLedger(ctx, old, d.c.Replicas, d.b.CatchupTimeout); err != nil {
		return nil, err
	}
	l := newLedger(d.ledgerConfig(), d.b.Writers)
	if d.front != nil {
		l.addr.Store(ptr(d.front.Addr()))
	} else {
		l.addr.Store(ptr(addrOf(old)))
	}
	began, commits0 := time.Now(), binlogCommits(ctx, old)
	l.start(ctx)
	defer l.stop()
	if err := sleep(ctx, d.b.Lead); err != nil {
		return nil, err
	}
	if commits0 >= 0 {
		if n := binlogCommits(ctx, old); n >= 0 {
			// the workload's own: the ledger's commits are the drill's
			ledgerCommits := int64(len(l.ackedBefore(time.Now())))
			m[MetricTPSBefore] = float64(max(0, n-commits0-ledgerCommits)) / time.Since(began).Seconds()
		}
	}
	if d.beforeFault != nil {
		if err := d.beforeFault(ctx, l); err != nil {
			return nil, err
		}
	}
	lag := measureLag(ctx, old, d.c.Replicas, l)
	m[MetricLagSeconds], m[MetricLagRows] = lag.seconds, float64(lag.rows)
	faultAt := time.Now()
	if err := d.fault(ctx, old); err != nil {
		return m, err
	}
	acked := l.ackedBefore(faultAt)
	m[MetricAcked] = float64(len(acked))
	d.logf("%s of %s: %d ledger ids acknowledged before it; replica lag %.0fs, %d rows", d.b.Fault, old.Name(), len(acked), lag.seconds, lag.rows)
	p, err := d.promote(ctx, m)
	if err != nil {
		return m, errors.Join(err, d.restart(old))
	}
	d.promoted = p
	l.epoch.Add(1) // connections opened from now on reach the new primary
	if d.front != nil {
		d.front.Switch(addrOf(p))
		d.logf("front %s switched to %s", d.front.Addr(), p.Name())
	} else {
		l.addr.Store(ptr(addrOf(p)))
	}
	first, err := l.firstCommit(ctx, faultAt, d.b.RecoverTimeout)
	if err != nil {
		return m, errors.Join(fmt.Errorf("no write commit on the new primary %s: %w", p.Name(), err), d.restart(old))
	}
	m[MetricUnavailable] = first.Sub(faultAt).Seconds()
	l.stop() // no write in flight while the new primary's ids are read
	lost, extra, err := count(ctx, p, l)
	if err != nil {
		return m, errors.Join(err, d.restart(old))
	}
	d.lost = lost
	m[MetricAckedLost], m[MetricUnackedPresent] = float64(len(lost)), float64(extra)
	d.logf("%s promoted: first write commit %.3fs after the fault; %d acknowledged ids lost, %d unacknowledged ids present", p.Name(), m[MetricUnavailable], len(lost), extra)
	return m, d.restart(old)
}

// binlogCommits is the primary's Binlog_commits (MariaDB: transactions written to its binary
// log), -1 when it has none to tell.
func binlogCommits(ctx context.Context, s *sandbox.Server) int64 {
	db, err := s.Open()
	if err != nil {
		return -1
	}
	defer db.Close()
	var name string
	var n int64
	if db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Binlog_commits'").Scan(&name, &n) != nil {
		return -1
	}
	return n
}

// fault fails the primary as the body says.
func (d *drill) fault(ctx context.Context, s *sandbox.Server) error {
	switch d.b.Fault {
	case "shutdown":
		if err := s.Stop(ctx); err != nil {
			return fmt.Errorf("shutdown of %s: %w", s.Name(), err)
		}
	default:
		if err := s.Kill(); err != nil {
			return fmt.Errorf("kill -9 of %s: %w", s.Name(), err)
		}
	}
	return nil
}

// restart brings the old primary back with its files (crash recovery after a kill), as a
// server of its own: the servers are left running, and restore: puts the cluster back
// as setup left it before the next iteration.
func (d *drill) restart(s *sandbox.Server) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		return fmt.Errorf("starting the old primary %s again: %w", s.Name(), err)
	}
	d.logf("old primary %s running again, out of the cluster (restore: puts the cluster back)", s.Name())
	return nil
}

// ledgerConfig is the target's credentials for the ledger's connections, with timeouts
// short enough that a dead server shows as an error at once rather than a hung write.
func (d *drill) ledgerConfig() *mysql.Config {
	c := d.cfg.Clone()
	c.Net, c.DBName = "tcp", ""
	c.Timeout, c.ReadTimeout, c.WriteTimeout = time.Second, 5*time.Second, 5*time.Second
	c.Logger = quiet{} // every connection the fault cuts would print "unexpected EOF"
	return c
}

type quiet struct{}

func (quiet) Print(...any) {}

func addrOf(s *sandbox.Server) string { return net.JoinHostPort(s.Host(), strconv.Itoa(s.Port())) }

func ptr[T any](v T) *T { return &v }

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
