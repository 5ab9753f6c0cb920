package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/reporters"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// runRequest is what run and rerun have in common.
type runRequest struct {
	plan    string
	sets    []string
	targets []string
	tls     multiFlag // --tls NAME=SPEC
	out     string
	resume  string
	allow   allowFlags
	gate    gateFlags
	keep    bool
	runAs   string
	command []string
	rerunOf string // the results folder a rerun runs again
	// finished, when set, is called with the new folder once its reports are written.
	finished func(dir string)
	// live metrics (--metrics-addr)
	metricsAddr   string
	metricsRemote bool
	metricsHold   time.Duration
	// a sharded run (--shard K/N --run-id ID)
	shardFlag      string
	shard          shard.Shard
	runID          string
	barrierDSN     string
	barrierTimeout time.Duration
	hold           time.Duration
}

// flags adds the options run and rerun share; --target values land in the returned list.
func (req *runRequest) flags(fs *flag.FlagSet) *multiFlag {
	targets := &multiFlag{}
	fs.Var(targets, "target", "point a target at your own server: `NAME=DSN` (repeatable)")
	fs.Var(&req.tls, "tls", "set target NAME's TLS without editing the plan: `NAME=SPEC`, SPEC a mode (disabled, preferred, required) or mode=verify-identity,ca=FILE[,cert=FILE,key=FILE][,server_name=NAME] (repeatable; the files are yours: they may be anywhere)")
	fs.StringVar(&req.out, "out", "", "results go under `DIR` instead of the plan's report.dir (a rerun: instead of results/, never the folder's report.dir)")
	req.allow.add(fs)
	req.gate.add(fs, true)
	fs.BoolVar(&req.keep, "keep", false, "keep sandbox data directories after the run")
	fs.StringVar(&req.runAs, "run-as", "", "OS `USER` sandbox servers run as when quadrant runs as root and the plan's sandbox names no run_as (default mysql; never root)")
	fs.StringVar(&req.metricsAddr, "metrics-addr", "", "serve the run live in the Prometheus format at http://`HOST:PORT`/metrics (loopback only unless --metrics-allow-remote)")
	fs.BoolVar(&req.metricsRemote, "metrics-allow-remote", false, "let --metrics-addr listen on an address other hosts can reach")
	fs.DurationVar(&req.metricsHold, "metrics-hold", 0, "after the run, keep serving the final values this `long` (Ctrl-C ends it), so a last scrape sees them")
	return targets
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", "PLAN [--set K=V]... [--target NAME=DSN]... [--tls NAME=SPEC]... [--out DIR] [--allow-shell] [--resume DIR]",
		"Runs a plan and writes its results folder (DIR/NAME/YYYYmmdd-HHMMSS): CSV summary and time series, latency\n"+
			"histograms, run.json, log.txt and report.html. Rows are written as they are measured, so an interrupted run\n"+
			"keeps everything up to its last second; --resume continues it.\n"+
			"Ctrl-C stops the workload, runs teardown, restores globals and writes the report (exit 130); a second Ctrl-C exits at once.\n"+
			"Exit codes: 0 done, 1 an assertion failed, 2 invalid plan or command line, 3 the run failed, 130 interrupted.", stdout, stderr)
	var req runRequest
	var sets multiFlag
	fs.Var(&sets, "set", "override a var: `vars.NAME=VALUE` or NAME=VALUE (repeatable)")
	fs.StringVar(&req.resume, "resume", "", "continue the interrupted run whose results folder is `DIR` (same plan and --set values)")
	fs.StringVar(&req.shardFlag, "shard", "", "run shard `K/N` of the load (worker ids i with i mod N = K, 1/N of rate and events, its tables of a prepare); shard 0 leads: setup, globals, steps, watchers. Needs --run-id; merge the shards' folders with quadrant merge")
	fs.StringVar(&req.runID, "run-id", "", "the `ID` every shard of one run shares (they meet under it; results go to DIR/NAME/ID/shard-K)")
	fs.StringVar(&req.barrierDSN, "barrier-dsn", "", "shards meet on this server (`DSN`) instead of the workload's target")
	fs.DurationVar(&req.hold, "hold", 0, "after the run, stay this `long` before exiting (Ctrl-C or SIGTERM ends it), so a pod without a shared volume can be asked for its folder: kubectl exec POD -- quadrant pack DIR > shard.tgz")
	fs.DurationVar(&req.barrierTimeout, "barrier-timeout", 10*time.Minute, "a shard gives up (exit 3) when the others have not all arrived at a barrier after this `long`")
	targets := req.flags(fs)
	plans, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(plans) != 1 {
		fmt.Fprintln(stderr, "quadrant run: give exactly one plan file, e.g. quadrant run plan.yaml")
		return exitInvalid
	}
	req.plan, req.sets, req.targets = plans[0], sets, *targets
	req.command = append([]string{"quadrant", "run"}, args...)
	if !req.gate.parse("run", stderr) {
		return exitInvalid
	}
	if req.gate.on() && req.gate.baseline == "" {
		fmt.Fprintln(stderr, "quadrant run: --fail-on judges the run against a baseline: add --baseline DIR (a results folder of the same plan)")
		return exitInvalid
	}
	if !req.parseShard("run", stderr) {
		return exitInvalid
	}
	return execute(req, stdout, stderr)
}

