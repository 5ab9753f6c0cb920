package failover

import (
	"slices"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
)

// galeraFaults are what a drill does to a Galera node (galera.go).
var galeraFaults = []string{"kill", "shutdown", "partition", "pause"}

// galeraCheck refuses what a drill on a Galera sandbox cannot do: it fails one node and
// brings it back; it promotes nothing and has no replication link to cut.
func galeraCheck(c *spec.Check, s *spec.Step, t *spec.Target, at spec.Pos) {
	b := body(s)
	nodes := append([]string{t.Name}, t.Members()...)
	if t.Name != s.Target {
		c.Errorf(at, "failover on %s, a node of the Galera sandbox %s: the step's target is the sandbox's (target: %s, the node the drill's ledger and the workload write through) and the node to fail is node: %s", s.Target, t.Name, t.Name, s.Target)
	}
	if !slices.Contains(galeraFaults, b.Fault) {
		c.Errorf(b.Src.At("fault"), "fault %s fails a primary over to its replicas; a Galera node fails by %s", b.Fault, strings.Join(galeraFaults, ", "))
	}
	if b.Node != "" && !slices.Contains(nodes, b.Node) {
		c.Errorf(b.Src.At("node"), "node %s is no node of the Galera sandbox %s: give one of %s", b.Node, t.Name, strings.Join(nodes, ", "))
	}
	for _, r := range []struct{ key, why string }{
		{"promote", "promote applies to dsn targets only: quadrant fails and brings back a Galera sandbox's node itself; remove promote"},
		{"link", "link cuts or slows a primary's replication links; a Galera sandbox's nodes talk over loopback directly (links between them are not built yet): remove link, or cut a node off with fault: partition"},
		{"catchup_timeout", "catchup_timeout bounds a replica's catch-up before its promotion; a Galera drill promotes nothing (recover_timeout bounds the waits for the cluster and the node's rejoin): remove catchup_timeout"},
	} {
		if b.Src.Has(r.key) {
			c.Errorf(b.Src.At(r.key), "%s", r.why)
		}
	}
	if b.Down < 0 {
		c.Errorf(b.Src.At("down"), "down is %s: give how long the node stays failed, 0s or more", b.Down)
	}
}
