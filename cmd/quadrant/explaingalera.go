package main

import (
	"fmt"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/spec"
)

// galeraLine says what a Galera sandbox runs: its nodes by target name, how they join.
// "a Galera cluster of 3 nodes: db (bootstraps), db_node2, db_node3 (join by rsync SST)".
func galeraLine(t spec.Target) string {
	return fmt.Sprintf("a Galera cluster of %d nodes: %s (bootstraps)%s", t.Sandbox.Galera, t.Name, joiners(t))
}

// spreadLine says how a workload's threads are spread over its Galera target's nodes
// ("threads spread round robin over every node: db 3, db_node2 3, db_node3 2"); "" when
// they all run on the target.
func spreadLine(p *spec.Plan, target string, w *spec.Workload) string {
	for _, t := range p.Targets {
		if t.Name == target {
			return w.Nodes.Describe(append([]string{t.Name}, t.Members()...), w.Connections())
		}
	}
	return ""
}

func joiners(t spec.Target) string {
	nodes := t.Members()
	if len(nodes) == 0 {
		return ""
	}
	return fmt.Sprintf(", %s (join by %s SST)", strings.Join(nodes, ", "), sandbox.SSTMethod)
}