// parseShard reads --shard and --run-id into req.shard; false when they are wrong (said on
// stderr).
func (req *runRequest) parseShard(cmd string, stderr io.Writer) bool {
	if req.shardFlag != "" {
		sh, err := shard.Parse(req.shardFlag)
		if err != nil {
			fmt.Fprintf(stderr, "quadrant %s: %v\n", cmd, err)
			return false
		}
		if req.runID == "" {
			fmt.Fprintf(stderr, "quadrant %s: --shard %s needs --run-id ID, the same for every shard of the run (e.g. --run-id $(date +%%Y%%m%%d-%%H%%M))\n", cmd, sh)
			return false
		}
		if req.resume != "" {
			fmt.Fprintf(stderr, "quadrant %s: --resume cannot continue a shard: the other shards have moved on; start a new run id\n", cmd)
			return false
		}
		req.shard = sh
	} else if req.runID != "" {
		req.shard = shard.Shard{Index: 0, Count: 1}
	}
	return true
}

func runRerun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("rerun", "DIR [--target NAME=DSN]... [--tls NAME=SPEC]... [--set K=V]... [--out DIR] [--allow-shell]",
		"Runs again the plan of a results folder (its plan.yaml, with the data files it copied), for example a colleague's\n"+
			"published run on your own server: point its targets at yours with --target. Sandbox targets start locally as before.\n"+
			"Ends with the comparison of DIR with the new folder (quadrant compare DIR NEWDIR), printed and written into\n"+
			"the new folder as comparison.txt and comparison.html, then the reproduction of each effect DIR states\n"+
			"(reproduced, not reproduced, inconclusive), recorded as reproduction.json (docs/reproduce.md).", stdout, stderr)
	var req runRequest
	var sets multiFlag
	fs.Var(&sets, "set", "change a var of the folder's plan: `vars.NAME=VALUE` or NAME=VALUE (repeatable; the comparison names it)")
	record := fs.Bool("record", false, "also write the reproduction record (reproduction.json, the verdict on each effect DIR states) into DIR/reproductions/, to commit next to it; quadrant report DIR shows it")
	targets := req.flags(fs)
	dirs, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(dirs) != 1 {
		fmt.Fprintln(stderr, "quadrant rerun: give exactly one results folder, e.g. quadrant rerun results/flush-method/20261130-120000")
		return exitInvalid
	}
	info, err := results.ReadRunInfo(dirs[0])
	if err == nil {
		// plan.yaml and the data files it names are read by the plan loader, not through
		// results' readers: a link anywhere in the folder is refused before any is read.
		err = results.CheckFolder(dirs[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "quadrant rerun: %v\n", err)
		return exitInvalid
	}
	// A shard's folder holds a part of a run's load, which a rerun would compare with all
	// of it: only the merged folder stands for the run.
	if sh := info.Shard; sh != nil && sh.Count > 1 && len(sh.Merged) == 0 {
		fmt.Fprintf(stderr, "quadrant rerun: %s is shard %d/%d of run %s, a part of its load: merge the shards first (quadrant merge %s --out DIR) and rerun the merged folder\n",
			dirs[0], sh.Index, sh.Count, sh.RunID, filepath.Join(filepath.Dir(dirs[0]), "shard-*"))
		return exitInvalid
	}
	if !req.parseShard("rerun", stderr) || !req.gate.parse("rerun", stderr) {
		return exitInvalid
	}
	req.plan = filepath.Join(dirs[0], results.PlanFile)
	req.rerunOf = dirs[0]
	req.targets, req.sets = *targets, sets
	req.command = append([]string{"quadrant", "rerun"}, args...)
	published := dirs[0]
	if sh := info.Shard; sh != nil && len(sh.Merged) > 0 && !req.shard.Sharded() {
		fmt.Fprintf(stderr, "note: %s is the merge of %d shards of run %s; this rerun runs all of its load from this one process. For the same split, run quadrant rerun %s --shard K/%d --run-id ID on %d machines, merge them, and compare the merge with %s\n",
			published, sh.Count, sh.RunID, published, sh.Count, sh.Count, published)
	}
	req.finished = func(dir string) {
		if req.shard.Sharded() {
			fmt.Fprintf(stdout, "\n%s is shard %s of the rerun: once every shard is done, quadrant merge their folders --out DIR, then quadrant compare %s DIR\n", dir, req.shard, published)
			return
		}
		fmt.Fprintf(stdout, "\nCompared with %s:\n\n", published)
		if err := compareRerun(published, dir, *record, stdout); err != nil {
			fmt.Fprintf(stderr, "warning: comparison: %v (run it with: quadrant compare %s %s)\n", err, published, dir)
		}
	}
	if req.gate.on() && req.gate.baseline == "" {
		req.gate.baseline = published // a rerun's gate judges it against the folder it reran
	}
	return execute(req, stdout, stderr)
}

