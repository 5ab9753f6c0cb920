// Package step is what the executor gives a step kind's runner: a step kind declares a
// spec.StepKind whose Impl is a Runner, and the executor runs it without knowing the kind.
package step

import (
	"context"

	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Env is what the run gives a step as it runs it.
type Env struct {
	// Where names the step in log lines and errors: "iteration 2: before: echo (plan.yaml:9:7)".
	Where string
	// Logf writes a line to the run log (log.txt and the console), secrets hidden.
	Logf func(format string, args ...any)

	// Services (services.go), nil where the run has none to give.

	// Targets reaches the targets' servers (a sandbox's cluster, a target's address).
	Targets Targets
	// Record stores an iteration metric; nil outside an iteration.
	Record Recorder
}

// Runner runs the steps of one kind: a spec.StepKind's Impl.
type Runner interface {
	Run(ctx context.Context, st *spec.Step, env Env) error
}

// Described is a Runner whose steps record iteration metrics of their own
// (spec.StepKind.Records) and describes them: run.json carries the descriptions (unit, which
// way is better, headline), so the report and compare read the columns without the kind.
type Described interface {
	Metrics() []measure.Metric
}

// Func is a Runner that is a function.
type Func func(ctx context.Context, st *spec.Step, env Env) error

// Run runs f.
func (f Func) Run(ctx context.Context, st *spec.Step, env Env) error { return f(ctx, st, env) }
