package executor

import (
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/spec"
)

// spreadNodes are the servers a workload connects its workers to, from the nodes' targets
// (the target first, then NAME_node2...), each with its weight: on a Galera sandbox every
// node, for their node.NAME.* counts, even when nodes: one puts every thread on the target;
// nil on any other target. Validation refused a spread over anything but a Galera
// sandbox; this says so again for a plan built in Go.
func (f *fleet) spreadNodes(s *liveTarget, w *spec.Workload) ([]workload.Node, error) {
	names := f.plan.SpreadNodes(w, s.Name())
	switch {
	case names == nil && w.Nodes.Spreads() && w.Kind != nil && !w.Kind.Spreads:
		return nil, fmt.Errorf("nodes: %s: a %s workload's threads cannot be spread over nodes", w.Nodes, w.Kind.Name)
	case names == nil && w.Nodes.Spreads():
		return nil, fmt.Errorf("nodes: %s: target %s is not a Galera sandbox of 2 nodes or more; write nodes: one", w.Nodes, s.Name())
	case names == nil:
		return nil, nil
	}
	weights := w.Nodes.Weights(names)
	var out []workload.Node
	for i, name := range names {
		lt := f.targets[name]
		if lt == nil {
			return nil, fmt.Errorf("nodes: node %s of %s is not running", name, s.Name())
		}
		cfg := f.workloadConfig(lt)
		out = append(out, workload.Node{Name: name, Net: cfg.Net, Addr: cfg.Addr, Weight: weights[i]})
	}
	return out, nil
}

func nodeNames(nodes []workload.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}
