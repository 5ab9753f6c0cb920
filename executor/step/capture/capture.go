// Package capture is the capture: step kind: what the step's target runs for a while,
// recorded through SQL into a capture file that replay: replays (executor/capture does
// the recording).
package capture

import (
	"context"
	"fmt"
	"time"

	"github.com/quadrant-bench/quadrant/executor/capture"
	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the capture step kind.
var Kind = spec.StepKind{
	Key: "capture", Doc: "Record what the step's target runs for a while into a capture file that replay: replays (see docs/replay.md).",
	Body: func() any { return new(Capture) }, Target: true,
	Check: check,
	Writes: func(s *spec.Step) spec.DataFile {
		c := Of(s)
		return spec.DataFile{File: c.Out, Path: c.Path}
	},
	Workloads: func(s *spec.Step) []*spec.Workload {
		if c := Of(s); c.While != nil {
			return []*spec.Workload{c.While}
		}
		return nil
	},
	Explain:    explain,
	Privileges: privileges,
	Impl:       step.Func(run),
}

// Capture is a `capture:` step's body: what the step's target runs for Duration, recorded through SQL
// into a capture file, as `quadrant capture` does.
type Capture struct {
	Src      spec.Source    `yaml:"-"`
	Out      string         `yaml:"out,required" doc:"The capture file to write, relative to the plan (a replay: file: of the same name reads it)."`
	Duration time.Duration  `yaml:"duration,required" doc:"How long to capture."`
	Method   string         `yaml:"method" default:"auto" enum:"auto,slow_log,performance_schema" doc:"slow_log: the slow log to TABLE with long_query_time=0 for the duration (settings restored); performance_schema: poll events_statements_history_long; auto: the slow log, else performance_schema."`
	Schemas  []string       `yaml:"schemas" doc:"Keep only statements run in these default databases."`
	Users    []string       `yaml:"users" doc:"Keep only statements run by these users."`
	While    *spec.Workload `yaml:"while" doc:"A workload run on the target while capturing, to have traffic to capture on a server that has none of its own (a sandbox); it is not measured."`
	// Path is Out resolved against the plan's directory (check).
	Path string `yaml:"-"`
}

// PlanDoc is the capture section's text in the plan reference.
func (*Capture) PlanDoc() string {
	return "Records what the step's target runs for `duration` into a capture file, through SQL only (see docs/replay.md); `while:` runs a workload on the target meanwhile."
}

// Of is s's body.
func Of(s *spec.Step) *Capture { return spec.StepBody[*Capture](s) }

func check(c *spec.Check, s *spec.Step) {
	cp := Of(s)
	if cp.Duration <= 0 {
		c.Errorf(cp.Src.At("duration"), "capture duration must be more than 0, e.g. duration: 60s")
	}
	cp.Path = c.Output(cp.Out, cp.Src.At("out"), "capture out")
	if cp.While == nil {
		return
	}
	c.Workload(cp.While)
	if cp.While.Nodes.Spreads() {
		// what the capture records is the target's own traffic: threads on other nodes
		// would load the cluster unrecorded
		c.Errorf(cp.While.Src.At("nodes"), "nodes: %s: a capture records one server, so its while: workload runs there; remove nodes: or write nodes: one", cp.While.Nodes)
	}
	for _, f := range cp.While.Files() {
		if f.Path == cp.Path {
			c.Errorf(cp.While.Src.Pos, "the capture's while: workload reads %s, the file the capture writes; give it another file", f.File)
		}
	}
}

func explain(s *spec.Step, x spec.Explainer) spec.Explanation {
	c := Of(s)
	on := ""
	if s.Target != "" {
		on = " on " + s.Target
	}
	e := spec.Explanation{Upper: c.Duration,
		Line: fmt.Sprintf("capture%s for %s into %s (method %s; settings restored after)", on, c.Duration, c.Out, c.Method)}
	if c.While != nil {
		e.More = []string{"while: workload (not measured): " + x.Workload(c.While)}
	}
	return e
}

// run records what the target runs for the step's duration into its capture file, with
// its while: workload running meanwhile (started once recording has, so its connections
// are recorded). The file is written beside and renamed: a failed capture leaves none.
func run(ctx context.Context, st *spec.Step, env step.Env) error {
	c, t := Of(st), env.Target
	// Through the plan's roots: a symlink planted at out or in its directory leads nowhere.
	tmp, err := env.Roots.Replace(c.Path)
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	defer tmp.Abort()
	w, err := traffic.NewWriter(tmp, traffic.QCapHeader{Created: time.Now().UTC(), Target: t.Name(), Timed: true})
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	load := make(chan error, 1)
	started := func() {
		if c.While == nil {
			load <- nil
			return
		}
		env.Logf("%s: %s on %s while capturing", env.Where, c.While, t.Name())
		go func() { load <- env.Workloads.Run(wctx, t, c.While, env.Where) }()
	}
	// The while: workload ends with the recording, before the capture's end checksums: one
	// that ended by itself says how, one stopped there ended as planned.
	var werr error
	var ended bool
	stopped := func() {
		select {
		case werr = <-load:
		default:
			cancel()
			if werr = <-load; wctx.Err() != nil {
				werr = nil
			}
		}
		ended = true
	}
	env.Logf("%s: capturing %s for %s into %s", env.Where, t.Name(), c.Duration, c.Out)
	res, err := capture.Run(ctx, t.DB(), w, capture.Options{Duration: c.Duration, Method: c.Method,
		Filter: capture.Filter{Schemas: c.Schemas, Users: c.Users}, Logf: env.Logf, Started: started, Stopped: stopped})
	cancel()
	if err != nil {
		return err
	}
	if !ended {
		werr = <-load
	}
	if werr != nil && ctx.Err() == nil && (ended || wctx.Err() == nil) {
		return fmt.Errorf("while: %w", werr)
	}
	if err := tmp.Commit(); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	env.Logf("%s: captured %d statements from %d sessions through %s", env.Where, res.Statements, res.Sessions, res.Method)
	return nil
}

// privileges are those of the capture's method; auto's are either method's, as it falls
// back from the slow log to performance_schema.
func privileges(s *spec.Step, srv spec.AccountServer) []spec.AccountNeed {
	slow := []spec.Privilege{srv.SetGlobal, {Names: []string{"SELECT"}, DB: "mysql", Table: "slow_log"}}
	ps := []spec.Privilege{{Names: []string{"SELECT"}, DB: "performance_schema"}, {Names: []string{"UPDATE"}, DB: "performance_schema", Table: "setup_consumers"}}
	need := spec.AccountNeed{Pos: s.Src.Pos, What: "capture"}
	switch Of(s).Method {
	case "slow_log":
		need.Why, need.Any = "the slow log to TABLE: SET GLOBAL log_output, long_query_time, then read mysql.slow_log", [][]spec.Privilege{slow}
	case "performance_schema":
		need.Why, need.Any = "performance_schema: turn its statement consumers on, then read events_statements_history_long", [][]spec.Privilege{ps}
	default:
		need.Why, need.Any = "the slow log to TABLE, else performance_schema", [][]spec.Privilege{slow, ps}
	}
	return []spec.AccountNeed{need}
}
