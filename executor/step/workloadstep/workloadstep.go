// Package workloadstep is the workload: step kind: a workload run without measuring it
// (a prepare, a cleanup, a warm-up).
package workloadstep

import (
	"context"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the workload step kind; its body is the plan's spec.Workload.
var Kind = spec.StepKind{
	Key: "workload", Doc: "Run a workload without measuring it (e.g. prepare data).",
	Body: func() any { return new(spec.Workload) }, Target: true, Keys: []string{"timeout"},
	Check:     func(c *spec.Check, s *spec.Step) { c.WorkloadOn(Of(s), s.Target) },
	Workloads: func(s *spec.Step) []*spec.Workload { return []*spec.Workload{Of(s)} },
	Splits:    splits,
	Explain:   explain,
	Impl:      step.Func(run),
}

// Of is s's body.
func Of(s *spec.Step) *spec.Workload { return spec.StepBody[*spec.Workload](s) }

// splits: a prepare of a kind that splits it (each shard loads its tables, or its
// warehouses); any other workload step runs whole on the leader.
func splits(s *spec.Step) bool {
	w := Of(s)
	return w.Action == "prepare" && w.Kind != nil && w.Kind.SplitsPrepare
}

func explain(s *spec.Step, x spec.Explainer) spec.Explanation {
	on := ""
	if s.Target != "" {
		on = " on " + s.Target
	}
	e := spec.Explanation{Line: "workload (not measured)" + on + ": " + x.Workload(Of(s))}
	if line := x.Spread(Of(s), s.Target); line != "" {
		e.More = []string{line}
	}
	return e
}

func run(ctx context.Context, s *spec.Step, env step.Env) error {
	w := Of(s)
	env.Logf("%s: %s on %s", env.Where, w, env.Target.Name())
	return env.Workloads.Run(ctx, env.Target, w, env.Where)
}
