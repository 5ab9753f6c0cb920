package failover

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/target"
)

func newDrill(t *testing.T, c *sandbox.Cluster, b Failover) *drill {
	d := &drill{b: &b, cfg: target.NewSandbox(c.Primary).Config(), logf: t.Logf}
	d.side = &sandboxSide{d: d, c: c}
	return d
}

// One sandbox, a primary and one replica, for both drills: first one whose replica cannot
// catch up (it must fail at the step and leave both servers running as they were), then one
// with a planted loss, which must be counted.
func TestDrill(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Replicas: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := c.Replicas[0]

	t.Run("replica never catches up", func(t *testing.T) {
		d := newDrill(t, c, Failover{Fault: "kill", Lead: 300 * time.Millisecond, Writers: 2, CatchupTimeout: time.Second, RecoverTimeout: 10 * time.Second})
		d.beforeFault = func(ctx context.Context, _ *ledger) error {
			// Stopped, the SQL thread leaves what the IO thread receives unapplied.
			if err := r.Exec(ctx, "STOP SLAVE SQL_THREAD"); err != nil {
				return err
			}
			return sleep(ctx, 300*time.Millisecond)
		}
		_, err := d.run(ctx)
		if err == nil || !strings.Contains(err.Error(), "did not apply its relay log within catchup_timeout 1s") {
			t.Fatalf("want the catch-up timeout, got %v", err)
		}
		if !c.Primary.Running() || !r.Running() {
			t.Fatalf("servers not left running: primary %v, replica %v", c.Primary.Running(), r.Running())
		}
		// Back as it was: the replica replicates from the restarted primary again.
		if err := r.Exec(ctx, "START SLAVE SQL_THREAD"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("planted loss is counted", func(t *testing.T) {
		d := newDrill(t, c, Failover{Fault: "kill", Lead: 500 * time.Millisecond, Writers: 2, CatchupTimeout: 30 * time.Second, RecoverTimeout: 30 * time.Second})
		var planted int64
		d.beforeFault = func(ctx context.Context, l *ledger) error {
			acked := l.ackedBefore(time.Now())
			if len(acked) == 0 {
				t.Fatal("no ledger id acknowledged during the lead")
			}
			planted = slices.Min(acked)
			// Once the replica has applied all the primary has written (this drill's CREATE
			// and the first ids among it; a lagging replica may still hold the last drill's
			// table), deleted there alone, it is an acknowledged commit the promoted replica lacks.
			pos, err := gtidPos(ctx, c.Primary)
			if err != nil {
				return err
			}
			if err := poll(ctx, r, 30*time.Second, "SELECT MASTER_GTID_WAIT('"+pos+"', 1) = 0", func() string { return "the replica never applied " + pos }); err != nil {
				return err
			}
			return r.Exec(ctx, "DELETE FROM "+ledgerTable+" WHERE id = "+itoa(planted))
		}
		m, err := d.run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(d.lost, planted) {
			t.Errorf("planted loss of id %d not counted: lost %v, metrics %v", planted, d.lost, m)
		}
		if m[MetricAckedLost] < 1 || m[MetricAcked] < 1 {
			t.Errorf("metrics %v", m)
		}
		if d.side.(*sandboxSide).now != r || !c.Primary.Running() {
			t.Errorf("promoted %v, old primary running %v", d.side.(*sandboxSide).now, c.Primary.Running())
		}
		// The new primary takes writes.
		if err := r.Exec(ctx, "INSERT INTO "+ledgerTable+" VALUES (-1, 9)"); err != nil {
			t.Errorf("write on the promoted replica: %v", err)
		}
		t.Logf("metrics: %v", m)
	})

	// The replica is the primary now: as a dsn target, its failover is the user's command.
	dsn := func(t *testing.T, command string) *drill {
		d := &drill{b: &Failover{Lead: 300 * time.Millisecond, Writers: 1, RecoverTimeout: 10 * time.Second, Promote: &Promote{Shell: command}},
			cfg: target.NewSandbox(r).Config(), logf: t.Logf}
		d.side = &dsnSide{d: d, name: "db", command: command}
		return d
	}
	t.Run("dsn promote command fails", func(t *testing.T) {
		_, err := dsn(t, "echo no orchestrator here >&2; exit 3").run(ctx)
		if err == nil || !strings.Contains(err.Error(), `the promote command "echo no orchestrator here >&2; exit 3" failed: exit status 3`) || !strings.Contains(err.Error(), "no orchestrator here") {
			t.Fatalf("want the command's failure and its output, got %v", err)
		}
		if err := r.Exec(ctx, "SELECT 1"); err != nil {
			t.Errorf("server not left running: %v", err)
		}
	})
	t.Run("dsn promote command past recover_timeout", func(t *testing.T) {
		d := dsn(t, "echo waiting for the orchestrator; sleep 5")
		d.b.RecoverTimeout = time.Second
		_, err := d.run(ctx)
		if err == nil || !strings.Contains(err.Error(), "did not return within recover_timeout 1s: its sh was killed") || !strings.Contains(err.Error(), "waiting for the orchestrator") {
			t.Fatalf("want the command's timeout and its output, got %v", err)
		}
	})
	t.Run("dsn promote command", func(t *testing.T) {
		// A command that moves nothing: the target's address is the primary still, and no
		// acknowledged id may be missing from it. It leaves a process running that holds
		// its output (not detached): the drill goes on once the command's sh has exited,
		// and what it printed is in log.txt.
		pidFile := filepath.Join(t.TempDir(), "pid")
		d := dsn(t, "sleep 600 & echo $! > "+pidFile+"; echo moved nothing")
		var logged, console []string
		d.side.(*dsnSide).logFile = func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }
		d.logf = func(f string, a ...any) { console = append(console, fmt.Sprintf(f, a...)) }
		m, err := d.run(ctx)
		if pid, _ := os.ReadFile(pidFile); len(pid) > 0 {
			exec.Command("kill", strings.TrimSpace(string(pid))).Run()
		}
		if err != nil {
			t.Fatal(err)
		}
		if m[MetricAcked] == 0 || m[MetricAckedLost] != 0 {
			t.Errorf("metrics %v", m)
		}
		if !slices.Contains(logged, "promote output:\nmoved nothing") {
			t.Errorf("log.txt: %q, want the promote command's output", logged)
		}
		// The address leads to the server it led to before: the count is that server's, and
		// the log says so.
		if !slices.ContainsFunc(console, func(l string) bool { return strings.Contains(l, "still leads to server_id") }) {
			t.Errorf("log: %q, want a warning that the address did not move", console)
		}
		if !slices.Contains(console, "no ledger write failed while the promote command ran") {
			t.Errorf("log: %q, want the note that no write failed", console)
		}
	})
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func gtidPos(ctx context.Context, s *sandbox.Server) (string, error) {
	db, err := s.Open()
	if err != nil {
		return "", err
	}
	defer db.Close()
	var pos string
	return pos, db.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_binlog_pos").Scan(&pos)
}

// With two replicas, the one promoted is the other's primary afterwards: the drill points it
// at the new primary (the servers have binary logs for it, as the sandbox's config gives).
func TestDrillRepointsTheOtherReplica(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Replicas: 2, Config: []sandbox.Option{{Name: "log_bin", Value: "binlog"}, {Name: "log_slave_updates", Bare: true}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d := newDrill(t, c, Failover{Fault: "shutdown", Lead: 300 * time.Millisecond, Writers: 1, CatchupTimeout: 30 * time.Second, RecoverTimeout: 30 * time.Second})
	m, err := d.run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m[MetricAckedLost] != 0 {
		t.Errorf("a clean shutdown lost acknowledged ids: %v", m)
	}
	p := d.side.(*sandboxSide).now
	other := c.Replicas[0]
	if p == other {
		other = c.Replicas[1]
	}
	if err := p.Exec(ctx, "INSERT INTO "+ledgerTable+" VALUES (-7, 9)"); err != nil {
		t.Fatal(err)
	}
	if err := poll(ctx, other, 30*time.Second, "SELECT COUNT(*) = 1 FROM "+ledgerTable+" WHERE id = -7", func() string {
		return other.Name() + " does not replicate from the promoted " + p.Name()
	}); err != nil {
		t.Fatal(err)
	}
}
