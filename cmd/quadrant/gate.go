package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/gate"
	"github.com/quadrant-bench/quadrant/reporters/html"
	"github.com/quadrant-bench/quadrant/reporters/reproduce"
	"github.com/quadrant-bench/quadrant/results"
)

// gateFlags are the CI gate's: compare, run and rerun take them.
type gateFlags struct {
	failOn, markdown, junit string
	baseline                string // run and rerun: the folder the new one is judged against
	rules                   []gate.Rule
}

func (g *gateFlags) add(fs *flag.FlagSet, runs bool) {
	fs.StringVar(&g.failOn, "fail-on", "", "exit 1 when a change is past a threshold with its whole 95% interval, 4 when a check cannot tell (inconclusive, confounded): `RULES` such as \"tps < -2.5%, p95_ms > +5%\" (docs/ci.md)")
	fs.StringVar(&g.markdown, "markdown", "", "with --fail-on, write the gate's summary as Markdown to `FILE`")
	fs.StringVar(&g.junit, "junit", "", "with --fail-on, write the gate's checks as JUnit XML to `FILE`")
	if runs {
		fs.StringVar(&g.baseline, "baseline", "", "after the run, judge it against the results folder `DIR` with --fail-on (default rules \"tps < -2.5%, p95_ms > +5%\"); gate.md and gate-junit.xml go into the new folder")
	}
}

// defaultRules are --baseline's without --fail-on: HammerDB's 2.5% on throughput, and p95.
const defaultRules = "tps < -2.5%, p95_ms > +5%"

// parse checks the rules before anything runs; false when they are wrong (said on stderr).
func (g *gateFlags) parse(cmd string, stderr io.Writer) bool {
	if g.failOn == "" && g.baseline != "" {
		g.failOn = defaultRules
	}
	if g.failOn == "" {
		if g.markdown != "" || g.junit != "" {
			fmt.Fprintf(stderr, "quadrant %s: --markdown and --junit write the gate of --fail-on; add --fail-on \"%s\"\n", cmd, defaultRules)
			return false
		}
		return true
	}
	rules, err := gate.Parse(g.failOn)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant %s: %v\n", cmd, err)
		return false
	}
	g.rules = rules
	return true
}

// on says a gate was asked for.
func (g *gateFlags) on() bool { return len(g.rules) > 0 }

// metrics adds the rules' metrics to those compared.
func (g *gateFlags) metrics(wanted []string) []string {
	for _, r := range g.rules {
		if r.Metric != "" && !slices.Contains(wanted, r.Metric) {
			wanted = append(wanted, r.Metric)
		}
	}
	return wanted
}

// judge prints the gate of c on w and writes its files (intoDir: the new results folder,
// where run and rerun put them unless the flags name others); code is the gate's exit
// code: exitAssert when a rule failed, exitInconclusive when none did but a check could
// not tell, exitOK. reps are the later runs' reproductions of the first's effects, for the
// not-reproduced rule.
func (g *gateFlags) judge(c *compare.Comparison, reps []*reproduce.Result, w io.Writer, intoDir string) (res *gate.Result, code int, err error) {
	res = gate.Evaluate(c, g.rules)
	res.EvaluateReproduction(g.rules, reps)
	fmt.Fprintln(w)
	if err := res.WriteText(w); err != nil {
		return nil, 0, err
	}
	md, junit := g.markdown, g.junit
	if intoDir != "" {
		if md == "" {
			md = filepath.Join(intoDir, results.GateMarkdown)
		}
		if junit == "" {
			junit = filepath.Join(intoDir, results.GateJUnit)
		}
	}
	for _, f := range []struct {
		path  string
		write func(io.Writer) error
	}{{md, res.WriteMarkdown}, {junit, res.WriteJUnit}} {
		if f.path == "" {
			continue
		}
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			return nil, 0, err
		}
		if err := results.WriteFileAtomic(f.path, b.Bytes()); err != nil {
			return nil, 0, err
		}
		fmt.Fprintf(w, "gate: %s\n", f.path)
	}
	return res, gateCode(res), nil
}

// gateCode is the exit code of a gate's result.
func gateCode(res *gate.Result) int {
	switch {
	case res.Failed() > 0:
		return exitAssert
	case res.Inconclusive() > 0:
		return exitInconclusive
	}
	return exitOK
}

// judgeFolders compares baseline with dir and judges the result; code as judge's. A
// rerun's comparison page in dir (comparison.html) is drawn again with the gate's outcome.
func (g *gateFlags) judgeFolders(baseline, dir string, w io.Writer) (code int, err error) {
	var runs []*results.Run
	for _, d := range []string{baseline, dir} {
		r, err := results.Open(d)
		if err != nil {
			return 0, err
		}
		runs = append(runs, r)
	}
	wanted := g.metrics(compare.Defaults(runs))
	if err := compare.CheckMetrics(runs, wanted); err != nil {
		return 0, fmt.Errorf("--fail-on: %w", err)
	}
	var reps []*reproduce.Result
	if gate.Reproduces(g.rules) {
		reps = reproductions(runs)
	}
	c := compare.Compare(runs, wanted)
	res, code, err := g.judge(c, reps, w, dir)
	if err != nil {
		return 0, err
	}
	if page := filepath.Join(dir, results.ComparisonPage); fileExists(page) {
		if err := html.WriteComparisonGate(page, c, res, buildVersion()); err != nil {
			return 0, err
		}
	}
	return code, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
