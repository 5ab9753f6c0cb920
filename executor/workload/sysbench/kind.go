package sysbench

import (
	"context"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is `workload: {sysbench: {script: ...}}`: the sysbench binary itself.
var Kind = workload.Kind{Name: "sysbench", Validate: validate, New: newBinary}

func validate(w *spec.Workload) spec.Errors {
	errs := workload.Validate(w)
	if err := Check(options(w, workload.Env{}, nil)); err != nil {
		at := w.Sysbench.Src.At("args")
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
		Script: w.Sysbench.Script, Args: workload.Settings(w.Sysbench.Args),
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
