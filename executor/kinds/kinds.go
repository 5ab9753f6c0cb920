//go:generate go test -run=TestGeneratedDocs -update .

// Package kinds is the one registry of the kinds of every layer: the workload kinds
// (Workloads, this file) and the step kinds (Steps, steps.go), which Registry hands to
// spec when it loads a plan and which generate the plan reference, and the samplers
// (Samplers, samplers.go), which the run hands to the collection. A new kind is a package
// that declares itself (a workload.Kind under executor/workload, a spec.StepKind under
// executor/step, a watch.SamplerKind under executor/watch) and one line here.
// testdata/noop, testdata/echo and testdata/example are a whole kind of each layer in one
// file, run end to end by this package's tests.
package kinds

import (
	"context"
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/builtin"
	"github.com/quadrant-bench/quadrant/executor/workload/replay"
	"github.com/quadrant-bench/quadrant/executor/workload/sysbench"
	"github.com/quadrant-bench/quadrant/executor/workload/tpcc"
	"github.com/quadrant-bench/quadrant/executor/workload/transactions"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Workloads are the workload kinds, in the order the plan reference lists them.
var Workloads = []*workload.Kind{
	&builtin.Kind,
	&tpcc.Kind,
	&transactions.Kind,
	&replay.Kind,
	&sysbench.Kind,
}

// Metrics are the workload kinds' own metrics, in the order of Workloads (docs/metrics.md lists them).
func Metrics() []measure.Metric {
	var out []measure.Metric
	for _, k := range Workloads {
		out = append(out, k.Metrics...)
	}
	return out
}

// Registry is what spec asks of the kinds when it loads a plan (spec.Options.Kinds), and
// what generates the plan reference: the workload kinds and the step kinds (Steps).
func Registry() *spec.Kinds { return With() }

// With is the registry of every kind and extra ones (a test's own kind): each plan
// workload's Kind then carries what runs it (spec.Kind.Impl), so the executor runs a kind
// it has never heard of.
func With(extra ...*workload.Kind) *spec.Kinds {
	var specs []*spec.Kind
	for _, k := range append(append([]*workload.Kind(nil), Workloads...), extra...) {
		sk := k.Spec
		sk.Impl = k
		sk.Metrics = nil
		for _, m := range k.Metrics {
			sk.Metrics = append(sk.Metrics, spec.OwnMetric{Name: m.Name, Unit: m.TotalUnit, Doc: m.Doc})
		}
		specs = append(specs, &sk)
	}
	ks, err := spec.NewKinds(specs...)
	if err == nil {
		ks, err = ks.WithSteps(Steps()...)
	}
	if err != nil {
		panic(err) // two kinds claim one name: a programming error every test meets
	}
	return ks
}

// Of returns w's kind: what its plan's registry carries, or (a workload built in Go
// with a kind's own Spec) the kind of that name.
func Of(w *spec.Workload) (*workload.Kind, error) {
	if w.Kind != nil {
		if k, ok := w.Kind.Impl.(*workload.Kind); ok {
			return k, nil
		}
		for _, k := range Workloads {
			if w.Kind == &k.Spec || w.Kind.Name == k.Spec.Name {
				return k, nil
			}
		}
	}
	return nil, fmt.Errorf("workload of unknown kind %q", w.Type())
}

// New binds a plan's workload to its kind and server.
func New(w *spec.Workload, env workload.Env) (workload.Workload, error) {
	k, err := Of(w)
	if err != nil {
		return nil, err
	}
	return k.New(w, env)
}

// Do runs w's action on its server: prepare, cleanup, check, or (run) the load, whose
// intervals go to onInterval.
func Do(ctx context.Context, w *spec.Workload, env workload.Env, onInterval func(*measure.Interval)) (*measure.Total, error) {
	wl, err := New(w, env)
	if err != nil {
		return nil, err
	}
	switch w.Action {
	case "prepare":
		return nil, wl.Prepare(ctx)
	case "cleanup":
		return nil, wl.Cleanup(ctx)
	case "check":
		c, ok := wl.(workload.Checker)
		if !ok {
			return nil, fmt.Errorf("action check: a %s workload has no consistency check: %w", w.Type(), workload.ErrNoAction)
		}
		return nil, c.Check(ctx)
	}
	return wl.Run(ctx, onInterval)
}
