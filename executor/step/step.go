// Package step is what the executor gives a step kind's runner: a step kind is one package
// under executor/step that declares a spec.StepKind whose Impl is a Runner, and the
// executor runs it without knowing the kind. What a runner needs of the run comes through
// Env, each part a small interface the executor implements.
package step

import (
	"context"
	"database/sql"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/confine"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// Env is what the run gives a step as it runs it. The executor has already applied the
// skeleton every step shares: the target resolved (the step's, else the iteration's), its
// timeout on ctx, at:, and it wraps the runner's error with Where.
type Env struct {
	// Where names the step in log lines and errors: "iteration 2: before: echo (plan.yaml:9:7)".
	Where string
	// Phase is where the step runs: spec.PhaseSetup, spec.PhaseBefore, ...
	Phase string
	// Logf writes a line to the run log (log.txt and the console), secrets hidden; LogFile
	// to log.txt only.
	Logf, LogFile func(format string, args ...any)
	// Show writes a line to the console only (a step that writes log.txt itself).
	Show func(format string, args ...any)
	// Redact hides the plan's secrets and the sandboxes' passwords in a text.
	Redact func(string) string
	// Target is the step's target, nil when its kind acts on none.
	Target Target
	// Targets are every target of the run.
	Targets Targets
	// Plan is the plan being run (read it, never change it).
	Plan *spec.Plan
	// Iteration is the iteration the step runs in; nil in setup and teardown.
	Iteration *spec.Iteration
	// Roots keeps the files a step reads and writes inside the plan's folder and the
	// allowed paths (a symlink swapped in since validation leads nowhere).
	Roots confine.Roots
	// Out is the results folder (save_as, verify's queries.csv).
	Out *results.Writer
	// Globals sets a global variable that the run restores when it ends.
	Globals Globals
	// Restarter restarts a target.
	Restarter Restarter
	// Workloads runs a workload, not measured.
	Workloads Workloads
	// Record stores an iteration metric (a wait's record_as); nil outside an iteration.
	Record func(name string, value float64)
	// Mark notes that something happened at a moment of the iteration (a fault, a
	// promotion): run.json keeps it as an event and the report draws it on its over-time
	// charts. Nil outside an iteration.
	Mark func(name string, at time.Time)
	// Intervals are the workload's intervals so far (warmup ones marked), in order, for a
	// during: step that measures the workload around what it did; nil in other phases.
	Intervals func() []measure.Interval
	// Track shows a long step's progress on the console ("rows", "bytes"; total 0: unknown).
	Track func(what, unit string, total float64) Progress
	// Shard is this process's part of a sharded run for a step its kind splits
	// (spec.StepKind.Splits), with the rendezvous of the shards; not sharded otherwise.
	Shard Shard
	// Servers reaches the targets' servers beyond a pool (services.go): a sandbox's
	// cluster, a connection config, the front address; nil where the run has none.
	Servers Servers
}

// Target is one target of the run as a step reaches it.
type Target interface {
	Name() string
	// DB is the pool of connections to the target's server.
	DB() *sql.DB
	Host() string
	Port() int
	// Status is SHOW GLOBAL STATUS, its values typed (numbers as numbers).
	Status(ctx context.Context) (map[string]any, error)
	// Sandbox is what a script needs to reach a sandbox target; ok false for a dsn target.
	Sandbox() (sb Sandbox, ok bool)
}

// Sandbox is what a script run by a step needs of a sandbox target.
type Sandbox struct {
	// ClientConfig is a client option file with its credentials (its password is random).
	ClientConfig string
	// RunAs is the OS user its server runs as.
	RunAs string
	// CA is its TLS CA file ("" without tls: on).
	CA string
}

// Targets are the run's targets by name.
type Targets interface {
	// Names are every target of the run, a sandbox's replicas after it.
	Names() []string
	// Target returns the target name, nil when the run has none of that name.
	Target(name string) Target
}

// Globals sets global variables the run restores when it ends.
type Globals interface {
	Set(ctx context.Context, t Target, name string, value any) error
	// Keep reads names' global values on t before the plan's own SQL sets them (SET
	// GLOBAL in a sql: step); calling the func returned, once the statement succeeded,
	// has the run restore them at its end as it restores Set's.
	Keep(ctx context.Context, t Target, names []string) func()
}

// Restarter restarts a target's server, with config's my.cnf options for a sandbox.
type Restarter interface {
	Restart(ctx context.Context, t Target, config spec.Settings) error
}

// Workloads runs a workload on a target without measuring it.
type Workloads interface {
	Run(ctx context.Context, t Target, w *spec.Workload, where string) error
}

// Progress is a tracked step's line on the console.
type Progress interface {
	// Update sets how far the step is (total 0: unknown) and what it sees now.
	Update(done, total float64, state string)
	// Deadline says when the step gives up (a wait's timeout).
	Deadline(t time.Time)
	Finish()
}

// Shard is a sharded run as a step sees it.
type Shard interface {
	// Part is this process's part (not Sharded when the step runs whole).
	Part() shard.Shard
	// Meet waits for every shard at point, a name unique within the step.
	Meet(ctx context.Context, point string) error
}

// Runner runs the steps of one kind: a spec.StepKind's Impl.
type Runner interface {
	Run(ctx context.Context, st *spec.Step, env Env) error
}

// Func is a Runner that is a function.
type Func func(ctx context.Context, st *spec.Step, env Env) error

// Run runs f.
func (f Func) Run(ctx context.Context, st *spec.Step, env Env) error { return f(ctx, st, env) }