// colleagueServers says, one line each, which targets of a rerun's plan are servers given by
// DSN and not pointed elsewhere with --target: the colleague's servers, which this machine
// should not load (and whose password the folder does not have anyway). Sandboxes start here.
func colleagueServers(p *spec.Plan, overrides map[string]string) []string {
	var out []string
	for _, t := range p.Targets {
		if t.DSN == "" || overrides[t.Name] != "" {
			continue
		}
		out = append(out, fmt.Sprintf("target %s is the colleague's server (a DSN: %s): give yours with --target %s=DSN",
			t.Name, spec.RedactDSN(t.DSN), t.Name))
	}
	return out
}

// measuredAny is whether the run in dir started an iteration: a run that stopped before has
// nothing to compare.
func measuredAny(dir string) bool {
	ri, err := results.ReadRunInfo(dir)
	if err != nil {
		return false
	}
	for _, it := range ri.Iterations {
		if !it.Start.IsZero() {
			return true
		}
	}
	return false
}

// overridesOf records what the command line changed, for run.json; nil when nothing did.
func overridesOf(req runRequest, targets map[string]string) *results.Overrides {
	o := &results.Overrides{Set: req.sets, RerunOf: req.rerunOf}
	for _, name := range sortedNames(targets) {
		o.Targets = append(o.Targets, name+"="+spec.RedactDSN(targets[name]))
	}
	if req.rerunOf != "" {
		if prev, err := results.ReadRunInfo(req.rerunOf); err == nil {
			o.RerunOfIdentity = prev.PlanIdentity
		}
		if abs, err := filepath.Abs(req.rerunOf); err == nil {
			o.RerunOf = abs
		}
	}
	if len(o.Set) == 0 && len(o.Targets) == 0 && o.RerunOf == "" {
		return nil
	}
	return o
}

