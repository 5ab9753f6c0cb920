package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/step/setglobal"
	"github.com/quadrant-bench/quadrant/spec/sqltext"

	"github.com/quadrant-bench/quadrant/spec"
)

const privileged = "  [needs --allow-shell]"

// explainer prints what a plan does and adds up the time it will take.
type explainer struct {
	w          io.Writer
	p          *spec.Plan
	upper      time.Duration // workloads + warmups + sleeps + wait timeouts
	loadRows   int64         // rows that builtin prepares load, and about how many bytes
	loadBytes  int64
	loadTime   time.Duration // at loadRate per loading thread
	unbounded  int           // workloads whose length is not known in advance
	privileged int
}

func explain(w io.Writer, p *spec.Plan) {
	e := &explainer{w: w, p: p}
	e.header()
	e.printf("\nExecution order:\n")
	e.steps("setup", p.Setup, "  ")
	e.snapshot()
	var prevConfig = map[string]string{}
	for i := range p.Iterations {
		e.iteration(&p.Iterations[i], prevConfig)
	}
	e.steps("teardown", p.Teardown, "  ")
	e.footer()
}

// estimate is explain's estimate of how long p runs, at most (workloads, warmups, sleeps,
// wait timeouts and data loads), and how many workloads have no known length (events only).
func estimate(p *spec.Plan) (upper time.Duration, unbounded int) {
	e := &explainer{w: io.Discard, p: p}
	e.steps("setup", p.Setup, "")
	prev := map[string]string{}
	for i := range p.Iterations {
		e.iteration(&p.Iterations[i], prev)
	}
	e.steps("teardown", p.Teardown, "")
	return e.upper + e.loadTime, e.unbounded
}

func (e *explainer) printf(format string, args ...any) {
	fmt.Fprintf(e.w, "%s", e.p.Redact(fmt.Sprintf(format, args...)))
}

func (e *explainer) header() {
	p := e.p
	e.printf("Plan %s (%s)\n", p.Name, p.File)
	if p.Description != "" {
		e.printf("  %s\n", p.Description)
	}
	e.printf("\nTargets:\n")
	for _, t := range p.Targets {
		switch {
		case t.Sandbox != nil:
			e.printf("  %-20s sandbox, flavor %s", t.Name, t.Sandbox.Flavor)
			if t.Sandbox.Replicas > 0 {
				var names []string
				for r := 1; r <= t.Sandbox.Replicas; r++ {
					names = append(names, spec.ReplicaName(t.Name, r))
				}
				e.printf(", %d %s replica(s): %s", t.Sandbox.Replicas, t.Sandbox.Replication, strings.Join(names, ", "))
			}
			if t.Sandbox.Galera > 0 {
				e.printf(", %s", galeraLine(t))
			}
			e.printf("\n")
			if len(t.Sandbox.Config) > 0 {
				e.printf("  %-20s my.cnf: %s\n", "", t.Sandbox.Config.String())
			}
			if t.Sandbox.Links != nil {
				e.printf("  %-20s links: %s (proxies of quadrant's on 127.0.0.1, shaped per iteration; docs/network.md)\n", "", linkNames(t))
			}
		default:
			e.printf("  %-20s %s\n", t.Name, spec.RedactDSN(t.DSN))
			if t.TLS != nil {
				e.printf("  %-20s tls: mode %s\n", "", t.TLS.Mode)
			}
			if t.AllowPublicKeyRetrieval {
				e.printf("  %-20s allow_public_key_retrieval: the password goes to whoever hands over a public key\n", "")
			}
		}
		if t.SNMP != nil {
			e.printf("  %-20s snmp v%s at %s\n", "", t.SNMP.Version, t.SNMP.Address)
		}
	}
	for _, n := range p.OverrideNotes() {
		e.printf("  %s\n", n)
	}
	cells := len(p.Matrix.Cells())
	repeat := max(p.Repeat, 1)
	var axes []string
	for _, a := range p.Matrix.Axes {
		axes = append(axes, fmt.Sprintf("%s (%d)", a.Name, len(a.Values)))
	}
	e.printf("\nIterations: %d = %d matrix cell(s) x repeat %d (last axis varies fastest)\n", len(p.Iterations), cells, repeat)
	e.printf("  order: %s", orderText(p))
	if n := restarts(p.Iterations); n > 0 {
		e.printf("; %d server restart(s) for server_config", n)
		if p.Order != spec.OrderSequential && p.Order != "" {
			// sequential order is the same runs sorted by cell, then repeat
			seq := append([]spec.Iteration(nil), p.Iterations...)
			sort.SliceStable(seq, func(i, j int) bool {
				if seq[i].Cell != seq[j].Cell {
					return seq[i].Cell < seq[j].Cell
				}
				return seq[i].Repeat < seq[j].Repeat
			})
			e.printf(" (sequential would need %d)", restarts(seq))
		}
	}
	e.printf("\n")
	if w := repeatWarning(p, false); w != "" {
		e.printf("  %s\n", w)
	}
	if len(axes) > 0 {
		e.printf("  axes: %s", strings.Join(axes, ", "))
		if len(p.Matrix.Exclude) > 0 {
			e.printf("; %d exclude", len(p.Matrix.Exclude))
		}
		if len(p.Matrix.Include) > 0 {
			e.printf("; %d include", len(p.Matrix.Include))
		}
		e.printf("\n")
	}
	width := 0
	for _, it := range p.Iterations {
		width = max(width, len(cell(it.Matrix)))
	}
	for _, it := range p.Iterations {
		e.printf("  %3d  %-*s  repeat %d\n", it.Index, width, cell(it.Matrix), it.Repeat)
	}
	if len(p.Unbound) > 0 {
		e.printf("\nNote: the address of %s is known only once it runs; shown as <port of NAME>.\n", strings.Join(p.Unbound, ", "))
	}
}

