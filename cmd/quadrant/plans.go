package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/preflight"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/executor/watch/mysqlwatch"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
	"github.com/quadrant-bench/quadrant/spec/trust"
	"github.com/quadrant-bench/quadrant/templates"
)

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version = ""

func printLoadError(stderr io.Writer, err error) {
	var es spec.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			fmt.Fprintln(stderr, e.Error())
		}
		return
	}
	fmt.Fprintln(stderr, err)
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("validate", "PLAN... [--set K=V]... [--target NAME=DSN]...",
		"Loads each plan (extends, vars, matrix, expressions) and prints every problem with file:line:column.\nExit 0 when all are valid, 2 otherwise.", stdout, stderr)
	var sets, targets multiFlag
	fs.Var(&sets, "set", "override a var: `vars.NAME=VALUE` or NAME=VALUE (repeatable)")
	fs.Var(&targets, "target", "point a target at your own server, as run does: `NAME=DSN` (repeatable)")
	quiet := fs.Bool("q", false, "print nothing for valid plans")
	shards := fs.Int("shards", 0, "also check that the plan can be split into `N` shards (quadrant run --shard K/N)")
	plans, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(plans) == 0 {
		fmt.Fprintln(stderr, "quadrant validate: give at least one plan file, e.g. quadrant validate plan.yaml")
		return exitInvalid
	}
	overrides, err := targetOverrides(targets, stderrf(stderr, "quadrant validate: "))
	if err != nil {
		fmt.Fprintf(stderr, "quadrant validate: %v\n", err)
		return exitInvalid
	}
	code = exitOK
	for _, path := range plans {
		var p *spec.Plan
		file, err := planOf(path)
		if err == nil {
			p, err = loadPlan(file, spec.Options{Set: sets, Targets: overrides})
		}
		if err == nil {
			if errs := shard.Validate(p, *shards); len(errs) > 0 {
				err = errs.Tidy()
			}
		}
		if err == nil {
			err = errors.Join(p.Inspect()...)
		}
		if err != nil {
			printLoadError(stderr, err)
			code = exitInvalid
			continue
		}
		basedirNotes(stderr, p)
		if w := repeatWarning(p, false); w != "" {
			fmt.Fprintln(stderr, w)
		}
		if !*quiet {
			fmt.Fprintf(stdout, "%s: ok (%s, %d iteration%s)\n", path, p.Name, len(p.Iterations), plural(len(p.Iterations)))
		}
		for _, n := range p.OverrideNotes() {
			fmt.Fprintf(stderr, "%s: %s\n", path, n)
		}
	}
	return code
}

// loadPlan loads a plan with the workload kinds, which check their own workloads: what
// validate, explain and run refuse alike.
func loadPlan(path string, opts spec.Options) (*spec.Plan, error) {
	opts.Kinds = kinds.Registry()
	opts.ServerOptions = serverOptions
	return spec.Load(path, opts)
}

// serverOptions names the my.cnf options the server binary a sandbox would run knows, for
// validation; nothing when there is no such binary here (the plan may be meant for another
// machine): then the options go unchecked, and unsaid. Only the binaries the user installed
// (PATH, /usr/sbin, ...) are asked: a plan's own basedir is the plan's code, which loading a
// plan never runs (validate and explain say so: basedirNotes).
func serverOptions(flavor, basedir string) (string, []string) {
	if basedir != "" {
		return "", nil
	}
	o, err := sandbox.KnownOptions(context.Background(), flavor, basedir)
	if err != nil {
		return "", nil
	}
	return filepath.Base(o.Binary.Path) + " " + o.Binary.Version, o.Names
}

