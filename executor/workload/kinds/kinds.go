// Package kinds registers every workload kind: a new kind is a package under
// executor/workload and one line in All.
package kinds

import (
	"context"
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/custom"
	"github.com/quadrant-bench/quadrant/executor/workload/oltp"
	"github.com/quadrant-bench/quadrant/executor/workload/replay"
	"github.com/quadrant-bench/quadrant/executor/workload/sysbench"
	"github.com/quadrant-bench/quadrant/executor/workload/tpcc"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// All are the workload kinds, by the name spec.Workload.Type() gives.
var All = map[string]workload.Kind{
	oltp.Kind.Name:     oltp.Kind,
	custom.Kind.Name:   custom.Kind,
	replay.Kind.Name:   replay.Kind,
	sysbench.Kind.Name: sysbench.Kind,
	tpcc.Kind.Name:     tpcc.Kind,
}

// New binds a plan's workload to its kind and server.
func New(w *spec.Workload, env workload.Env) (workload.Workload, error) {
	k, ok := All[w.Type()]
	if !ok {
		return nil, fmt.Errorf("workload of unknown kind %q", w.Type())
	}
	return k.New(w, env)
}

// Validate checks every workload of a plan with its kind's own rules, after spec's: what
// `quadrant validate` and a run refuse before anything starts.
func Validate(p *spec.Plan) error {
	var errs spec.Errors
	seen := map[*spec.Workload]bool{}
	for pw := range p.Workloads() {
		if seen[pw.Workload] {
			continue
		}
		seen[pw.Workload] = true
		k, ok := All[pw.Workload.Type()]
		if !ok {
			continue
		}
		if pw.Workload.Action == "check" && !k.Checks {
			errs = append(errs, &spec.Error{Pos: pw.Workload.Src.At("action"),
				Msg: fmt.Sprintf("action check: a %s workload has no consistency check (only builtin: tpcc has one); use action: run, prepare or cleanup", pw.Workload.Type())})
		}
		if k.Validate != nil {
			errs = append(errs, k.Validate(pw.Workload)...)
		}
	}
	errs = append(errs, tpcc.ValidateLoaded(p)...)
	return errs.Tidy()
}

// ValidateShards says what of p cannot be split into n shards: spec/shard's arithmetic,
// and what the kinds know from their files (a replayed SQL file).
func ValidateShards(p *spec.Plan, n int) spec.Errors {
	errs := shard.Validate(p, n)
	if n <= 1 {
		return errs
	}
	seen := map[*spec.Workload]bool{}
	for pw := range p.Workloads() {
		if seen[pw.Workload] {
			continue
		}
		seen[pw.Workload] = true
		if k, ok := All[pw.Workload.Type()]; ok && k.Shards != nil {
			errs = append(errs, k.Shards(pw.Workload, n)...)
		}
	}
	return errs
}

// Do runs w's action on its server: prepare, cleanup, or (run) the load, whose intervals
// go to onInterval.
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
