package oltp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is `workload: {builtin: NAME}`: sysbench's OLTP scripts run natively.
var Kind = workload.Kind{Name: "builtin", Validate: validate, New: newBuiltin}

// validate checks the options against the builtin's own list, each unknown one at its own
// line with the closest known name, then the values of the known ones.
func validate(w *spec.Workload) spec.Errors {
	errs := workload.Validate(w)
	if !slices.Contains(Builtins, w.Builtin) {
		_, err := ParseParams(w.Builtin, nil)
		return append(errs, &spec.Error{Pos: w.Src.At("builtin"), Msg: err.Error()})
	}
	bad, rest := workload.CheckOptionNames(w, "builtin "+w.Builtin, KnownOptions(w.Builtin))
	errs = append(errs, bad...)
	if _, err := ParseParams(w.Builtin, workload.Settings(rest)); err != nil {
		errs = append(errs, &spec.Error{Pos: w.Src.At("options"), Msg: err.Error()})
	}
	return errs
}

// builtin is one script with its parsed options, bound to a server.
type builtin struct {
	w   *spec.Workload
	p   Params
	env workload.Env
}

func newBuiltin(w *spec.Workload, env workload.Env) (workload.Workload, error) {
	p, err := ParseParams(w.Builtin, workload.Settings(w.Options))
	if err != nil {
		return nil, err
	}
	env.Server = workload.WithDB(env.Server)
	return &builtin{w: w, p: p, env: env}, nil
}

func (b *builtin) threads() int { return max(b.w.Connections(), 1) }

func (b *builtin) Prepare(ctx context.Context) error {
	// CREATE INDEX on a big table can take long: no short read timeout here.
	return Prepare(ctx, engine.DialConfig(b.env.Server, false, 24*time.Hour, b.threads()), b.w.Builtin, b.p, b.threads(), b.env.Shard, b.env.Log, b.env.Loaded)
}

func (b *builtin) Cleanup(ctx context.Context) error {
	return Cleanup(ctx, engine.DialConfig(b.env.Server, false, time.Hour, 1), b.w.Builtin, b.p, b.threads())
}

func (b *builtin) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	name, threads := b.w.Builtin, b.threads()
	dc := engine.DialConfig(b.env.Server, b.p.Prepared, b.env.Timeout(), threads)
	shared := &Shared{shard: b.env.Shard}
	lc := b.env.Split(workload.Loop(b.w, onInterval))
	// A transaction script's error leaves sysbench's own state; ROLLBACK only where BEGIN is used.
	lc.Rollback = strings.HasPrefix(name, "oltp_read") || name == "oltp_write_only"
	lc.Statements = Statements(name, b.p)
	lc.Dial = func(ctx context.Context) (*engine.Conn, error) { return engine.Dial(ctx, dc, false) }
	lc.Setup = func(ctx context.Context, local int) (engine.Worker, *engine.Conn, error) {
		i := b.env.Shard.Global(local)
		c, err := engine.Dial(ctx, dc, b.p.Prepared)
		if err != nil {
			return nil, nil, fmt.Errorf("%s worker %d: %w", name, i+1, err)
		}
		w, err := NewWorker(name, b.p, i, threads, shared, c)
		if err != nil {
			_ = c.Close()
			return nil, nil, fmt.Errorf("%s worker %d: %w (did you run action: prepare?)", name, i+1, err)
		}
		return w, c, nil
	}
	return engine.Run(ctx, lc)
}
