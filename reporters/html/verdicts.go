package html

import (
	_ "embed"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/gate"
	"github.com/quadrant-bench/quadrant/results"
)

//go:embed assets/verdicts.js
var verdictsJS string

type verdictRow struct {
	Cell   string       `json:"cell"`
	Metric string       `json:"metric"`
	Runs   []verdictRun `json:"runs"`
}

type verdictRun struct {
	Value   string `json:"value"`
	Noise   string `json:"noise"`
	Mean    string `json:"mean"`
	Kind    string `json:"kind,omitempty"`
	Verdict string `json:"verdict,omitempty"`
}

// comparisonVerdicts lays out c's noise and verdicts as compare's terminal table has them.
func comparisonVerdicts(c *compare.Comparison) []verdictRow {
	var out []verdictRow
	for _, cell := range c.Cells {
		for _, m := range c.Metrics {
			row := verdictRow{Cell: cell.Key, Metric: m}
			for i, st := range cell.Stats[m] {
				vr := verdictRun{Value: "-", Noise: compare.NoiseText(st), Mean: compare.MeanText(st)}
				if st.N > 0 {
					vr.Value = results.FormatFloat(st.Median)
				}
				if i > 0 {
					vr.Kind, vr.Verdict = cell.Verdicts[m][i].Kind, cell.Verdicts[m][i].Text
				}
				row.Runs = append(row.Runs, vr)
			}
			out = append(out, row)
		}
	}
	return out
}

// gateData is the CI gate's outcome on a comparison page (compare --fail-on --out, a rerun's
// comparison.html with --fail-on): its verdict and tally, and every check that did not pass.
type gateData struct {
	Verdict string      `json:"verdict"`
	Tally   string      `json:"tally"`
	Checks  []gateCheck `json:"checks"`
}

type gateCheck struct {
	Outcome string `json:"outcome"`
	Rule    string `json:"rule"`
	Cell    string `json:"cell"`
	Why     string `json:"why"`
}

// gateOf lays out r for verdicts.js, the checks that did not pass in gate.md's order.
func gateOf(r *gate.Result) *gateData {
	if r == nil {
		return nil
	}
	g := &gateData{Verdict: r.Verdict(), Tally: r.Tally(), Checks: []gateCheck{}}
	for _, outcome := range []string{gate.Failed, gate.Inconclusive, gate.Confounded, gate.Skipped} {
		for _, c := range r.Checks {
			if c.Outcome == outcome {
				g.Checks = append(g.Checks, gateCheck{Outcome: c.Outcome, Rule: c.Rule.String(), Cell: c.Cell, Why: c.Why})
			}
		}
	}
	return g
}
