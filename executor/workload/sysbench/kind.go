package sysbench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/oltp"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is `workload: {sysbench: {script: ...}}`: the sysbench binary itself.
var Kind = workload.Kind{
	Spec: spec.Kind{
		Name: "sysbench", Key: "sysbench",
		Doc:     "Run the sysbench binary itself and parse its output.",
		Body:    func() any { return new(Plan) },
		Actions: []string{"prepare", "cleanup"},
		Check: func(c *spec.Check, w *spec.Workload) {
			c.Settings(body(w).Args, "sysbench.args")
			c.Add(validate(w))
		},
		Shards: func(w *spec.Workload, _ int) spec.Errors {
			return spec.Errors{{Pos: w.Src.At("sysbench"), Msg: "a sysbench: workload cannot be sharded: sysbench prints percentiles, which do not merge; use the same script as builtin: (e.g. builtin: oltp_read_write), whose latency histograms merge exactly"}}
		},
		Privileges: func(w *spec.Workload) ([]string, string) {
			if !slices.Contains(oltp.Builtins, body(w).Script) {
				return nil, "" // a script of the user's: what it does is its own
			}
			return oltp.Privileges(w.Action), "sbtest"
		},
		Describe: func(w *spec.Workload) string {
			s := fmt.Sprintf("sysbench %s %s", body(w).Script, w.Action)
			if a := body(w).Args; len(a) > 0 {
				s += fmt.Sprintf(" (%s)", a)
			}
			return s
		},
	},
	New: newBinary,
}

// Plan is `sysbench:` as the plan writes it.
type Plan struct {
	Src    spec.Source   `yaml:"-" name:"sysbench" def:"sysbench"`
	Script string        `yaml:"script,required" doc:"sysbench test name or script path, e.g. oltp_read_write."`
	Args   spec.Settings `yaml:"args" doc:"Script options, passed as --NAME=VALUE."`
}

// Workload is a sysbench workload built in Go (benchmarks, tests), with the plan's defaults.
func Workload(script string, args spec.Settings) *spec.Workload {
	return spec.WithDefaults(&spec.Workload{Kind: &Kind.Spec, Body: &Plan{Script: script, Args: args}})
}

// PlanDoc is sysbench:'s section of the plan reference.
func (Plan) PlanDoc() string { return "Runs the sysbench binary itself and parses its output." }

func body(w *spec.Workload) *Plan {
	if p := spec.Body[*Plan](w); p != nil {
		return p
	}
	return &Plan{}
}

func validate(w *spec.Workload) spec.Errors {
	var errs spec.Errors
	if err := Check(options(w, workload.Env{}, nil)); err != nil {
		at := body(w).Src.At("args")
		switch {
		case w.Warmup > 0:
			at = w.Src.At("warmup")
		case w.ReportInterval%time.Second != 0:
			at = w.Src.At("report_interval")
		}
		errs = append(errs, &spec.Error{Pos: at, Msg: err.Error()})
	}
	return errs
}

type binary struct {
	w   *spec.Workload
	env workload.Env
}

func newBinary(w *spec.Workload, env workload.Env) (workload.Workload, error) {
	return &binary{w: w, env: env}, nil
}

// options maps the plan's workload onto sysbench's command line.
func options(w *spec.Workload, env workload.Env, onInterval func(*measure.Interval)) Options {
	lc := workload.Loop(w, onInterval)
	return Options{
		Script: body(w).Script, Args: workload.Settings(body(w).Args),
		Threads: lc.Threads, Duration: lc.Duration, Events: lc.Events, Warmup: lc.Warmup, Rate: lc.Rate,
		ReportInterval: lc.ReportInterval, Ignore: lc.Ignore, OnInterval: onInterval, Log: env.Log,
	}
}

func (b *binary) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	return Run(ctx, b.env.Server, options(b.w, b.env, onInterval))
}

func (b *binary) Prepare(ctx context.Context) error { return b.command(ctx, "prepare") }
func (b *binary) Cleanup(ctx context.Context) error { return b.command(ctx, "cleanup") }

func (b *binary) command(ctx context.Context, cmd string) error {
	o := options(b.w, b.env, nil)
	o.Command = cmd
	_, err := Run(ctx, b.env.Server, o)
	return err
}
