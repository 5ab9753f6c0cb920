// Package gate turns compare's noise-aware verdicts into a CI pass or fail: a rule such as
// "tps < -2.5%" fails a build only when the change is beyond the threshold with its whole
// 95% interval. A check that cannot tell says so: inconclusive when its interval is wider
// than its threshold and reaches it (or comes from too few repeats), confounded when the
// host's load changed between the compared iterations; neither fails a build, both are
// reported and give the command its own exit status. It writes what CI systems show: a
// short Markdown summary and JUnit XML.
package gate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/reporters/compare"
)

// Rule is one threshold: Metric's change against the baseline, in percent, must not go
// past Pct in the direction Op says ("<": a drop below Pct fails, ">": a rise above).
type Rule struct {
	Metric string
	Op     string
	Pct    float64
}

func (r Rule) String() string {
	if r.Op == NotReproducedRule {
		return NotReproducedRule
	}
	return fmt.Sprintf("%s %s %+g%%", r.Metric, r.Op, r.Pct)
}

// NotReproducedRule is the rule that fails when an effect the baseline states is not
// reproduced (reporters/reproduce): its Op, with no metric; see EvaluateReproduction.
const NotReproducedRule = "not-reproduced"

// Parse reads rules separated by commas: "tps < -2.5%, p95_ms > +5%".
func Parse(s string) ([]Rule, error) {
	var out []Rule
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if part == NotReproducedRule {
			out = append(out, Rule{Op: NotReproducedRule})
			continue
		}
		r, err := parseRule(part)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--fail-on %q: no rule; want e.g. \"tps < -2.5%%, p95_ms > +5%%\"", s)
	}
	return out, nil
}

func parseRule(s string) (Rule, error) {
	bad := func(why string) (Rule, error) {
		return Rule{}, fmt.Errorf("--fail-on rule %q: %s; want METRIC < -PCT%% (fail when it drops further), METRIC > +PCT%% (fail when it rises further), e.g. \"tps < -2.5%%\", or %s (fail when an effect the baseline states is not reproduced)", s, why, NotReproducedRule)
	}
	i := strings.IndexAny(s, "<>")
	if i <= 0 {
		return bad("no < or >")
	}
	r := Rule{Metric: strings.TrimSpace(s[:i]), Op: s[i : i+1]}
	num, ok := strings.CutSuffix(strings.TrimSpace(s[i+1:]), "%")
	if !ok {
		return bad("the threshold is a change in percent: end it with %")
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return bad("the threshold is not a number")
	case r.Metric == "" || strings.ContainsAny(r.Metric, " \t"):
		return bad("no metric name before the operator")
	}
	r.Pct = v
	return r, nil
}

// Check is one rule on one cell of one run against the baseline (the comparison's first).
type Check struct {
	Rule    Rule
	Cell    string
	Run     int // index of the run in the comparison
	Verdict compare.Verdict
	// Outcome is Failed, Passed, Inconclusive, Confounded or Skipped; Why says it in words.
	Outcome, Why string
}

// Outcomes of a check.
const (
	Passed  = "passed"
	Failed  = "failed"
	Skipped = "skipped" // the verdict cannot say: not comparable, no noise estimate
	// Inconclusive: the interval is wider than the threshold and reaches it, or it comes
	// from too few repeats: the data cannot tell a change of the threshold's size from noise.
	Inconclusive = "inconclusive"
	// Confounded: the host's load changed between the compared iterations (compare.Confounded).
	Confounded = "confounded"
)

// Result is every check of a comparison.
type Result struct {
	Checks []Check
	Runs   []string // the folders, baseline first
	// Around are the differences around the numbers (settings, plan, versions, hosts) a
	// reader of a failed build needs first: why it may have failed.
	Around []string
}

// Failed counts the checks that failed.
func (r *Result) Failed() int {
	n := 0
	for _, c := range r.Checks {
		if c.Outcome == Failed {
			n++
		}
	}
	return n
}