// tlsFlags reads --tls NAME=SPEC: its files made absolute (they are the user's, named from
// the working directory, and read where they are; spec marks such a tls: Given).
func (req *runRequest) tlsFlags() (map[string]spec.TLSFlag, error) {
	out := map[string]spec.TLSFlag{}
	for _, kv := range req.tls {
		name, raw, ok := strings.Cut(kv, "=")
		if !ok || name == "" || raw == "" {
			return nil, fmt.Errorf("--tls %q: want NAME=SPEC, e.g. --tls db=disabled or --tls db=mode=verify-identity,ca=ca.pem", kv)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--tls %s is given twice: give each target once", name)
		}
		f, err := spec.ParseTLSFlag(raw)
		if err != nil {
			return nil, fmt.Errorf("--tls %s: %w", name, err)
		}
		for _, path := range []*string{&f.CA, &f.Cert, &f.Key} {
			if *path == "" {
				continue
			}
			abs, err := filepath.Abs(*path)
			if err != nil {
				return nil, fmt.Errorf("--tls %s: %w", name, err)
			}
			*path = abs // the user's file, read where it is: no directory is allowed for it
		}
		out[name] = f
	}
	return out, nil
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func execute(req runRequest, stdout, stderr io.Writer) int {
	pr, code := req.prepare(stderr)
	if code != 0 {
		return code
	}
	// A gated run warns of too few repeats before it runs them: its verdict depends on them.
	// An ungated matrix is often a first look (make demo's); validate and explain say it.
	if w := repeatWarning(pr.p, true); w != "" && req.gate.on() {
		fmt.Fprintln(stderr, w)
	}
	dir, prev, code := resultsDir(req, pr.p, pr.sha, stderr)
	if code != 0 {
		return code
	}
	w, err := results.Create(dir)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant: nothing was run: %v\nChoose a folder you can write with --out DIR (or report.dir in the plan).\n", err)
		return exitInvalid
	}
	// The driver reports dropped connections (after a restart, say) on its own logger:
	// they belong in log.txt, not between the interval lines.
	mysql.SetLogger(driverLog{w})
	if err := copyPlanFiles(pr.p, w); err != nil {
		w.Logf("warning: %v", err)
		fmt.Fprintf(stderr, "warning: %v\n", err)
	}
	fmt.Fprintf(stdout, "results: %s\n", dir)

	con := &console{out: stdout, err: stderr, tty: isTerminalWriter(stderr)}
	defer con.done()
	var obs executor.Observer = con
	if req.metricsAddr != "" {
		live := newLiveMetrics(pr.p.Name)
		addr, stop, err := serveMetrics(req.metricsAddr, live)
		if err != nil {
			fmt.Fprintf(stderr, "quadrant: nothing was run: %v\n", err)
			return exitInvalid
		}
		defer stop()
		fmt.Fprintf(stdout, "metrics: http://%s/metrics\n", addr)
		obs = tee{con, live}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer onInterrupt(cancel, stderr, dir, req.keep, con)()

	eo := executor.Options{
		Allow: pr.allow, Observer: obs, Version: buildVersion(), PlanFile: req.plan, PlanYAML: pr.yaml, PlanSHA: pr.sha,
		PlanIdentity: pr.identity, Overrides: pr.over,
		Command: redactArgs(pr.p, req.command), KeepSandboxes: req.keep, SandboxRunAs: req.runAs, Previous: prev,
		Shard: req.shard, RunID: req.runID, BarrierDSN: req.barrierDSN, BarrierTimeout: req.barrierTimeout,
	}
	outcome, runErr := executor.Run(ctx, pr.p, w, eo)
	con.done()
	if req.keep {
		fmt.Fprint(stdout, keptText(con.sandboxDirs()))
	}
	if err := w.Close(); err != nil {
		fmt.Fprintf(stderr, "warning: close results: %v\n", err)
	}
	var ref *trust.Refusal
	if errors.As(runErr, &ref) {
		fmt.Fprintf(stderr, "quadrant: %v\n", runErr)
		return exitInvalid
	}
	if runErr != nil && prev == nil && !req.shard.Sharded() && !measuredAny(dir) {
		dropEmptyFolder(dir, stderr)
		fmt.Fprintf(stderr, "quadrant: the run failed before it measured anything: %v\n", runErr)
		return exitCode(outcome, runErr)
	}
	writeReports(dir, stdout, stderr)
	if runErr != nil {
		fmt.Fprintf(stderr, "quadrant: the run failed: %v\n", runErr)
	}
	return req.finish(ctx, dir, exitCode(outcome, runErr), stdout, stderr)
}

// prepared is a plan loaded and allowed to run, with what the folder records of it.
type prepared struct {
	p             *spec.Plan
	yaml          []byte
	sha, identity string
	over          *results.Overrides
	allow         trust.Allow
}

// prepare loads the plan with the command line's overrides and checks everything that
// must hold before a results folder exists: the shards, a rerun's servers, the trust
// check (a terminal's "y" for one's own plan's code), the copy limit, the metrics address.
func (req runRequest) prepare(stderr io.Writer) (prepared, int) {
	overrides, err := targetOverrides(req.targets, stderrf(stderr, "quadrant: "))
	if err != nil {
		fmt.Fprintf(stderr, "quadrant: %v\n", err)
		return prepared{}, exitInvalid
	}
	tlsFlags, err := req.tlsFlags()
	if err != nil {
		fmt.Fprintf(stderr, "quadrant: %v\n", err)
		return prepared{}, exitInvalid
	}
	opts := spec.Options{Set: req.sets, Targets: overrides, TLS: tlsFlags}
	if req.resume != "" {
		opts.Order = resumedOrder(req.resume)
	}
	p, err := loadPlan(req.plan, req.allow.options(req.plan, opts))
	if err == nil {
		if errs := shard.Validate(p, req.shard.Count); len(errs) > 0 {
			err = errs.Tidy()
		}
	}
	if err != nil {
		printLoadError(stderr, err)
		return prepared{}, exitInvalid
	}
	if req.rerunOf != "" {
		if lines := colleagueServers(p, overrides); len(lines) > 0 {
			fmt.Fprintf(stderr, "quadrant rerun: nothing was run:\n  %s\n", strings.Join(lines, "\n  "))
			return prepared{}, exitInvalid
		}
	}
	pr := prepared{p: p, over: overridesOf(req, overrides)}
	if pr.yaml, err = p.Redacted(); err != nil {
		fmt.Fprintf(stderr, "quadrant: render the resolved plan: %v\n", err)
		return prepared{}, exitFailed
	}
	sum := sha256.Sum256(pr.yaml)
	pr.sha = hex.EncodeToString(sum[:])
	if pr.identity, err = spec.PlanIdentity(pr.yaml); err != nil {
		fmt.Fprintf(stderr, "quadrant: the resolved plan does not read back: %v\n", err)
		return prepared{}, exitFailed
	}
	pr.allow = req.allow.allow(req.plan, req.out)
	if ref := trust.Check(p, pr.allow); ref != nil {
		// A yes on a terminal stands for --allow-shell for one's own plan; a stranger's
		// folder gets only what the command line allows.
		if pr.allow.Folder || !onlyCode(ref) || !isTerminal(os.Stdin) || !confirm(stderr, ref.Items) {
			printRefusal(stderr, ref, req.plan)
			// What the servers the user named would refuse next belongs in the same
			// message: asking them touches nothing of theirs (sandboxes cannot be asked
			// before they start).
			explainAccounts(stderr, io.Discard, p, overrides, true)
			return prepared{}, exitInvalid
		}
		pr.allow.Shell = true
	}
	if err := checkCopies(p, req.allow.copyLimit.limit()); err != nil {
		fmt.Fprintf(stderr, "quadrant: nothing was run: %v\n", err)
		return prepared{}, exitInvalid
	}
	if req.metricsAddr != "" {
		if err := checkMetricsAddr(req.metricsAddr, req.metricsRemote); err != nil {
			fmt.Fprintf(stderr, "quadrant: nothing was run: %v\n", err)
			return prepared{}, exitInvalid
		}
	}
	if req.rerunOf != "" {
		// once the folder passed every check: a refused folder connects to nothing
		warnRerunDifferences(req, p, overrides, stderr)
	}
	return pr, 0
}

// onInterrupt makes the first Ctrl-C (or SIGTERM) stop the run in order and the second
// exit at once; the returned func stops listening.
func onInterrupt(cancel func(), stderr io.Writer, dir string, keep bool, con *console) func() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sigs; !ok {
			return
		}
		fmt.Fprintln(stderr, "\ninterrupted: stopping the workload, then teardown, restoring globals and writing the report (Ctrl-C again to exit at once)")
		cancel()
		if _, ok := <-sigs; ok {
			dirs := con.sandboxDirs()
			fmt.Fprint(stderr, exitNowText(dir, keep, dirs))
			if !keep {
				for _, d := range dirs {
					os.RemoveAll(d)
				}
			}
			os.Exit(exitSignaled)
		}
	}()
	return func() { signal.Stop(sigs) }
}

