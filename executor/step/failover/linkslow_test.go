package failover

import (
	"context"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// A slowed link (100 kbit/s each way, far below the binary log the ledger's writers make)
// leaves the replica behind: at the kill its binary log not received is counted, and what
// the link and the primary held is lost with them, under asynchronous replication.
func TestLinkSlowedBeforeAKill(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Replicas: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := newDrill(t, c, Failover{Fault: "kill", Lead: 4 * time.Second, Writers: 2, CatchupTimeout: time.Minute, RecoverTimeout: time.Minute,
		Link: &LinkFault{Delay: 10 * time.Millisecond, Bandwidth: "100kbit", Before: 3 * time.Second}})
	m, err := d.run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("metrics %v", m)
	if m[MetricLagBytes] <= 0 || m[MetricAckedLost] <= 0 {
		t.Errorf("behind a 100 kbit/s link for 3 s before the kill: %v bytes of binary log not received, %v acknowledged ids lost; want both above 0", m[MetricLagBytes], m[MetricAckedLost])
	}
}