// basedirNotes says, for each sandbox of p with a basedir, that its option names were not
// checked against its server, whose binary is the plan's.
func basedirNotes(w io.Writer, p *spec.Plan) {
	for _, t := range p.Targets {
		if t.Sandbox != nil && t.Sandbox.Basedir != "" {
			fmt.Fprintf(w, "note: %s: sandbox %s: option names not checked against its server: basedir %s is the plan's, and validate and explain run nothing of a plan\n",
				t.Sandbox.Src.At("basedir"), t.Name, t.Sandbox.Basedir)
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func runExplain(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explain", "PLAN|DIR [--set K=V]... [--target NAME=DSN]...",
		"Shows, without running anything (of a results folder DIR: the plan rerun DIR runs), every iteration with its matrix values and every step in execution order:\n"+
			"each SQL statement, each shell command, each privileged action (flagged \"needs --allow-shell\"),\nand an estimate of how long the run takes. With --target NAME=DSN it connects to that server, and to no\nother, and lists what of the plan the DSN's account lacks the privileges for.", stdout, stderr)
	var sets, targets multiFlag
	fs.Var(&sets, "set", "override a var: `vars.NAME=VALUE` or NAME=VALUE (repeatable)")
	fs.Var(&targets, "target", "point a target at your own server, as run does: `NAME=DSN` (repeatable)")
	var allow allowFlags
	allow.add(fs)
	plans, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(plans) != 1 {
		fmt.Fprintln(stderr, "quadrant explain: give exactly one plan file, e.g. quadrant explain plan.yaml")
		return exitInvalid
	}
	overrides, err := targetOverrides(targets, stderrf(stderr, "quadrant explain: "))
	if err != nil {
		fmt.Fprintf(stderr, "quadrant explain: %v\n", err)
		return exitInvalid
	}
	path, err := planOf(plans[0])
	if err != nil {
		fmt.Fprintf(stderr, "quadrant explain: %v\n", err)
		return exitInvalid
	}
	p, err := loadPlan(path, allow.options(path, spec.Options{Set: sets, Targets: overrides}))
	if err != nil {
		printLoadError(stderr, err)
		return exitInvalid
	}
	basedirNotes(stderr, p)
	if err := errors.Join(p.Inspect()...); err != nil {
		printLoadError(stderr, err)
		return exitInvalid
	}
	explain(stdout, p)
	explainTrust(stdout, p, allow.allow(path, ""))
	if explainAccounts(stdout, stderr, p, overrides, false) {
		return exitInvalid // the run would stop before setup, as run exits for it
	}
	return exitOK
}

// explainTrust lists what the run would refuse, all of it, with the flags that allow it.
func explainTrust(w io.Writer, p *spec.Plan, a trust.Allow) {
	ref := trust.Check(p, a)
	if ref == nil {
		fmt.Fprintf(w, "Beyond its folder and its targets: nothing the command line has not allowed.\n")
		return
	}
	fmt.Fprintf(w, "Beyond its folder and its targets: %d, which the run refuses unless allowed (%s):\n",
		len(ref.Items), strings.Join(trust.Flags(ref.Items), ", "))
	for _, it := range ref.Items {
		fmt.Fprintf(w, "  %s: %s  [%s]\n", it.Effect.Pos, results.Printable(p.Redact(it.Why)), it.Flag)
	}
}

// explainAccounts connects to the targets given with --target, and only to them (explain
// otherwise touches no server), and lists what of the plan their accounts cannot do and the
// status names they do not have, as the run's pre-flight would refuse them; true when it
// would. onlyStops leaves out the targets that pass (a refusal's addendum).
func explainAccounts(stdout, stderr io.Writer, p *spec.Plan, overrides map[string]string, onlyStops bool) (stops bool) {
	for _, t := range p.Targets {
		if _, ok := overrides[t.Name]; !ok || t.DSN == "" {
			continue
		}
		c, err := checkTarget(p, t)
		if err != nil {
			fmt.Fprintf(stderr, "quadrant explain: privileges of target %s not checked: %v\n", t.Name, err)
			continue
		}
		if len(c.lacks) == 0 && len(c.unknown) == 0 {
			if onlyStops {
				continue
			}
			fmt.Fprintf(stdout, "\nPrivileges on %s (as %s): the account has all this plan needs.\n", t.Name, c.account)
			continue
		}
		stops = true
		fmt.Fprintf(stdout, "\nOn %s (as %s): the run would stop before setup:\n", t.Name, c.account)
		if len(c.lacks) > 0 {
			fmt.Fprintf(stdout, "  the account lacks:\n")
			for _, l := range c.lacks {
				fmt.Fprintf(stdout, "    %s\n", l)
			}
		}
		if len(c.unknown) > 0 {
			fmt.Fprintf(stdout, "  %s: watch.status names what this server does not have: %s\n", p.Watch.Src.At("status"), strings.Join(c.unknown, ", "))
		}
	}
	return stops
}

// targetCheck is what explain finds on a dsn target before the run would: what its account
// lacks, the watch.status names it does not have.
type targetCheck struct {
	account        string
	lacks, unknown []string
}

func checkTarget(p *spec.Plan, t spec.Target) (targetCheck, error) {
	t.Restart = "" // explain runs no command
	dt, err := executor.DSNTarget(t, p.Roots())
	if err != nil {
		return targetCheck{}, err
	}
	defer dt.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	db, err := dt.Open(ctx)
	if err != nil {
		return targetCheck{}, err
	}
	defer db.Close()
	info, err := target.Probe(ctx, db)
	if err != nil {
		return targetCheck{}, err
	}
	ac, err := preflight.CheckAccount(ctx, p, t.Name, db, info, dt.Config().DBName)
	if err != nil {
		return targetCheck{}, err
	}
	c := targetCheck{account: ac.Account, lacks: ac.Lacks}
	if watched(p, t.Name) && len(p.Watch.Status) > 0 {
		names, err := statusNames(ctx, db)
		if err != nil {
			return c, err
		}
		c.unknown = mysqlwatch.UnknownStatus(p.Watch.Status, names)
	}
	return c, nil
}

// watched is whether watch samples target name: the plan's watch.targets, or every target.
func watched(p *spec.Plan, name string) bool {
	return len(p.Watch.Targets) == 0 || slices.Contains(p.Watch.Targets, name)
}

// statusNames are the names of SHOW GLOBAL STATUS.
func statusNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n, v sql.RawBytes
		if err := rows.Scan(&n, &v); err != nil {
			return nil, err
		}
		names = append(names, string(n))
	}
	return names, rows.Err()
}