// exitNowText is what a second Ctrl-C says as quadrant exits at once: where the results
// are and, with --keep, where each sandbox's data stays (outside the results folder).
func exitNowText(dir string, keep bool, sandboxes []string) string {
	text := "exiting now; sandboxes die with quadrant, and what was measured is in " + dir + "\n"
	if keep {
		text += keptText(sandboxes)
	}
	return text
}

// keptText says where each sandbox --keep kept is, a line each ("sandbox kept in DIR"):
// outside the results folder, where only log.txt would say otherwise.
func keptText(sandboxes []string) string {
	var b strings.Builder
	for _, d := range sandboxes {
		fmt.Fprintf(&b, "sandbox kept in %s\n", d)
	}
	if len(sandboxes) > 0 {
		b.WriteString("(kept sandboxes are outside the results folder, their servers stopped: remove them when done)\n")
	}
	return b.String()
}

// writeReports writes the folder's reports and ends its log with them: a log that says
// where the report is belongs to a run that finished.
func writeReports(dir string, stdout, stderr io.Writer) {
	written, rerr := reporters.Rebuild(dir, buildVersion())
	for _, path := range written {
		if filepath.Base(path) == results.ReportFile {
			fmt.Fprintf(stdout, "report: %s\n", path)
		}
	}
	logged := fmt.Sprintf("reports written: %s", strings.Join(written, ", "))
	if rerr != nil {
		fmt.Fprintf(stderr, "warning: reports: %v (rebuild with: quadrant report %s)\n", rerr, dir)
		logged = fmt.Sprintf("warning: reports: %v (rebuild with: quadrant report %s)", rerr, dir)
	} else if len(written) == 0 {
		logged = "no reports asked for (report.formats)"
	}
	if err := results.AppendLog(dir, "%s", logged); err != nil {
		fmt.Fprintf(stderr, "warning: %s: %v\n", results.LogFile, err)
	}
}