func orderText(p *spec.Plan) string {
	switch p.Order {
	case spec.OrderInterleaved:
		return "interleaved (one run of every cell, then the next)"
	case spec.OrderRandom:
		return fmt.Sprintf("random (order_seed %d)", p.OrderSeed)
	}
	return "sequential (a cell's repeats back to back)"
}

// restarts counts the iterations whose server_config differs from the one their target
// last ran with: each restarts the server before it runs.
func restarts(its []spec.Iteration) int {
	last := map[string]string{}
	n := 0
	for _, it := range its {
		if len(it.ServerConfig) == 0 {
			continue
		}
		cfg := it.ServerConfig.String()
		if last[it.Target] != cfg {
			n++
		}
		last[it.Target] = cfg
	}
	return n
}

func cell(c []spec.AxisValue) string {
	if len(c) == 0 {
		return "(no matrix)"
	}
	parts := make([]string, len(c))
	for i, av := range c {
		parts[i] = fmt.Sprintf("%s=%v", av.Axis, av.Value)
	}
	return strings.Join(parts, " ")
}

func (e *explainer) iteration(it *spec.Iteration, prevConfig map[string]string) {
	e.printf("\nIteration %d/%d: %s, repeat %d, target %s\n", it.Index, len(e.p.Iterations), cell(it.Matrix), it.Repeat, it.Target)
	const in = "    "
	for _, name := range sortedNames(it.SandboxDirs) {
		dir, key := it.SandboxDirs[name], "sandbox.dir "+name // prevConfig also keeps where each sandbox is
		switch prev, ok := prevConfig[key]; {
		case !ok:
			e.printf("  sandbox %s: data under %s\n", name, dir)
		case prev != dir:
			e.printf("  sandbox %s: moves to %s (a restart; its data goes along)\n", name, dir)
		}
		prevConfig[key] = dir
	}
	e.links(it, prevConfig)
	e.restore(it)
	if len(it.ServerConfig) > 0 {
		cfg := it.ServerConfig.String()
		if prevConfig[it.Target] != cfg {
			e.printf("  server_config: restart %s with %s\n", it.Target, cfg)
			e.restartNote(it.Target, in)
		} else {
			e.printf("  server_config: unchanged, no restart\n")
		}
		prevConfig[it.Target] = cfg
	}
	if len(it.Globals) > 0 {
		e.printf("  globals on %s:\n", it.Target)
		for _, kv := range it.Globals {
			e.printf("%sSET GLOBAL %s = %s\n", in, kv.Name, setglobal.SQLValue(kv.Value))
		}
	}
	e.steps("before", it.Before, "  ")
	if w := it.Workload; w != nil {
		e.printf("  workload (measured) on %s: %s\n", it.Target, e.workload(w))
		if line := spreadLine(e.p, it.Target, w); line != "" {
			e.printf("    %s\n", line)
		}
	}
	if len(it.During) > 0 {
		during := append([]spec.Step(nil), it.During...)
		sort.SliceStable(during, func(i, j int) bool { return during[i].At < during[j].At })
		e.printf("  during the workload:\n")
		for i := range during {
			e.step(&during[i], in, fmt.Sprintf("at +%s: ", during[i].At))
		}
	}
	e.steps("after", it.After, "  ")
	for _, a := range it.Assert {
		e.printf("  assert: %s\n", a.Source)
	}
}

