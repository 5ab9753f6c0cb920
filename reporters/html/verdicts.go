package html

import (
	_ "embed"

	"github.com/quadrant-bench/quadrant/reporters/compare"
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
