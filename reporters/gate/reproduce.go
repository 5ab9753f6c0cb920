package gate

import (
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/reproduce"
)

// Reproduces says rules hold the not-reproduced rule: the gate then needs the verdicts of
// reporters/reproduce for each compared run (EvaluateReproduction).
func Reproduces(rules []Rule) bool {
	for _, r := range rules {
		if r.Op == NotReproducedRule {
			return true
		}
	}
	return false
}

// EvaluateReproduction adds a check per effect the baseline states to res, for each run's
// reproduction (runs[i] is that of the comparison's run of index i+1, nil when the
// baseline has no matrix): failed when not reproduced, skipped when inconclusive (too little evidence
// fails no build), passed when reproduced. Nothing without the rule.
func (res *Result) EvaluateReproduction(rules []Rule, runs []*reproduce.Result) {
	if !Reproduces(rules) {
		return
	}
	rule := Rule{Op: NotReproducedRule}
	for i, r := range runs {
		if r == nil {
			continue
		}
		for _, e := range r.Effects {
			c := Check{Rule: rule, Cell: e.Where() + ", " + e.Metric, Run: i + 1,
				Verdict: compare.Verdict{Kind: e.Verdict, Change: e.Diff, Lo: e.DiffLo, Hi: e.DiffHi, Text: e.Verdict + ": " + e.Why},
				Why:     e.Verdict + ": " + e.Sentence()}
			switch e.Verdict {
			case reproduce.NotReproduced:
				c.Outcome = Failed
			case reproduce.Inconclusive:
				c.Outcome = Skipped
			default:
				c.Outcome = Passed
			}
			res.Checks = append(res.Checks, c)
		}
	}
}
