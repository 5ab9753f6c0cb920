// Package workload defines what every kind of measured load is: built from the plan's
// resolved spec.Workload, it prepares its data, runs, cleans up, and (where a kind can)
// checks its data. Whatever the kind, Run hands the caller one measure.Interval per
// report interval (the engine's own ticker: the clock watchers sample on) and returns the
// measure.Total of the measured part.
//
// The kinds live in sub-packages named as the plan names them (builtin, transactions,
// replay, sysbench, tpcc) and are registered in executor/kinds, which is what the executor
// and `quadrant validate` use.
package workload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// Workload is one kind of load, bound to its settings and its server.
type Workload interface {
	// Prepare creates and loads what Run needs (`action: prepare`).
	Prepare(ctx context.Context) error
	// Run runs the load. onInterval gets every report interval, in order, from the
	// ticker goroutine and should return quickly. The Total is non-nil whenever measuring
	// started, also together with an error; the error is an *engine.AbortError when the
	// workload aborted (fatal SQL error, max_errors).
	Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error)
	// Cleanup removes what Prepare made (`action: cleanup`).
	Cleanup(ctx context.Context) error
}

// Checker is a Workload that can verify its data (`action: check`).
type Checker interface {
	Check(ctx context.Context) error
}

// Env is what a workload runs against and with.
type Env struct {
	Server *mysql.Config
	// Nodes, when set (SpreadOver), are the servers the workers are spread over (a Galera
	// cluster's nodes, spec.Workload.Nodes), the target's own first: a kind whose
	// spec.Kind.Spreads is set connects worker i to ServerFor(i). Empty: every worker on Server.
	Nodes  []Node
	assign []int // global worker id -> index of Nodes, for the threads SpreadOver was told
	// Certifies says the server (every node) is a Galera node, wsrep_on=ON: the loop counts
	// its deadlock errors as certification failures (engine.Config.Certifies).
	Certifies bool
	// Log gets progress messages (prepare, the sysbench command line without password).
	Log func(msg string)
	// Loaded, if set, is told how many rows a data load has inserted of how many, about
	// once a second while Prepare runs.
	Loaded func(done, total int64)
	// Vars are the plan's vars, for expressions the workload evaluates as it runs.
	Vars map[string]any
	// ReadTimeout bounds every query so a lost server cannot hang a worker; 0: 60s, above
	// innodb_lock_wait_timeout's 50s. A readTimeout in the DSN wins.
	ReadTimeout time.Duration
	// Shard is this process's share of the load (quadrant run --shard K/N); the zero
	// value runs all of it.
	Shard shard.Shard
	// Ready, if set, is called when the workload's connections are ready, just before
	// its clock starts (engine.Config.Ready): the shards' start barrier.
	Ready func(ctx context.Context) error
	// Meet, set in a sharded run's split prepares, waits until every shard reached point:
	// a kind whose load has steps that must follow each other across shards (tpcc: the
	// leader's tables, then every shard's warehouses, then the leader's indexes) meets there.
	Meet func(ctx context.Context, point string) error
	// Open opens a file the plan names (a replay's), through the plan's roots; nil is os.Open.
	Open func(path string) (*os.File, error)
}

// Node is one server a spread workload's workers connect to: its target's name and address,
// with the account, database and settings of Env.Server (a Galera sandbox's nodes share
// its accounts), and its weight in the spread (spec.Spread.Weights).
type Node struct {
	Name      string
	Net, Addr string
	Weight    int
}

// SpreadOver spreads the workers over nodes by their weights (spec.Assign), computed for
// the first threads global worker ids.
func (e *Env) SpreadOver(nodes []Node, threads int) {
	e.Nodes = nodes
	e.assign = spec.Assign(e.weights(), threads)
}

func (e Env) weights() []int {
	out := make([]int, len(e.Nodes))
	for i, n := range e.Nodes {
		out[i] = n.Weight
	}
	return out
}

// NodeOf is the index in Nodes of the worker with local id local (this shard's); 0 without nodes.
func (e Env) NodeOf(local int) int {
	if len(e.Nodes) == 0 {
		return 0
	}
	g := e.Shard.Global(local)
	if g < len(e.assign) {
		return e.assign[g]
	}
	return spec.Assign(e.weights(), g+1)[g] // beyond the threads SpreadOver was told: the same rule
}

// ServerFor is how the worker with local id local connects: Server, or its node's address
// with Server's account and settings.
func (e Env) ServerFor(local int) *mysql.Config { return e.WorkerConfig(e.Server, local) }

// WorkerConfig is cfg, a config made from Server (engine.DialConfig's), as the worker with
// local id local dials it: cfg itself without Nodes, else a copy with its node's address.
func (e Env) WorkerConfig(cfg *mysql.Config, local int) *mysql.Config {
	if len(e.Nodes) == 0 {
		return cfg
	}
	n := e.Nodes[e.NodeOf(local)]
	c := cfg.Clone()
	c.Net, c.Addr = n.Net, n.Addr
	return c
}

// OpenFile opens path as Open says, os.Open when it is not set.
func (e Env) OpenFile(path string) (*os.File, error) {
	if e.Open != nil {
		return e.Open(path)
	}
	return os.Open(path)
}

