package replay

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is `workload: {replay: {file: ...}}`: a SQL file executed in order, timed, or captured
// traffic replayed per session.
var Kind = workload.Kind{
	Spec: spec.Kind{
		Name: "replay", Key: "replay",
		Doc:         "Execute a SQL file in order, or replay captured traffic (slow log, general log, capture file) per session.",
		Body:        func() any { return new(Replay) },
		Ends:        true,
		Check:       check,
		Shards:      shards,
		Describe:    describe,
		Explain:     explain,
		Connections: func(w *spec.Workload) int { return Plan(w).Connections },
		Files: func(w *spec.Workload) []spec.DataFile {
			return []spec.DataFile{{File: Plan(w).File, Path: Plan(w).Path}}
		},
	},
	New:    newReplay,
	Tables: Tables,
}

// shards refuses to split a SQL file: captured traffic splits by session (each session one
// shard's whole, see owns), but a SQL file is one stream whose order is its meaning.
func shards(w *spec.Workload, n int) spec.Errors {
	r := Plan(w)
	format, err := formatOf(r, nil)
	if err != nil && r.Path != "" {
		return nil // validate reports it
	}
	if format != traffic.SQL {
		if r.Order == "commit" {
			return spec.Errors{&spec.Error{Pos: r.Src.At("order"), Msg: fmt.Sprintf(
				"order: commit cannot be split into %d shards: a session waits for the captured commits before it, which other shards' sessions make in other processes; run it unsharded, or remove order", n)}}
		}
		return nil
	}
	return spec.Errors{&spec.Error{Pos: r.Src.At("file"), Msg: fmt.Sprintf(
		"%s is a SQL file, which cannot be split into %d shards: it is one stream of statements in file order (connections: spreads that one stream, which only one process can do without losing or repeating a statement); run it unsharded, or capture the traffic (quadrant capture, a .qcap, or a slow or general log), which replays one connection per session and splits by session",
		r.File, n)}}
}

// validate checks what only the file tells: its format, and that timing: original has start
// times to follow.
func validate(w *spec.Workload) spec.Errors {
	var errs spec.Errors
	r := Plan(w)
	if r.Path == "" {
		return errs
	}
	f, err := traffic.Open(r.Path, traffic.Options{Format: r.Format})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errs // spec reports a missing file
		}
		return append(errs, &spec.Error{Pos: r.Src.At("file"), Msg: err.Error()})
	}
	defer f.Close()
	if r.Timing == "original" && !f.Timed {
		errs = append(errs, &spec.Error{Pos: r.Src.At("timing"),
			Msg: fmt.Sprintf("timing: original needs captured start times, and %s is a %s file without them; use timing: none, or replay a slow log, general log or capture file", r.File, describeFormat(f.Format))})
	}
	if f.Format == traffic.SQL && r.Order == "commit" {
		errs = append(errs, &spec.Error{Pos: r.Src.At("order"),
			Msg: fmt.Sprintf("order: commit keeps the commit order between captured sessions, and %s is a SQL file without sessions; remove order, or replay a slow log, general log or capture file", r.File)})
	}
	if f.Format != traffic.SQL && r.Src.Has("connections") {
		errs = append(errs, &spec.Error{Pos: r.Src.At("connections"),
			Msg: fmt.Sprintf("connections applies to a SQL file; %s is a %s, replayed one connection per captured session: remove connections", r.File, describeFormat(f.Format))})
	}
	return errs
}

func describeFormat(f string) string {
	switch f {
	case traffic.SlowLog:
		return "slow query log"
	case traffic.General:
		return "general query log"
	case traffic.QCap:
		return "quadrant capture"
	}
	return "SQL"
}

type fileReplay struct {
	w   *spec.Workload
	env workload.Env
}

// newReplay runs a SQL file as it always has (spread over connections, in file order) unless
// the file is captured traffic or the plan asks for what only a session replay does.
func newReplay(w *spec.Workload, env workload.Env) (workload.Workload, error) {
	r := Plan(w)
	format, err := formatOf(r, env.OpenFile)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if format == traffic.SQL && !filtered(r) {
		return &fileReplay{w: w, env: env}, nil
	}
	return &sessionReplay{w: w, env: env}, nil
}

func (r *fileReplay) Prepare(context.Context) error { return workload.ErrNoAction }
func (r *fileReplay) Cleanup(context.Context) error { return workload.ErrNoAction }

func (r *fileReplay) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	src, err := OpenWith(Plan(r.w).Path, r.env.OpenFile)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	lc := workload.Loop(r.w, onInterval)
	lc.Rollback = false // the file decides its transactions
	lc.Ready = r.env.Ready
	lc.Certifies = r.env.Certifies // a Galera node's deadlocks are its certification failures
	dc := engine.DialConfig(r.env.Server, false, r.env.Timeout(), lc.Threads)
	lc.Setup = func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
		c, err := engine.Dial(ctx, dc, false)
		if err != nil {
			return nil, nil, fmt.Errorf("replay connection %d: %w", i+1, err)
		}
		return src.NewWorker(), c, nil
	}
	return engine.Run(ctx, lc)
}