// finish does what follows a run that measured: rerun's comparison, the gate, the holds
// (metrics and folder); code is the run's own exit code.
func (req runRequest) finish(ctx context.Context, dir string, code int, stdout, stderr io.Writer) int {
	if req.finished != nil {
		if measuredAny(dir) {
			req.finished(dir)
		} else {
			fmt.Fprintf(stderr, "no comparison: the run stopped before its first iteration (see %s)\n", filepath.Join(dir, results.LogFile))
		}
	}
	gateCode := exitOK
	if req.gate.on() && !req.shard.Sharded() && measuredAny(dir) {
		gc, err := req.gate.judgeFolders(req.gate.baseline, dir, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "quadrant: gate against %s: %v\n", req.gate.baseline, err)
			return exitFailed
		}
		gateCode = gc
	}
	if req.metricsAddr != "" && req.metricsHold > 0 && ctx.Err() == nil {
		fmt.Fprintf(stdout, "metrics: serving the final values for %s (Ctrl-C ends it)\n", req.metricsHold)
		hold(ctx, req.metricsHold)
	}
	if req.hold > 0 && ctx.Err() == nil {
		fmt.Fprintf(stdout, "holding for %s: copy the results with quadrant pack %s > %s.tgz\n", req.hold, dir, filepath.Base(dir))
		hold(ctx, req.hold)
	}
	if code != exitOK {
		return code
	}
	return gateCode // the run passed: the gate's failed, inconclusive or passed
}

