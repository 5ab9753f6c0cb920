package failover

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

type runner struct{}

// Run runs one drill on the step's target: a sandbox cluster, or a dsn target whose
// promote command does the failover.
func (runner) Run(ctx context.Context, st *spec.Step, env step.Env) error {
	if env.Servers == nil {
		return errors.New("failover: this run gives steps no access to the targets' servers")
	}
	cfg, err := env.Servers.Config(st.Target)
	if err != nil {
		return fmt.Errorf("failover: %w", err)
	}
	b := body(st)
	d := &drill{b: b, cfg: cfg, front: env.Servers.Front(st.Target), logf: func(f string, a ...any) { env.Logf("%s: "+f, append([]any{env.Where}, a...)...) }, mark: env.Mark, intervals: env.Intervals}
	switch c := env.Servers.Cluster(st.Target); {
	case c != nil && c.Galera() > 0:
		node := b.Node
		if node == "" {
			node = st.Target
		}
		if d.side, err = newGaleraSide(d, c, node); err != nil {
			return err
		}
	case c != nil && len(c.Replicas) > 0:
		d.side = &sandboxSide{d: d, c: c}
	case c == nil && b.Promote != nil:
		logFile := func(f string, a ...any) { env.LogFile("%s: "+f, append([]any{env.Where}, a...)...) }
		d.side = &dsnSide{d: d, name: st.Target, command: b.Promote.Shell, logFile: logFile}
	default:
		return fmt.Errorf("failover: target %s is no sandbox with replicas, nor a dsn target with a promote command", st.Target)
	}
	m, err := d.run(ctx)
	if err != nil && ctx.Err() != nil {
		// The executor drops a during: step's error once the workload has ended: say it here,
		// as a warning, which a piped console shows too (its figures are missing then).
		env.Logf("warning: %s: cut short (%v) before it counted: the workload ended first, so its figures are missing; give the drill more time after its at: (a later at:, a longer duration)", env.Where, ctx.Err())
	}
	if env.Record != nil && m != nil {
		for _, name := range Metrics {
			if v, ok := m[name]; ok {
				env.Record(name, v)
			}
		}
	}
	d.keepIDs(env, m)
	return err
}

// side is what a drill fails over, a sandbox cluster or a dsn target.
type side interface {
	// primary is a pool to the primary of the moment (the new one after failover), and a
	// name for it.
	primary() (*sql.DB, string, error)
	// addr is where the ledger writes before the fault, when the run keeps no front.
	addr() string
	// prepare makes the ledger table and waits until the replicas have it.
	prepare(ctx context.Context) error
	// linkFault cuts or slows the replication link (link:), before the fault.
	linkFault(f *LinkFault)
	// atFault measures, just before the fault, the replicas' lag.
	atFault(ctx context.Context, l *ledger, m map[string]float64)
	// failover fails the primary and promotes another; the new primary's address ("" : the
	// target's own address follows it).
	failover(ctx context.Context, m map[string]float64) (string, error)
	// restore leaves the servers running after the drill, a failed one too.
	restore() error
	// commits is how many write transactions the primary committed so far, -1 when it
	// cannot tell (binlogCommits).
	commits(ctx context.Context) int64
}

// drill is one failover.
type drill struct {
	b     *Failover
	side  side
	cfg   *mysql.Config // the target's, for its credentials; the address is the drill's
	front step.Front    // nil: the ledger follows the primary itself
	logf  func(string, ...any)
	mark  func(name string, at time.Time) // the report's chart marks; nil: none kept
	// intervals are the workload's so far (a during: step), nil: no recovery measured.
	intervals func() []measure.Interval
	// beforeFault, in tests, runs once the ledger has acknowledged ids, just before the
	// fault: a test plants a loss there.
	beforeFault func(ctx context.Context, l *ledger) error
	// lost are the acknowledged ids the new primary lacked, once counted; acked those
	// acknowledged before the fault (the folder keeps both: ids.go).
	lost, acked []int64
}

// run is the drill's timeline: ledger, fault, promotion, first write, count. The metrics
// measured so far come back with an error too; the servers are left running either way.
func (d *drill) run(ctx context.Context) (map[string]float64, error) {
	if g, ok := d.side.(*galeraSide); ok {
		return g.drill(ctx) // one node failed and brought back: galera.go
	}
	m := map[string]float64{}
	l, err := d.lead(ctx, m)
	if l != nil {
		defer l.stop()
	}
	if err != nil {
		return m, errors.Join(err, d.side.restore())
	}
	d.side.atFault(ctx, l, m)
	faultAt := time.Now()
	d.marked(EventFault, faultAt)
	addr, err := d.side.failover(ctx, m)
	// Until the promotion, not the fault: a dsn target's primary takes writes until the
	// user's command has failed it (a sandbox's, killed or cut off, none after the fault).
	d.acked = l.ackedBefore(time.Now())
	m[MetricAcked] = float64(len(d.acked))
	if err != nil {
		return m, errors.Join(err, d.side.restore())
	}
	l.epoch.Add(1) // connections opened from now on reach the new primary
	d.marked(EventPromoted, time.Now())
	switch {
	case addr == "":
	case d.front != nil:
		d.front.Switch(addr)
		d.logf("front %s switched to %s", d.front.Addr(), addr)
	default:
		l.addr.Store(&addr)
	}
	first, err := d.settle(ctx, l, faultAt, m)
	if err != nil {
		return m, errors.Join(err, d.side.restore())
	}
	if err := d.side.restore(); err != nil {
		return m, err
	}
	d.recovery(ctx, faultAt, first, m)
	return m, nil
}

