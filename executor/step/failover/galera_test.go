package failover

import (
	"context"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/target"
)

func newGaleraDrill(t *testing.T, c *sandbox.Cluster, node string, b Failover) *drill {
	t.Helper()
	d := &drill{b: &b, cfg: target.NewSandbox(c.Primary).Config(), logf: t.Logf}
	g, err := newGaleraSide(d, c, node)
	if err != nil {
		t.Fatal(err)
	}
	d.side = g
	return d
}

// One 3-node Galera sandbox for five drills, each leaving the cluster whole for the next:
// a kill and a clean shutdown of the node the ledger writes through (its clients have no
// node to write to until it is back: seconds without a write), a kill of another node (the clients write
// on through node 1), a partition of node 3 (gmcast.isolate) and a pause of it (SIGSTOP,
// then SIGCONT: the others hold their commits meanwhile). None may lose an
// acknowledged id (a Galera commit is acknowledged once the other nodes certified it),
// each must count the others' Primary component and the node's rejoin, and leave every
// node Synced in a cluster of three.
func TestGaleraDrills(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Galera: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name, node, fault string
	}{
		{"kill of the node written to", c.Primary.Name(), "kill"},
		{"shutdown of the node written to", c.Primary.Name(), "shutdown"},
		{"kill of another node", c.Nodes[0].Name(), "kill"},
		{"partition of another node", c.Nodes[1].Name(), "partition"},
		{"pause of another node", c.Nodes[1].Name(), "pause"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newGaleraDrill(t, c, tc.node, Failover{Fault: tc.fault, Lead: time.Second, Writers: 2, Down: 2 * time.Second, RecoverTimeout: 2 * time.Minute})
			m, err := d.run(ctx)
			t.Logf("metrics: %v", m)
			if err != nil {
				t.Fatal(err)
			}
			if m[MetricAcked] == 0 || m[MetricAckedLost] != 0 || len(d.lost) != 0 {
				t.Errorf("acknowledged %v, lost %v (%v): a node of three lost an acknowledged write", m[MetricAcked], m[MetricAckedLost], d.lost)
			}
			// A donor's gcache holds what the node missed: it rejoins by IST, a killed node
			// too, which recovers its position from its storage before it starts. A paused
			// node the others may outwait needs none.
			if sst, ok := m[MetricSST]; tc.fault != "pause" && (!ok || sst != 0) || ok && sst != 0 {
				t.Errorf("rejoined by SST (%v, measured %v), want IST", sst, ok)
			}
			for _, name := range []string{MetricPrimary, MetricRejoin, MetricUnavailable} {
				if _, ok := m[name]; !ok && (name != MetricPrimary || tc.fault != "pause") {
					t.Errorf("%s not measured", name)
				}
			}
			// Killed, the node written to takes no write for down at least: the clients have
			// no other node (a bound the drill makes, not a speed).
			if tc.node == c.Primary.Name() && m[MetricUnavailable] < d.b.Down.Seconds() {
				t.Errorf("the node written to was down %s, yet the longest time without a write is %.3fs", d.b.Down, m[MetricUnavailable])
			}
			for _, s := range c.Servers() {
				if err := s.WaitSynced(ctx, 3); err != nil {
					t.Errorf("after the drill: %v", err)
				}
			}
		})
	}
}
