package sysbench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/builtin"
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
			if b := body(w); IsFile(b.Script) {
				b.Path = c.Input(b.Script, b.Src.At("script"), "sysbench script")
			}
			c.Add(validate(w))
		},
		Files: func(w *spec.Workload) []spec.DataFile {
			if b := body(w); b.Path != "" {
				return []spec.DataFile{{File: b.Script, Path: b.Path}}
			}
			return nil
		},
		// A script that is not one of sysbench's own is Lua, which reaches the whole
		// machine (os.execute, io.open): code, as a shell step is.
		Effects: func(w *spec.Workload) []spec.Effect {
			b := body(w)
			if !IsFile(b.Script) {
				return nil
			}
			return []spec.Effect{{Kind: spec.RunsCode, Pos: b.Src.At("script"),
				What: fmt.Sprintf("sysbench runs the Lua script %s (Lua's os.execute reaches the whole machine)", b.Script)}}
		},
		Shards: func(w *spec.Workload, _ int) spec.Errors {
			return spec.Errors{{Pos: w.Src.At("sysbench"), Msg: "a sysbench: workload cannot be sharded: sysbench prints percentiles, which do not merge; use the same script as builtin: (e.g. builtin: oltp_read_write), whose latency histograms merge exactly"}}
		},
		Privileges: func(w *spec.Workload) ([]string, string) {
			if !slices.Contains(builtin.Builtins, body(w).Script) {
				return nil, "" // a script of the user's: what it does is its own
			}
			return builtin.Privileges(w.Action), "sbtest"
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
	Script string        `yaml:"script,required" doc:"sysbench test name (one of those it ships, e.g. oltp_read_write) or a Lua script of the plan's, relative to the plan: Lua reaches the whole machine, so a script needs --allow-shell."`
	Args   spec.Settings `yaml:"args" doc:"Script options, passed as --NAME=VALUE."`
	// Path is a script file resolved against the plan's directory ("" for sysbench's own).
	Path string `yaml:"-"`
}

// Bundled are the tests sysbench ships (/usr/share/sysbench/NAME.lua), which a plan names
// without a path.
var Bundled = []string{"bulk_insert", "oltp_delete", "oltp_insert", "oltp_point_select", "oltp_read_only",
	"oltp_read_write", "oltp_update_index", "oltp_update_non_index", "oltp_write_only",
	"select_random_points", "select_random_ranges"}

// IsFile says script names a Lua file of the plan's rather than one of sysbench's own tests.
func IsFile(script string) bool { return !slices.Contains(Bundled, script) }

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

// script is what sysbench is given: its own test's name, or the plan's file resolved.
func script(p *Plan) string {
	if p.Path != "" {
		return p.Path
	}
	return p.Script
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
		Script: script(body(w)), Args: workload.Settings(body(w).Args),
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
