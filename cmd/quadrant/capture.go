package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/executor/capture"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results"
)

func runCapture(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("capture", "--target NAME=DSN --duration 60s --out traffic.qcap | --in LOG --out traffic.qcap",
		"Records what a server runs, through SQL only, into a capture file that `replay: {file: traffic.qcap}` replays\n"+
			"one connection per captured session. --method slow_log switches the slow log to a TABLE with long_query_time=0\n"+
			"for the duration (log_output, slow_query_log and long_query_time are restored after; only connections opened\n"+
			"during the capture are recorded); --method performance_schema polls events_statements_history_long (needs\n"+
			"performance_schema=ON; statements beyond its ring between two polls are lost, and a warning says so); auto tries\n"+
			"the slow log, then performance_schema. With --in, a slow log, general log or capture file is converted and\n"+
			"filtered instead (trimming a capture to a schema, a user or a time window). Ctrl-C ends a capture early and keeps\n"+
			"what it has. See docs/replay.md before capturing on a production server.", stdout, stderr)
	var targets, schemas, users multiFlag
	fs.Var(&targets, "target", "the server to capture, `NAME=DSN` (user:password@tcp(host:port)/)")
	duration := fs.Duration("duration", time.Minute, "how long to capture")
	out := fs.String("out", "", "the capture file to write (`FILE`.qcap)")
	in := fs.String("in", "", "convert and filter this slow log, general log or capture `FILE` instead of capturing")
	method := fs.String("method", capture.Auto, "auto, slow_log or performance_schema")
	fs.Var(&schemas, "schema", "keep only statements run in this default `DATABASE` (repeatable)")
	fs.Var(&users, "user", "keep only statements run by this `USER` (repeatable)")
	from := fs.Duration("from", 0, "keep only statements starting this long after the first one")
	to := fs.Duration("to", 0, "keep only statements starting at most this long after the first one (0: no end)")
	skipMalformed := fs.Bool("skip-malformed", false, "with --in: skip a malformed or truncated record (each is reported with file:line) instead of stopping")
	if _, code, stop := parseFlags(fs, args, stdout); stop {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "quadrant capture: "+format+"\n", a...)
		return code
	}
	if *out == "" {
		return fail(exitInvalid, "--out FILE is required, e.g. --out traffic.qcap")
	}
	if (*in == "") == (len(targets) == 0) {
		return fail(exitInvalid, "give either --target NAME=DSN (capture a server) or --in FILE (convert a log), not both or neither")
	}
	if len(targets) > 1 {
		return fail(exitInvalid, "capture one target at a time")
	}
	switch *method {
	case capture.Auto, capture.SlowLog, capture.PerfSchm:
	default:
		return fail(exitInvalid, "--method %q: want auto, slow_log or performance_schema", *method)
	}
	if *duration <= 0 || *from < 0 || *to < 0 || *to > 0 && *to <= *from {
		return fail(exitInvalid, "--duration must be more than 0, and --to (when given) more than --from")
	}
	filter := capture.Filter{Schemas: schemas, Users: users, From: *from, To: *to}
	// Written beside, renamed at the end: an interrupted capture never leaves half a file under the name.
	tmp, err := results.CreateAtomic(*out)
	if err != nil {
		return fail(exitFailed, "%v", err)
	}
	defer tmp.Abort()
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	var n int64
	var sessions int
	if *in != "" {
		n, sessions, err = convert(*in, tmp, filter, *skipMalformed, logf)
	} else {
		n, sessions, err = captureServer(ctx, targets[0], *method, *duration, tmp, filter, logf)
	}
	if err != nil {
		code := exitFailed
		var le *traffic.LineError
		if errors.As(err, &le) || errors.Is(err, traffic.ErrNewerVersion) {
			code = exitInvalid
		}
		return fail(code, "%v", err)
	}
	if err := tmp.Commit(); err != nil {
		return fail(exitFailed, "%v", err)
	}
	fmt.Fprintf(stdout, "%s: %d statements from %d sessions\n", *out, n, sessions)
	return exitOK
}

func captureServer(ctx context.Context, tv, method string, d time.Duration, out io.Writer, filter capture.Filter, logf func(string, ...any)) (int64, int, error) {
	ts, err := targetArgs([]string{tv}, hostTargets, func(format string, a ...any) { logf("quadrant capture: "+format, a...) })
	if err != nil {
		return 0, 0, err
	}
	name := ts[0].Name
	db, _, err := openDSN(name, ts[0].DSN)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	w, err := traffic.NewWriter(out, traffic.QCapHeader{Created: time.Now().UTC(), Target: name, Timed: true})
	if err != nil {
		return 0, 0, err
	}
	res, err := capture.Run(ctx, db, w, capture.Options{Duration: d, Method: method, Filter: filter, Logf: logf})
	if err != nil {
		return 0, 0, fmt.Errorf("target %s: %w", name, err)
	}
	logf("capture: %s through %s", name, res.Method)
	return res.Statements, res.Sessions, nil
}

// convert writes the statements of a log or capture file that pass the filter. The time window
// is measured from the file's first statement, read in file order.
func convert(path string, out io.Writer, filter capture.Filter, skip bool, logf func(string, ...any)) (int64, int, error) {
	f, err := traffic.Open(path, traffic.Options{SkipMalformed: skip, OnSkip: func(e *traffic.LineError) { logf("capture: skipped: %v", e) }})
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	w, err := traffic.NewWriter(out, traffic.QCapHeader{Created: time.Now().UTC(), Source: f.Format + " " + filepath.Base(path), Timed: f.Timed,
		EndOrder: f.EndOrder, State: f.State})
	if err != nil {
		return 0, 0, err
	}
	var first time.Time
	var n int64
	sessions := map[uint64]bool{}
	for {
		s, err := f.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
		if first.IsZero() {
			first = s.Start
		}
		if !filter.Keep(s, first) {
			continue
		}
		if err := w.Write(s); err != nil {
			return 0, 0, err
		}
		n++
		sessions[s.Session] = true
	}
	logf("capture: %s (%s) converted", path, f.Format)
	return n, len(sessions), w.Flush()
}
