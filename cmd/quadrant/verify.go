package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/executor/verify"
	"github.com/quadrant-bench/quadrant/reporters"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify", "TRAFFIC --target base=DSN --target new=DSN --out DIR",
		"Runs the captured reads of TRAFFIC (slow log, general log, capture file) on every target, in each statement's\n"+
			"captured default database, and compares each target with the first: per statement fingerprint, whether the\n"+
			"rows (an order-insensitive checksum unless the statement has a top-level ORDER BY), row counts, warnings and\n"+
			"errors are the same, and whether EXPLAIN FORMAT=JSON chose the same plan. Then times each fingerprint --repeat\n"+
			"times on every target, in rounds spread over at least 5 s, one statement at a time interleaved between them: its\n"+
			"latency is faster or slower when the median change of its runs, paired, is at least --min-change and its 95%\n"+
			"bootstrap interval lies beyond half of it, else same. Writes DIR/queries.csv, query-details.jsonl, report.html,\n"+
			"run.json and log.txt. Only reads run (read_only's rule) unless --writes; statements calling\n"+
			"NOW(), RAND()... are not_comparable. See docs/verify.md.", stdout, stderr)
	var targets multiFlag
	fs.Var(&targets, "target", "a server, `NAME=DSN`; the first is the base the others are compared with")
	out := fs.String("out", "", "the results folder to write (`DIR`)")
	sample := fs.Int("sample", verify.DefaultSample, "statements run per fingerprint (at most), drawn at random with --seed")
	seed := fs.Uint64("seed", 1, "the seed of the sample")
	format := fs.String("format", "auto", "the traffic's format: "+strings.Join(traffic.Formats, ", "))
	repeat := fs.Int("repeat", verify.DefaultRepeat, "timed runs of each fingerprint on each target (fewer for a statement of seconds: docs/verify.md); 0 times nothing")
	minChange := fs.Float64("min-change", verify.DefaultMinChange, "the least change of the mean latency, in `PERCENT`, called faster or slower")
	writes := fs.Bool("writes", false, "run the captured writes too, in captured order, on every target, and compare their affected rows: use throwaway copies")
	pos, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "quadrant verify: "+format+"\n", a...)
		return code
	}
	if msg := verifyArgs(pos, *out, len(targets), *sample, *repeat, *minChange); msg != "" {
		return fail(exitInvalid, "%s", msg)
	}
	ts, err := targetArgs(targets, hostTargets, stderrf(stderr, "quadrant verify: "))
	if err != nil {
		return fail(exitInvalid, "%v", err)
	}
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	vts, infos, code, err := openVerifyTargets(ctx, ts)
	defer func() {
		for _, t := range vts {
			t.DB.Close()
		}
	}()
	if err != nil {
		return fail(code, "%v", err)
	}
	w, err := results.Create(*out)
	if err != nil {
		return fail(exitFailed, "%v", err)
	}
	defer w.Close()
	host, _ := os.Hostname()
	info := &results.RunInfo{Tool: "quadrant", Version: buildVersion(), Plan: "verify", PlanFile: pos[0], Host: host,
		Command: append([]string{"quadrant", "verify"}, redactArgs(&spec.Plan{}, args)...), Start: time.Now().UTC(), Status: results.StatusRunning, Targets: infos}
	if err := w.WriteRunInfo(info); err != nil {
		return fail(exitFailed, "%v", err)
	}
	sum, err := verify.Run(ctx, verify.Options{Traffic: pos[0], Format: *format, Targets: vts, Sample: *sample, Seed: *seed, Out: w,
		Repeat: *repeat, MinChange: *minChange, Writes: *writes,
		Logf: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }})
	end := time.Now().UTC()
	info.End, info.Status = &end, results.StatusDone
	if err != nil {
		info.Status, info.Error = results.StatusFailed, err.Error()
	}
	if werr := w.WriteRunInfo(info); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		code := exitFailed
		var le *traffic.LineError
		if errors.As(err, &le) {
			return fail(exitInvalid, "%v\n  fix or remove that record, or copy the traffic without its malformed records: quadrant capture --in %s --out clean.qcap --skip-malformed", err, pos[0])
		}
		return fail(code, "%v", err)
	}
	// queries.csv is on disk whatever happens to the page: a report that fails is said, and
	// `quadrant report DIR` draws it again.
	if err := w.Close(); err != nil {
		return fail(exitFailed, "%v", err)
	}
	report := results.QueriesFile
	if paths, err := reporters.Rebuild(*out, buildVersion()); err != nil {
		fmt.Fprintf(stderr, "quadrant verify: the report: %v (queries.csv is complete; try quadrant report %s)\n", err, *out)
	} else if len(paths) > 0 {
		report = paths[0]
	}
	fmt.Fprintf(stdout, "%s: %d fingerprints (%d statements), %d differ, %d slower; see %s\n", *out, sum.Fingerprints, sum.Statements, sum.Different, sum.Slower, report)
	return exitOK
}

// verifyArgs says what is wrong with verify's arguments, "" when nothing: checked before
// connecting to anything or making the folder, since a mistyped path is the usual mistake.
func verifyArgs(pos []string, out string, targets, sample, repeat int, minChange float64) string {
	switch {
	case len(pos) != 1:
		return "give one TRAFFIC file, e.g. quadrant verify slow.log --target base=DSN --target new=DSN --out verify-1"
	case out == "":
		return "--out DIR is required: the folder queries.csv is written to"
	}
	if fi, err := os.Stat(pos[0]); err != nil || fi.IsDir() {
		return fmt.Sprintf("TRAFFIC %s: no such file; give the slow log, general log or capture file (quadrant capture --out) to verify", pos[0])
	}
	switch {
	case targets < 2:
		return "give two --target NAME=DSN or more: the first is the base, the others are compared with it"
	case sample <= 0:
		return "--sample must be 1 or more"
	case repeat < 0 || repeat == 1:
		return "--repeat must be 2 or more (one run says nothing of the noise), or 0 to time nothing"
	case !(minChange >= 0):
		return "--min-change must be 0 or more percent, e.g. --min-change 10"
	}
	return ""
}

// openVerifyTargets connects to each target and asks its version; the caller closes the
// targets' pools, also on an error (those opened so far are returned).
func openVerifyTargets(ctx context.Context, ts []targetArg) ([]verify.Target, []results.TargetInfo, int, error) {
	var vts []verify.Target
	var infos []results.TargetInfo
	for _, t := range ts {
		db, dsn, err := openDSN(t.Name, t.DSN)
		if err != nil {
			return vts, nil, exitInvalid, err
		}
		vts = append(vts, verify.Target{Name: t.Name, DB: db})
		infos = append(infos, results.TargetInfo{Name: t.Name, Kind: "dsn", Address: dsn.String()})
	}
	for i, t := range vts {
		if err := t.DB.QueryRowContext(ctx, "SELECT VERSION()").Scan(&infos[i].ServerVersion); err != nil {
			return vts, nil, exitFailed, fmt.Errorf("target %s: %v (check the DSN and that the server is up)", t.Name, err)
		}
	}
	return vts, infos, 0, nil
}
