// Package workload runs the measured part of an iteration: a sysbench-compatible
// builtin, a custom weighted transaction mix, a SQL file replay, or the sysbench
// binary itself. Whatever the kind, the caller gets one measure.Interval per
// report interval (the engine's own ticker: the clock watchers sample on) and
// the measure.Total of the measured part.
package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/workload/custom"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/executor/workload/oltp"
	"github.com/quadrant-bench/quadrant/executor/workload/replay"
	"github.com/quadrant-bench/quadrant/executor/workload/sysbench"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// Options describe one workload, independent of the plan types. Exactly one of
// Builtin, Transactions, Replay and Sysbench is set.
type Options struct {
	Builtin string            // oltp_read_write, ... (oltp.Builtins)
	Action  string            // run (default) | prepare | cleanup; builtins only
	Options map[string]string // builtin script options, sysbench names (table_size, rand_type, ps_mode, ...)

	Transactions []custom.Transaction // custom weighted mix
	Vars         map[string]any       // vars.NAME for the args expressions

	Replay   *Replay
	Sysbench *Sysbench

	Threads        int           // default 1 (replay: Replay.Connections)
	Duration       time.Duration // run length after warmup; 0 with Events 0: 10s like sysbench (replay: until the file ends)
	Events         int64         // stop after this many measured events; 0: no limit
	Warmup         time.Duration // run but not counted
	Rate           float64       // events/s for the whole workload, Poisson arrivals; 0: closed loop
	ReportInterval time.Duration // default 1s
	OnError        OnError
	// ReadTimeout bounds every query so a lost server cannot hang a worker;
	// default 60s (above innodb_lock_wait_timeout's 50s). A readTimeout in the DSN wins.
	ReadTimeout time.Duration

	// OnInterval receives every interval, in order, from the ticker goroutine;
	// it should return quickly (the next tick waits for it).
	OnInterval func(*measure.Interval)
	// Console, if set, gets a sysbench-style line per interval.
	Console io.Writer
	// Log, if set, gets progress messages (prepare, sysbench command line without password).
	Log func(msg string)
}

// OnError is the error policy (MySQL error numbers).
type OnError struct {
	Ignore    []int // restart the event; nil means sysbench's default [1213, 1020, 1205]
	Reconnect []int // reconnect, re-prepare, restart the event
	MaxErrors int64 // abort the workload after more errors than this; 0: no limit
}

// DefaultIgnore is sysbench's --mysql-ignore-errors default.
var DefaultIgnore = []int{1213, 1020, 1205}

// Replay executes a SQL file in order.
type Replay struct {
	File        string
	Connections int // default 1; >1 hands statements out in file order to whichever connection is free
}

// Sysbench runs the sysbench binary.
type Sysbench struct {
	Script string            // oltp_read_write or a path to a .lua
	Args   map[string]string // --NAME=VALUE options for the script
	Binary string            // default "sysbench" from PATH
}

