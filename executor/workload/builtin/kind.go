package builtin

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is `workload: {builtin: NAME}`: sysbench's OLTP scripts run natively.
var Kind = workload.Kind{
	Spec: spec.Kind{
		Name: "builtin", Key: "builtin", Values: Builtins,
		Doc:     "A sysbench-compatible workload run by quadrant's own engine (see the names below).",
		Body:    func() any { return new(string) },
		Options: func() any { return new(spec.Settings) },
		OptionsDoc: "builtin: sysbench script options, same names and defaults (tables, table_size, range_size, ...), " +
			"and quadrant's statement_stats (on: per-statement latency, the stmt.CLASS.* columns; off by default).",
		Actions:       []string{"prepare", "cleanup"},
		Loop:          true,
		Spreads:       true,
		SplitsPrepare: true,
		Check:         func(c *spec.Check, w *spec.Workload) { c.Add(validate(w)) },
		Describe:      describe,
		Statements:    statements,
		Estimate:      estimate,
		Privileges:    privileges,
		Creates:       creates,
		Prepared:      prepared,
	},
	New: newBuiltin,
}

// Script is the builtin's name: oltp_read_write, ...
func Script(w *spec.Workload) string {
	if s := spec.Body[*string](w); s != nil {
		return *s
	}
	return ""
}

// Workload is a builtin workload built in Go (benchmarks, tests), with the plan's defaults.
func Workload(script, action string, options spec.Settings) *spec.Workload {
	return spec.WithDefaults(&spec.Workload{Kind: &Kind.Spec, Body: &script, Options: &options, Action: action})
}

// validate checks the options against the builtin's own list, each unknown one at its own
// line with the closest known name, then the values of the known ones.
func validate(w *spec.Workload) spec.Errors {
	var errs spec.Errors
	name := Script(w)
	bad, rest := workload.CheckOptionNames(w, "builtin "+name, KnownOptions(name))
	errs = append(errs, bad...)
	if _, err := ParseParams(name, workload.Settings(rest)); err != nil {
		errs = append(errs, &spec.Error{Pos: w.Src.At("options"), Msg: err.Error()})
	}
	return errs
}

func describe(w *spec.Workload) string {
	s := fmt.Sprintf("builtin %s %s", Script(w), w.Action)
	if o := workload.Options(w); len(o) > 0 {
		s += fmt.Sprintf(" (%s)", o)
	}
	return s
}

// statements are the classes the OLTP scripts time with statement_stats: on (off by default).
func statements(w *spec.Workload) ([]string, bool) {
	if !strings.HasPrefix(Script(w), "oltp_") {
		return nil, false
	}
	p, err := ParseParams(Script(w), workload.Settings(workload.Options(w)))
	return measure.StmtClasses, err == nil && p.StatementStats
}

func estimate(w *spec.Workload) (spec.Estimate, bool) {
	if w.Action != "prepare" {
		return spec.Estimate{}, false
	}
	p, err := ParseParams(Script(w), workload.Settings(workload.Options(w)))
	if err != nil {
		return spec.Estimate{}, false
	}
	rows, bytes := LoadSize(Script(w), p)
	return spec.Estimate{Rows: rows, Bytes: bytes, Threads: max(1, min(w.Threads, p.Tables))}, rows > 0
}

// creates are the tables a prepare makes: sbtest1..sbtestN (bulk_insert: one per thread),
// in the DSN's database, else sbtest.
func creates(w *spec.Workload) ([]string, string) {
	if w.Action != "prepare" {
		return nil, ""
	}
	p, err := ParseParams(Script(w), workload.Settings(workload.Options(w)))
	if err != nil {
		return nil, ""
	}
	n := p.Tables
	if Script(w) == "bulk_insert" {
		n = w.Threads
	}
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, "sbtest"+strconv.Itoa(i))
	}
	return out, "sbtest"
}

// prepared is how many server-side prepared statements one worker keeps (as the sysbench
// scripts' thread_init prepares them); 0 with ps_mode: disable.
func prepared(w *spec.Workload) int {
	name := Script(w)
	p, err := ParseParams(name, workload.Settings(workload.Options(w)))
	if err != nil || !p.Prepared {
		return 0
	}
	switch name {
	case "select_random_points", "select_random_ranges":
		return 1
	}
	points := 1
	if p.RangeSelects {
		points = 5
	}
	per := map[string]int{
		"oltp_read_write": points + 4, "oltp_read_only": points, "oltp_write_only": 4, "oltp_point_select": 1,
		"oltp_update_index": 1, "oltp_update_non_index": 1, "oltp_delete": 1,
	}[name]
	return per * max(p.Tables, 1)
}

// builtin is one script with its parsed options, bound to a server.
type builtin struct {
	w   *spec.Workload
	p   Params
	env workload.Env
}

func newBuiltin(w *spec.Workload, env workload.Env) (workload.Workload, error) {
	p, err := ParseParams(Script(w), workload.Settings(workload.Options(w)))
	if err != nil {
		return nil, err
	}
	env.Server = workload.WithDB(env.Server)
	return &builtin{w: w, p: p, env: env}, nil
}

func (b *builtin) threads() int { return max(b.w.Connections(), 1) }

func (b *builtin) Prepare(ctx context.Context) error {
	// CREATE INDEX on a big table can take long: no short read timeout here.
	return Prepare(ctx, engine.DialConfig(b.env.Server, false, 24*time.Hour, b.threads()), Script(b.w), b.p, b.threads(), b.env.Shard, b.env.Log, b.env.Loaded)
}

func (b *builtin) Cleanup(ctx context.Context) error {
	return Cleanup(ctx, engine.DialConfig(b.env.Server, false, time.Hour, 1), Script(b.w), b.p, b.threads())
}

func (b *builtin) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	name, threads := Script(b.w), b.threads()
	dc := engine.DialConfig(b.env.Server, b.p.Prepared, b.env.Timeout(), threads)
	shared := &Shared{shard: b.env.Shard}
	lc := b.env.Split(workload.Loop(b.w, onInterval))
	// A transaction script's error leaves sysbench's own state; ROLLBACK only where BEGIN is used.
	lc.Rollback = strings.HasPrefix(name, "oltp_read") || name == "oltp_write_only"
	lc.Statements = Statements(name, b.p)
	lc.Dial = func(ctx context.Context) (*engine.Conn, error) { return engine.Dial(ctx, dc, false) }
	lc.Setup = func(ctx context.Context, local int) (engine.Worker, *engine.Conn, error) {
		i := b.env.Shard.Global(local)
		c, err := engine.Dial(ctx, b.env.WorkerConfig(dc, local), b.p.Prepared)
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

// privileges are what sysbench's scripts do to their tables: prepare creates the schema and
// tables, loads them and adds the k index; cleanup drops them; a run reads and writes rows.
func privileges(w *spec.Workload) ([]string, string) {
	return Privileges(w.Action), "sbtest"
}

// Privileges are what an action of sysbench's scripts needs on its schema (shared with the
// sysbench kind, which runs the same scripts).
func Privileges(action string) []string {
	switch action {
	case "prepare":
		return []string{"CREATE", "INSERT", "INDEX"}
	case "cleanup":
		return []string{"DROP"}
	}
	return []string{"SELECT", "INSERT", "UPDATE", "DELETE"}
}
