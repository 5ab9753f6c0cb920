package failover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/front"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/target"
)

// A dsn target's drill is the user's own promote command. Two sandboxes addressed as a dsn
// behind an address that follows the primary (what a VIP or a proxy is to the user): the
// script kills the primary, promotes the replica and moves the address, and the drill
// measures what it cost and counts the acknowledged ids against the new primary.
func TestDrillDSNPromoteScript(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "dsnpromote", Replicas: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, r := c.Primary, c.Replicas[0]
	vip, err := front.Listen(fmt.Sprintf("127.0.0.1:%d", p.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer vip.Close()
	// The script cannot reach the test's front: it says "moved" with a file, and the test
	// moves the address, as the user's proxy would on its own.
	moved := filepath.Join(t.TempDir(), "moved")
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(moved); err == nil {
				vip.Switch(fmt.Sprintf("127.0.0.1:%d", r.Port()))
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	script := fmt.Sprintf("set -e; kill -9 %d; mariadb --defaults-extra-file=%s -e 'STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = 0'; touch %s",
		p.Pid(), r.ClientConfigFile(), moved)
	cfg := target.NewSandbox(p).Config().Clone()
	cfg.Addr = vip.Addr()
	d := &drill{b: &Failover{Lead: 500 * time.Millisecond, Writers: 2, RecoverTimeout: 30 * time.Second, Promote: &Promote{Shell: script}}, cfg: cfg, logf: t.Logf}
	d.side = &dsnSide{d: d, name: "db", command: script}
	m, err := d.run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("metrics: %v", m)
	if p.Running() {
		t.Errorf("the script's kill -9 left the old primary running")
	}
	if m[MetricAcked] < 1 || !(m[MetricUnavailable] > 0) {
		t.Errorf("a drill through the user's promotion measured %v; want acknowledged ids and an unavailability", m)
	}
	// What the drill counts is what the new primary lacks: check it there, by hand.
	db, err := r.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var present int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+ledgerTable).Scan(&present); err != nil {
		t.Fatalf("the ledger on the promoted replica: %v", err)
	}
	if int64(m[MetricAcked]-m[MetricAckedLost]) > present {
		t.Errorf("%v acknowledged, %v lost, but only %d ids on the new primary", m[MetricAcked], m[MetricAckedLost], present)
	}
}