// lead makes the ledger and writes it for the body's lead, measuring the workload's write
// rate meanwhile.
func (d *drill) lead(ctx context.Context, m map[string]float64) (*ledger, error) {
	if err := d.side.prepare(ctx); err != nil {
		return nil, err
	}
	l := newLedger(d.ledgerConfig(), d.b.Writers)
	addr := d.side.addr()
	if d.front != nil {
		addr = d.front.Addr()
	}
	l.addr.Store(&addr)
	began, commits0 := time.Now(), d.side.commits(ctx)
	l.start(ctx)
	if err := d.wait(ctx); err != nil {
		return l, err
	}
	if n := d.side.commits(ctx); commits0 >= 0 && n >= 0 {
		// the workload's own: the ledger's commits are the drill's
		ledgerCommits := int64(len(l.ackedBefore(time.Now())))
		m[MetricTPSBefore] = float64(max(0, n-commits0-ledgerCommits)) / time.Since(began).Seconds()
	}
	if d.beforeFault != nil {
		if err := d.beforeFault(ctx, l); err != nil {
			return l, err
		}
	}
	return l, nil
}

// wait is the lead's time: the link fault, when the drill has one, starts link.before
// before its end.
func (d *drill) wait(ctx context.Context) error {
	f := d.b.Link
	if f == nil {
		return sleep(ctx, d.b.Lead)
	}
	if err := sleep(ctx, d.b.Lead-f.Before); err != nil {
		return err
	}
	d.side.linkFault(f)
	d.marked(EventLinkFault, time.Now())
	return sleep(ctx, f.Before)
}

// settle waits for the first write commit on the new primary, stops the ledger and counts
// it there.
func (d *drill) settle(ctx context.Context, l *ledger, faultAt time.Time, m map[string]float64) (time.Time, error) {
	db, name, err := d.side.primary()
	if err != nil {
		return time.Time{}, err
	}
	defer db.Close()
	first, err := l.firstCommit(ctx, faultAt, d.b.RecoverTimeout)
	if err != nil {
		return time.Time{}, fmt.Errorf("failover: no write commit on the new primary %s: %w", name, err)
	}
	m[MetricUnavailable] = first.Sub(faultAt).Seconds()
	d.marked(EventFirstCommit, first)
	l.stop() // no write in flight while the new primary's ids are read
	lost, extra, err := count(ctx, db, l)
	if err != nil {
		return time.Time{}, fmt.Errorf("failover: %s: %w", name, err)
	}
	d.lost = lost
	m[MetricAckedLost], m[MetricUnackedPresent] = float64(len(lost)), float64(extra)
	d.logf("%s is the primary: first write commit %.3fs after the fault; %d acknowledged ids lost, %d unacknowledged ids present", name, m[MetricUnavailable], len(lost), extra)
	return first, nil
}

// The moments a drill marks on the report's over-time charts (run.json's events).
const (
	EventLinkFault   = "failover link fault"   // the replication link cut or slowed (link:)
	EventFault       = "failover fault"        // the primary failed (or, switchover, was cut off)
	EventPromoted    = "failover promoted"     // a replica is the primary, the front points at it
	EventFirstCommit = "failover first commit" // the first write commit on the new primary (Galera: the end of the longest time without one)
	EventPrimary     = "failover primary"      // Galera: the other nodes a Primary component without the failed node
	EventRejoined    = "failover rejoined"     // Galera: the failed node back, Synced in a cluster of every node
)

func (d *drill) marked(name string, at time.Time) {
	if d.mark != nil {
		d.mark(name, at)
	}
}

// binlogCommits is the primary's Binlog_commits (MariaDB: transactions written to its binary
// log), -1 when it has none to tell.
func (d *drill) binlogCommits(ctx context.Context) int64 { return d.status(ctx, "Binlog_commits") }

// status is a counter of the primary's SHOW GLOBAL STATUS, -1 when it has none to tell.
func (d *drill) status(ctx context.Context, name string) int64 {
	db, _, err := d.side.primary()
	if err != nil {
		return -1
	}
	defer db.Close()
	var n int64
	if db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&name, &n) != nil {
		return -1
	}
	return n
}

// ledgerConfig is the target's credentials for the ledger's connections, with timeouts
// short enough that a dead server shows as an error at once rather than a hung write.
func (d *drill) ledgerConfig() *mysql.Config {
	c := d.cfg.Clone()
	c.DBName = ""
	c.Timeout, c.ReadTimeout, c.WriteTimeout = time.Second, 5*time.Second, 5*time.Second
	c.Logger = quiet{} // every connection the fault cuts would print "unexpected EOF"
	return c
}

type quiet struct{}

func (quiet) Print(...any) {}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