// Inconclusive counts the checks that could not tell: inconclusive or confounded.
func (r *Result) Inconclusive() int {
	n := 0
	for _, c := range r.Checks {
		if c.Outcome == Inconclusive || c.Outcome == Confounded {
			n++
		}
	}
	return n
}

// Evaluate applies rules to every cell of c, each later run against the first.
func Evaluate(c *compare.Comparison, rules []Rule) *Result {
	res := &Result{Around: around(c)}
	for _, r := range c.Runs {
		res.Runs = append(res.Runs, r.Dir)
	}
	for _, cell := range c.Cells {
		for _, rule := range rules {
			for ri, v := range cell.Verdicts[rule.Metric] {
				if ri == 0 {
					continue
				}
				res.Checks = append(res.Checks, judge(rule, cell.Key, ri, v))
			}
		}
	}
	return res
}

// aroundRanked bounds the ranked differences gate.md lists per run: a failed build's page
// says why in its first lines; the whole list is compare's.
const aroundRanked = 10

// around is what gate.md lists under the checks, so that a failed build says why: what
// differed between the runs, most likely to move the numbers first (compare's ranking:
// durability, buffer pool, binary log, I/O, threads, storage, machines, load, version),
// then the comparison's other notes (the plan, hosts, the client's connection).
func around(c *compare.Comparison) []string {
	var out []string
	for _, rd := range c.Differences {
		prefix := ""
		if len(c.Differences) > 1 {
			prefix = fmt.Sprintf("run %d vs run 1: ", rd.Run)
		}
		for i, d := range rd.Ranked {
			if i == aroundRanked {
				out = append(out, fmt.Sprintf("%s%d more differences: quadrant compare lists them", prefix, len(rd.Ranked)-i))
				break
			}
			out = append(out, prefix+d.Group+": "+d.Text)
		}
	}
	return append(out, c.Notes...)
}

// judge fails a check only when the whole interval of the change is past the threshold,
// and calls it inconclusive when the interval reaches the threshold but is wider than it.
func judge(rule Rule, cell string, ri int, v compare.Verdict) Check {
	c := Check{Rule: rule, Cell: cell, Run: ri, Verdict: v}
	ci := fmt.Sprintf("%s changed %+.1f%% (95%% CI %+.1f%% to %+.1f%%)", rule.Metric, v.Change, v.Lo, v.Hi)
	reaches := rule.Op == "<" && v.Lo <= rule.Pct || rule.Op == ">" && v.Hi >= rule.Pct
	switch {
	case v.Kind == compare.NotComparable || v.Kind == compare.NoNoiseEstimate || math.IsNaN(v.Lo) || math.IsNaN(v.Hi):
		c.Outcome, c.Why = Skipped, "cannot judge: "+v.Text
	case v.Kind == compare.Confounded:
		c.Outcome, c.Why = Confounded, "cannot tell: "+v.Text
	case v.Kind == compare.Inconclusive:
		c.Outcome, c.Why = Inconclusive, "cannot tell: "+v.Text
	case rule.Op == "<" && v.Hi < rule.Pct:
		c.Outcome = Failed
		c.Why = fmt.Sprintf("%s, all of it below %+g%%", ci, rule.Pct)
	case rule.Op == ">" && v.Lo > rule.Pct:
		c.Outcome = Failed
		c.Why = fmt.Sprintf("%s, all of it above %+g%%", ci, rule.Pct)
	case reaches && v.Hi-v.Lo > math.Abs(rule.Pct):
		c.Outcome = Inconclusive
		c.Why = fmt.Sprintf("cannot tell: %s, an interval %.1f points wide, wider than the threshold %+g%% and reaching it: "+
			"more repeats, longer iterations or a quieter host narrow it", ci, v.Hi-v.Lo, rule.Pct)
	default:
		c.Outcome = Passed
		c.Why = fmt.Sprintf("%s: %s", ci, v.Text)
	}
	return c
}