// snapshot says which sandboxes' data is copied when setup ends, for the iterations' restore:.
func (e *explainer) snapshot() {
	want := map[string]bool{}
	for i := range e.p.Iterations {
		for _, name := range e.p.RestoreTargets(e.p.Iterations[i].Restore) {
			want[name] = true
		}
	}
	for _, t := range e.p.Targets {
		if t.Sandbox == nil || !want[t.Name] {
			continue
		}
		with := ""
		if t.Sandbox.Replicas > 0 {
			with = fmt.Sprintf(" (its %d replica(s) too, caught up first)", t.Sandbox.Replicas)
		}
		e.printf("  after setup, for restore: sandbox %s is stopped%s, its datadir copied inside its own directory (a reflink per file where the filesystem can clone, else a full copy), and started again\n", t.Name, with)
	}
}

// restore says how the iteration's targets come back to the end of setup.
func (e *explainer) restore(it *spec.Iteration) {
	r := it.Restore
	if r == nil {
		return
	}
	if it.Index == 1 {
		e.printf("  restore: none before the first iteration: it starts from setup's end as it is\n")
		return
	}
	e.printf("  restore to the end of setup:\n")
	for _, name := range e.p.RestoreTargets(r) {
		for _, t := range e.p.Targets {
			switch {
			case t.Name != name:
			case t.Sandbox != nil:
				with := ""
				if t.Sandbox.Replicas > 0 {
					with = fmt.Sprintf(" and its %d replica(s)", t.Sandbox.Replicas)
				}
				e.printf("    sandbox %s%s: stop, put back the copy of the datadir taken after setup, start (a restart)\n", name, with)
			default:
				e.printf("    %s: by the restore steps\n", name)
			}
		}
	}
	e.steps("restore steps", r.Steps, "    ")
}

func (e *explainer) steps(name string, steps []spec.Step, indent string) {
	if len(steps) == 0 {
		return
	}
	e.printf("%s%s:\n", indent, name)
	for i := range steps {
		e.step(&steps[i], indent+"  ", "")
	}
}

// step prints a step as its kind explains it (spec.StepKind.Explain), else its key and
// target, and adds what it says to the estimates.
func (e *explainer) step(s *spec.Step, in, prefix string) {
	if s.Skipped() {
		// nothing of it runs here, so it adds nothing to the estimates either
		e.printf("%s%s%s: skipped in this iteration (when: false)\n", in, prefix, s.KindKey())
		return
	}
	var x spec.Explanation
	if s.Kind != nil && s.Kind.Explain != nil {
		x = s.Kind.Explain(s, e)
	}
	if x.Line == "" {
		x.Line = s.KindKey()
		if s.Target != "" {
			x.Line += " on " + s.Target
		}
	}
	e.upper += x.Upper
	e.privileged += x.Privileged
	e.loadRows += x.LoadRows
	e.loadBytes += x.LoadBytes
	e.loadTime += x.LoadTime
	e.printf("%s%s%s\n", in, prefix, x.Line)
	for _, l := range x.More {
		e.printf("%s  %s\n", in, l)
	}
}

// Plan is the plan explained (spec.Explainer).
func (e *explainer) Plan() *spec.Plan { return e.p }

// Workload describes a step's workload (spec.Explainer).
func (e *explainer) Workload(w *spec.Workload) string { return e.workload(w) }

// Spread says where a step's workload runs its threads (spec.Explainer).
func (e *explainer) Spread(w *spec.Workload, target string) string { return spreadLine(e.p, target, w) }

// Statements are what explain shows of a SQL file (spec.Explainer).
func (e *explainer) Statements(path string) []string { return e.fileStatements(path, shownStatements) }

// restartNote flags a restart that runs the target's own shell command.
func (e *explainer) restartNote(target, in string) {
	for _, t := range e.p.Targets {
		if t.Name == target && t.Sandbox == nil && t.Restart != "" {
			e.privileged++
			e.printf("%srestart command: %s%s\n", in, t.Restart, privileged)
		}
	}
}