// hold waits d or until ctx ends (Ctrl-C).
func hold(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

func exitCode(o *executor.Outcome, runErr error) int {
	switch {
	case o != nil && o.Status == results.StatusInterrupted:
		return exitSignaled
	case errors.As(runErr, new(*executor.PlanError)):
		return exitInvalid // the plan names what the server lacks: fix the plan, as for validate
	case runErr != nil || o == nil || o.ErrorsFailed > 0:
		return exitFailed
	case o.AssertionsFailed > 0:
		return exitAssert
	}
	return exitOK
}

// defaultResultsRoot is where results go when neither --out nor (for run) report.dir says.
const defaultResultsRoot = "results"

// resultsRoot is the folder new results go under: --out, else the plan's report.dir on a
// run of one's own plan. A rerun's plan came with someone's folder, so its report.dir
// (which could name any directory the victim can write) is only said, never honoured:
// only the user's command line picks where results are written.
func resultsRoot(req runRequest, p *spec.Plan, stderr io.Writer) string {
	if req.out != "" {
		return req.out
	}
	// A results folder's plan is a stranger's whichever command runs it: only the user's
	// own plan chooses where results go.
	if req.rerunOf == "" && !folder(req.plan) {
		return p.Report.Dir
	}
	if d := p.Report.Dir; d != "" && filepath.Clean(d) != defaultResultsRoot {
		who := "a rerun"
		if req.rerunOf == "" {
			who = "a run of a results folder's plan"
		}
		fmt.Fprintf(stderr, "note: the folder's plan has report.dir %s; %s writes under %s/ (choose with --out DIR)\n",
			results.Printable(d), who, defaultResultsRoot)
	}
	return defaultResultsRoot
}

// dropEmptyFolder removes the results folder of a run that failed before its first
// iteration (a pre-flight refusal, a target that did not answer): it holds no measurement,
// and a results/ that users commit should not fill with such folders. Its log is printed
// instead, the part that says what happened.
func dropEmptyFolder(dir string, stderr io.Writer) {
	if log, err := results.ReadFileIn(dir, results.LogFile); err == nil {
		lines := strings.Split(strings.TrimRight(string(log), "\n"), "\n")
		if len(lines) > 20 {
			lines = lines[len(lines)-20:]
		}
		for i, l := range lines {
			lines[i] = results.Printable(l)
		}
		fmt.Fprintf(stderr, "%s is removed: nothing was measured, so no results folder is kept. The end of its log:\n  %s\n", dir, strings.Join(lines, "\n  "))
	} else {
		fmt.Fprintf(stderr, "%s is removed: nothing was measured, so no results folder is kept\n", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(stderr, "warning: remove %s: %v\n", dir, err)
		return
	}
	os.Remove(filepath.Dir(dir)) // results/NAME, when this was its only run
}

// resumedOrder is the order of repeats the run being resumed started in, which its
// iteration numbers follow: run.json's, or sequential for a folder from before run.json
// recorded it (the default then); "" when run.json does not read (resultsDir says why).
func resumedOrder(dir string) string {
	prev, err := results.ReadRunInfo(dir)
	switch {
	case err != nil:
		return ""
	case prev.Order == nil || prev.Order.Kind == "":
		return spec.OrderSequential
	}
	return prev.Order.Kind
}

// resultsDir is a new folder under --out (or report.dir), or the folder being resumed
// after checking it ran the same plan.
func resultsDir(req runRequest, p *spec.Plan, sha string, stderr io.Writer) (string, *results.RunInfo, int) {
	if req.resume == "" {
		root := resultsRoot(req, p, stderr)
		if req.runID != "" {
			dir, err := results.NewShardDir(root, p.Name, req.runID, req.shard.Index)
			if err != nil {
				fmt.Fprintf(stderr, "quadrant: nothing was run: %v\n", err)
				return "", nil, exitInvalid
			}
			return dir, nil, 0
		}
		dir, err := results.NewDir(root, p.Name, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "quadrant: nothing was run: %v\nChoose a folder you can write with --out DIR (or report.dir in the plan).\n", err)
			return "", nil, exitInvalid
		}
		return dir, nil, 0
	}
	prev, err := results.ReadRunInfo(req.resume)
	if err == nil {
		err = results.CheckFolder(req.resume) // a link in it would be read, or written through
	}
	if err != nil {
		fmt.Fprintf(stderr, "quadrant: --resume: %v\n", err)
		return "", nil, exitInvalid
	}
	if prev.PlanSHA256 != sha {
		fmt.Fprintf(stderr, "quadrant: --resume %s: that run used another resolved plan (sha256 %.12s, this one %.12s).\n"+
			"Resume needs the same plan file and the same --set values; to run this plan, start a new run without --resume.\n",
			req.resume, prev.PlanSHA256, sha)
		return "", nil, exitInvalid
	}
	if results.Finished(prev.Status) {
		fmt.Fprintf(stderr, "quadrant: --resume %s: that run finished (%s); nothing to resume\n", req.resume, prev.Status)
		return "", nil, exitInvalid
	}
	keep := map[int]bool{}
	for _, it := range prev.Iterations {
		if results.Finished(it.Status) {
			keep[it.Index] = true
		}
	}
	if err := results.KeepIterations(req.resume, keep); err != nil {
		fmt.Fprintf(stderr, "quadrant: --resume: %v\n", err)
		return "", nil, exitFailed
	}
	return req.resume, prev, 0
}

// redactArgs hides DSN passwords (--target) and env values from the command line kept in run.json.
func redactArgs(p *spec.Plan, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if name, dsn, ok := strings.Cut(a, "="); ok && strings.Contains(dsn, "@") {
			a = name + "=" + spec.RedactDSN(dsn)
		} else if strings.Contains(a, "@") {
			a = spec.RedactDSN(a)
		}
		out[i] = p.Redact(a)
	}
	return out
}

// driverLog sends go-sql-driver/mysql's messages to log.txt.
type driverLog struct{ w *results.Writer }

func (d driverLog) Print(v ...any) { d.w.Logf("mysql driver: %s", fmt.Sprint(v...)) }

// isTerminalWriter is whether w is a terminal (not a pipe, a file or a test's buffer).
func isTerminalWriter(w io.Writer) bool {
	f, ok := rawWriter(w).(*os.File)
	return ok && isTerminal(f)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// confirm lists the privileged actions and asks for a yes on the terminal.
func confirm(w io.Writer, items []trust.Item) bool {
	fmt.Fprintf(w, "The plan runs code on this host:\n")
	for _, it := range items {
		fmt.Fprintf(w, "  %s: %s\n", it.Effect.Pos, results.Printable(it.Effect.What))
	}
	fmt.Fprintf(w, "Run them? [y/N] ")
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes"
}