// Run runs the workload against the server cfg points at. The returned Total is
// non-nil whenever measuring started, also together with an error; the error is
// an *engine.AbortError when the workload aborted (fatal SQL error, max_errors).
func Run(ctx context.Context, cfg *mysql.Config, o Options) (*measure.Total, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.ReportInterval <= 0 {
		o.ReportInterval = time.Second
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	if o.OnError.Ignore == nil {
		o.OnError.Ignore = DefaultIgnore
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = time.Minute
	}
	onInterval := o.OnInterval
	o.OnInterval = func(iv *measure.Interval) {
		if o.Console != nil {
			fmt.Fprintln(o.Console, measure.FormatLine(iv, o.Rate > 0))
		}
		if onInterval != nil {
			onInterval(iv)
		}
	}
	switch {
	case o.Sysbench != nil:
		return sysbench.Run(ctx, cfg, o.sysbenchOptions())
	case o.Replay != nil:
		return runReplay(ctx, cfg, o)
	case len(o.Transactions) > 0:
		return runCustom(ctx, cfg, o)
	default:
		return runBuiltin(ctx, cfg, o)
	}
}

func (o *Options) check() error {
	kinds := 0
	for _, set := range []bool{o.Builtin != "", len(o.Transactions) > 0, o.Replay != nil, o.Sysbench != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return errors.New("workload: set exactly one of builtin, transactions, replay, sysbench")
	}
	if o.Action != "" && o.Action != "run" && o.Builtin == "" {
		return fmt.Errorf("workload: action %q is only for builtins", o.Action)
	}
	switch o.Action {
	case "", "run", "prepare", "cleanup":
	default:
		return fmt.Errorf("workload: action %q: want run, prepare or cleanup", o.Action)
	}
	if o.Rate < 0 || o.Threads < 0 || o.Events < 0 || o.Duration < 0 || o.Warmup < 0 {
		return errors.New("workload: rate, threads, events, duration and warmup must not be negative")
	}
	return nil
}

// loopConfig maps the options onto the engine's loop.
func (o *Options) loopConfig() engine.Config {
	d := o.Duration
	if d == 0 && o.Events == 0 && o.Replay == nil {
		d = 10 * time.Second // sysbench's --time default
	}
	return engine.Config{
		Threads: o.Threads, Duration: d, Events: o.Events, Warmup: o.Warmup, Rate: o.Rate,
		ReportInterval: o.ReportInterval, Ignore: o.OnError.Ignore, Reconnect: o.OnError.Reconnect,
		MaxErrors: o.OnError.MaxErrors, OnInterval: o.OnInterval, Rollback: true,
	}
}

// withDB defaults the database to sysbench's "sbtest".
func withDB(cfg *mysql.Config) *mysql.Config {
	if cfg.DBName != "" {
		return cfg
	}
	c := cfg.Clone()
	c.DBName = "sbtest"
	return c
}

func runBuiltin(ctx context.Context, cfg *mysql.Config, o Options) (*measure.Total, error) {
	p, err := oltp.ParseParams(o.Builtin, o.Options)
	if err != nil {
		return nil, err
	}
	cfg = withDB(cfg)
	start := time.Now()
	switch o.Action {
	case "prepare":
		// CREATE INDEX on a big table can take long: no short read timeout here.
		err := oltp.Prepare(ctx, engine.DialConfig(cfg, false, 24*time.Hour, o.Threads), o.Builtin, p, o.Threads, o.Log)
		return &measure.Total{Start: start, End: time.Now(), Threads: o.Threads}, err
	case "cleanup":
		err := oltp.Cleanup(ctx, engine.DialConfig(cfg, false, time.Hour, 1), o.Builtin, p, o.Threads)
		return &measure.Total{Start: start, End: time.Now(), Threads: o.Threads}, err
	}
	dc := engine.DialConfig(cfg, p.Prepared, o.ReadTimeout, o.Threads)
	shared := &oltp.Shared{}
	lc := o.loopConfig()
	// A transaction script's error leaves sysbench's own state; ROLLBACK only where BEGIN is used.
	lc.Rollback = strings.HasPrefix(o.Builtin, "oltp_read") || o.Builtin == "oltp_write_only"
	lc.Setup = func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
		c, err := engine.Dial(ctx, dc, p.Prepared)
		if err != nil {
			return nil, nil, fmt.Errorf("%s worker %d: %w", o.Builtin, i+1, err)
		}
		w, err := oltp.NewWorker(o.Builtin, p, i, o.Threads, shared, c)
		if err != nil {
			_ = c.Close()
			return nil, nil, fmt.Errorf("%s worker %d: %w (did you run action: prepare?)", o.Builtin, i+1, err)
		}
		return w, c, nil
	}
	return engine.Run(ctx, lc)
}

func runCustom(ctx context.Context, cfg *mysql.Config, o Options) (*measure.Total, error) {
	mix, err := custom.Compile(o.Transactions, o.Vars)
	if err != nil {
		return nil, err
	}
	prepared := o.Options["ps_mode"] != "disable"
	dc := engine.DialConfig(cfg, prepared, o.ReadTimeout, o.Threads)
	lc := o.loopConfig()
	lc.Names = mix.Names()
	lc.Setup = func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
		c, err := engine.Dial(ctx, dc, prepared)
		if err != nil {
			return nil, nil, fmt.Errorf("worker %d: %w", i+1, err)
		}
		w, err := mix.NewWorker(i, c)
		if err != nil {
			_ = c.Close()
			return nil, nil, fmt.Errorf("worker %d: %w", i+1, err)
		}
		return w, c, nil
	}
	return engine.Run(ctx, lc)
}

func runReplay(ctx context.Context, cfg *mysql.Config, o Options) (*measure.Total, error) {
	src, err := replay.Open(o.Replay.File)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if o.Replay.Connections > 0 {
		o.Threads = o.Replay.Connections
	} else {
		o.Threads = 1
	}
	dc := engine.DialConfig(cfg, false, o.ReadTimeout, o.Threads)
	lc := o.loopConfig()
	lc.Rollback = false // the file decides its transactions
	lc.Setup = func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
		c, err := engine.Dial(ctx, dc, false)
		if err != nil {
			return nil, nil, fmt.Errorf("replay connection %d: %w", i+1, err)
		}
		return src.NewWorker(), c, nil
	}
	return engine.Run(ctx, lc)
}

func (o *Options) sysbenchOptions() sysbench.Options {
	return sysbench.Options{
		Script: o.Sysbench.Script, Args: o.Sysbench.Args, Binary: o.Sysbench.Binary,
		Threads: o.Threads, Duration: o.loopConfig().Duration, Events: o.Events, Warmup: o.Warmup, Rate: o.Rate,
		ReportInterval: o.ReportInterval, Ignore: o.OnError.Ignore, OnInterval: o.OnInterval, Log: o.Log,
	}
}