// workload describes a workload (plus the statements of custom ones) and adds its duration to the estimate.
func (e *explainer) workload(w *spec.Workload) string {
	if !w.Runs() || w.Duration == 0 {
		e.unbounded++
	}
	if w.Runs() {
		e.upper += w.Duration + w.Warmup
	}
	var b strings.Builder
	b.WriteString(w.String())
	if w.Kind != nil && w.Kind.Estimate != nil {
		if est, ok := w.Kind.Estimate(w); ok && est.Rows > 0 {
			e.loadRows += est.Rows
			e.loadBytes += est.Bytes
			e.loadTime += time.Duration(float64(est.Rows) / float64(loadRate*max(est.Threads, 1)) * float64(time.Second))
			fmt.Fprintf(&b, " -- loads %d rows, about %s", est.Rows, megabytes(est.Bytes))
		}
	}
	if w.Kind != nil && w.Kind.Explain != nil {
		if out := e.outsideFolder(w.Files()); out != "" {
			fmt.Fprintf(&b, "\n        (%s is outside the plan's folder: explain does not read it, and the run refuses it unless --allow-path allows it)", out)
		} else {
			for _, line := range w.Kind.Explain(w) {
				fmt.Fprintf(&b, "\n        %s", line)
			}
		}
	}
	return b.String()
}

// outsideFolder names the first of files outside the plan's folder and the allowed paths,
// "" when all are inside: explain reads a stranger's folder, and a file that leads out of it
// (a symlink to /etc/shadow) must not be read, let alone printed.
func (e *explainer) outsideFolder(files []spec.DataFile) string {
	roots := e.p.Roots()
	for _, f := range files {
		if f.Path != "" && !roots.Inside(f.Path) {
			return f.File
		}
	}
	return ""
}

// shownStatements and shownChars bound what explain prints of a file's statements: a
// sql_file or replay file can be a dump of many GB (an 89 MB dump once printed 36 MB), and
// explain is read on a terminal.
const (
	shownStatements = 3
	shownChars      = 100
)

// fileStatements lists the first max statements of a SQL file (streamed: a file can be
// large), its size and how many statements it has.
func (e *explainer) fileStatements(path string, max int) (lines []string) {
	if out := e.outsideFolder([]spec.DataFile{{File: path, Path: path}}); out != "" {
		return []string{"(outside the plan's folder: explain does not read it, and the run refuses it unless --allow-path allows it)"}
	}
	f, err := e.p.Roots().Open(path)
	if err != nil {
		return []string{fmt.Sprintf("(cannot read it now: %v)", err)}
	}
	defer f.Close()
	size := ""
	if fi, err := f.Stat(); err == nil {
		size = spec.ByteSize(fi.Size()) + ", "
	}
	sp := sqltext.NewSplitter(f)
	sp.SetLimit(spec.MySQLMaxAllowedPacket) // explain counts statements: one of 1 GB once took it 4 GB
	n := 0
	for {
		st, line, err := sp.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(lines, fmt.Sprintf("(%s%d statement(s) before line %d, where reading stops: %v)", size, n, line, err))
		}
		if n < max {
			lines = append(lines, sqltext.Short(string(st[:min(len(st), 4*shownChars+1)]), shownChars)+";")
		}
		n++
	}
	if n > max {
		lines = append(lines, "...")
	}
	return append(lines, fmt.Sprintf("(%s%d statement(s))", size, n))
}

func (e *explainer) footer() {
	e.printf("\nPrivileged actions (shell, drop_caches, restart commands): %d", e.privileged)
	if e.privileged > 0 {
		e.printf(" -- the run needs --allow-shell (or a yes on a terminal)")
	}
	e.printf("\nEstimated duration: at most %s", e.upper.Round(time.Second))
	e.printf(" (estimate: sum of workload durations, warmups, sleeps and wait timeouts; waits usually end sooner")
	if e.unbounded > 0 {
		e.printf("; not counted: %d workload(s) whose length depends on the data (prepare/cleanup, replay, events only)", e.unbounded)
	}
	if e.loadRows > 0 {
		e.printf("; the data loads insert %d rows, about %s: roughly %s more at %dk rows/s per loading thread, as measured on a 2-core machine",
			e.loadRows, megabytes(e.loadBytes), e.loadTime.Round(time.Second), loadRate/1000)
	}
	e.printf("; not counted: server restarts, SQL and shell steps)\n")
}

// loadRate is the rows per second one loading thread inserts into a local sandbox on a
// 2-core machine (bench figures): enough to tell minutes from hours.
const loadRate = 100_000

func megabytes(b int64) string {
	if b >= 10<<30 {
		return fmt.Sprintf("%.0f GB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.0f MB", float64(b)/(1<<20))
}