func runSchema(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("schema", "[--markdown]",
		"Prints the JSON Schema of plan files (for editors: # yaml-language-server: $schema=...),\nor with --markdown the plan reference (docs/plan-reference.md).", stdout, stderr)
	md := fs.Bool("markdown", false, "print the Markdown plan reference instead")
	rest, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if unexpected("schema", rest, "", stderr) {
		return exitInvalid
	}
	if *md {
		stdout.Write(spec.MarkdownReference(kinds.Registry()))
	} else {
		stdout.Write(spec.JSONSchema(kinds.Registry()))
	}
	return exitOK
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", "", "Prints quadrant's version.", stdout, stderr)
	rest, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if unexpected("version", rest, "", stderr) {
		return exitInvalid
	}
	fmt.Fprintln(stdout, "quadrant", buildVersion())
	return exitOK
}

// buildVersion is the -ldflags version, else the module version or VCS revision Go recorded.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 && (v == "" || v == "(devel)") {
			v = "(devel) " + s.Value[:12]
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return v
}

func runTemplates(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("templates", "", "Lists the built-in plan templates: use one with `extends: builtin:NAME`\nor start a plan from it with `quadrant init --template NAME`.", stdout, stderr)
	rest, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if unexpected("templates", rest, "", stderr) {
		return exitInvalid
	}
	for _, t := range templates.List() {
		fmt.Fprintf(stdout, "%-20s %s\n", t.Name, t.Description)
	}
	return exitOK
}

// unexpected reports positional arguments a command does not take.
func unexpected(cmd string, rest []string, hint string, stderr io.Writer) bool {
	if len(rest) == 0 {
		return false
	}
	fmt.Fprintf(stderr, "quadrant %s: unexpected argument %q%s\n", cmd, rest[0], hint)
	return true
}

const defaultTemplate = "quickstart"

func runInit(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("init", "[--template NAME] > plan.yaml",
		"Prints a plan that validates, to edit and run. `quadrant templates` lists the templates.", stdout, stderr)
	name := fs.String("template", defaultTemplate, "built-in template to start from")
	rest, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if unexpected("init", rest, "; the plan is printed on stdout: quadrant init > plan.yaml", stderr) {
		return exitInvalid
	}
	data, err := templates.Read(*name)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant init: no template %q; choose one of: %s\n", *name, strings.Join(templates.Names(), ", "))
		return exitInvalid
	}
	stdout.Write(withSchemaURL(data))
	return exitOK
}

// withSchemaURL points a template's schema line at the published schema: the relative path
// used inside the repository means nothing where the new plan is saved.
func withSchemaURL(data []byte) []byte {
	first, rest, _ := strings.Cut(string(data), "\n")
	if strings.HasPrefix(first, "# yaml-language-server: $schema=") {
		first = "# yaml-language-server: $schema=" + spec.SchemaURL
	}
	return []byte(first + "\n" + rest)
}

// repeatWarning says, of a plan whose cells are compared with each other (a matrix) or with
// another run's (gated: --baseline, --fail-on), that fewer than compare.MinRepeats repeats
// cannot give the interval compare and the gate judge by, and what to do; "" otherwise.
func repeatWarning(p *spec.Plan, gated bool) string {
	repeat, cells := max(p.Repeat, 1), len(p.Matrix.Cells())
	if repeat >= compare.MinRepeats || cells < 2 && !gated {
		return ""
	}
	what := fmt.Sprintf("its %d matrix cells are compared with each other", cells)
	if gated {
		what = "the gate compares it with the baseline"
	}
	why := ("repeat: 2 gives each cell two values, too few for a 95% interval: compare and the gate call every change from them inconclusive")
	if repeat == 1 {
		why = "repeat: 1 gives each cell one value: its noise is estimated from that one run's intervals, blind to the drift between runs"
	}
	return fmt.Sprintf("warning: %s: %s, and %s; give the plan repeat: %d or more", p.Src.At("repeat"), what, why, compare.MinRepeats)
}