// Kind is one kind of workload, declared in one value by its package: what a plan knows of
// it (Spec, which spec asks when it loads a plan) and how it runs.
type Kind struct {
	Spec spec.Kind
	// New binds a workload of this kind to its settings and server.
	New func(w *spec.Workload, env Env) (Workload, error)
	// Metrics are the kind's own columns of the time series and the summary, after the
	// counts every workload has; its runs put them on their figures (measure.Own). The
	// registry gives spec their names (assertions) and the executor writes their
	// descriptions into run.json, so that readers of the folder need not know the kind.
	Metrics []measure.Metric
	// Tables are the kind's own tables of the results folder, beside the shared ones: the
	// executor writes their declarations into run.json, so that results reads and merges
	// them, and the report shows them, without knowing the kind.
	Tables []measure.Table
}

// ErrNoAction is returned by a kind for an action it does not have; validation refuses
// such plans first.
var ErrNoAction = errors.New("this workload kind has no such action")

func (e Env) log(msg string) {
	if e.Log != nil {
		e.Log(msg)
	}
}

// Logf sends a progress message to the run's log.
func (e Env) Logf(format string, args ...any) { e.log(fmt.Sprintf(format, args...)) }

// Timeout is the read timeout of the workload's connections.
func (e Env) Timeout() time.Duration {
	if e.ReadTimeout <= 0 {
		return time.Minute
	}
	return e.ReadTimeout
}

// Loop maps the workload's settings onto the engine's loop; the kind adds its Setup.
func Loop(w *spec.Workload, onInterval func(*measure.Interval)) engine.Config {
	return engine.Config{
		Threads: max(w.Connections(), 1), Duration: w.Duration, Events: w.Events, Warmup: w.Warmup, Rate: w.Rate,
		ReportInterval: w.ReportInterval, Ignore: w.OnError.Ignore, Reconnect: w.OnError.Reconnect,
		MaxErrors: int64(w.OnError.MaxErrors), OnInterval: onInterval, Rollback: true,
		Stages: Stages(w), Linear: w.Ramp == "linear",
		PerTransaction: w.Connect == "per_transaction", Idle: w.IdleConnections,
	}
}

// Split cuts a loop's settings down to this shard's share: its workers (the kind's Setup
// gets local ids; Shard.Global gives the global id its seeds and ranges use), its part
// of the events and of the rate; with Nodes, it tells the loop each worker's node, whose
// counts it keeps apart.
func (e Env) Split(c engine.Config) engine.Config {
	c.Ready = e.Ready
	c.Certifies = e.Certifies
	if len(e.Nodes) > 0 {
		for _, n := range e.Nodes {
			c.Nodes = append(c.Nodes, n.Name)
		}
		c.NodeOf = e.NodeOf
	}
	if !e.Shard.Sharded() {
		return c
	}
	c.Threads = e.Shard.Workers(c.Threads)
	c.Events = e.Shard.Events(c.Events)
	c.Rate = e.Shard.Rate(c.Rate)
	// Each stage splits as the flat case does: its workers are the global ids i < threads
	// with i mod N == K (the gate opens local ids in order, which are those), its rate R/N.
	stages := make([]engine.Stage, len(c.Stages))
	for i, st := range c.Stages {
		stages[i] = engine.Stage{Duration: st.Duration, Threads: e.Shard.Workers(st.Threads), Rate: e.Shard.Rate(st.Rate)}
	}
	if c.Stages != nil {
		c.Stages = stages
	}
	return c
}

// Stages are the workload's load shape for the engine; nil without stages.
func Stages(w *spec.Workload) []engine.Stage {
	var out []engine.Stage
	for _, st := range w.Stages {
		out = append(out, engine.Stage{Duration: st.Duration, Threads: st.Threads, Rate: st.Rate})
	}
	return out
}

// WithDB defaults the database to sysbench's "sbtest".
func WithDB(cfg *mysql.Config) *mysql.Config {
	if cfg.DBName != "" {
		return cfg
	}
	c := cfg.Clone()
	c.DBName = "sbtest"
	return c
}

// Options are w's options: for a kind whose options are a settings map (spec.Settings).
func Options(w *spec.Workload) spec.Settings {
	if o := spec.OptionsOf[*spec.Settings](w); o != nil {
		return *o
	}
	return nil
}

// CheckOptionNames reports each option of w that is not among known (dashes and underscores
// alike) at its own position, with the closest known name, and returns the others: a kind's
// own option list is checked at validate, not found at run.
func CheckOptionNames(w *spec.Workload, what string, known []string) (spec.Errors, spec.Settings) {
	var errs spec.Errors
	var rest spec.Settings
	for _, kv := range Options(w) {
		n := strings.ReplaceAll(kv.Name, "-", "_")
		if slices.Contains(known, n) {
			rest = append(rest, kv)
			continue
		}
		msg := fmt.Sprintf("unknown option %q for %s", kv.Name, what)
		if sg := spec.Suggest(n, known); sg != "" {
			msg += sg
		} else {
			msg += "; known: " + strings.Join(known, ", ")
		}
		errs = append(errs, &spec.Error{Pos: kv.Pos, Msg: msg})
	}
	return errs, rest
}

// Settings turns a plan's option map into text values as the scripts take them: true
// and false become on and off.
func Settings(s spec.Settings) map[string]string {
	if len(s) == 0 {
		return nil
	}
	m := make(map[string]string, len(s))
	for _, kv := range s {
		switch v := kv.Value.(type) {
		case bool:
			m[kv.Name] = map[bool]string{true: "on", false: "off"}[v]
		default:
			m[kv.Name] = fmt.Sprint(v)
		}
	}
	return m
}
