package html

import (
	_ "embed"

	"github.com/quadrant-bench/quadrant/reporters/outcomes"
	"github.com/quadrant-bench/quadrant/results"
)

// outcomes.js draws what the steps came to, leading the page: the sentences on the losses
// and a table per cell.
//
//go:embed assets/outcomes.js
var outcomesJS string

// outcomesData is reporters/outcomes' account of a run for the page: what step kinds mark
// as their outcome (a drill's acknowledged commits lost, seconds without a write, recovery),
// per cell, with the sentences on the losses.
type outcomesData struct {
	Metrics   []outcomeMetric `json:"metrics"`
	Cells     []outcomeCell   `json:"cells"`
	Sentences []string        `json:"sentences,omitempty"`
}

type outcomeMetric struct {
	Name string `json:"name"`
	Doc  string `json:"doc,omitempty"`
	Unit string `json:"unit,omitempty"`
	Loss string `json:"loss,omitempty"`
}

// outcomeCell is a cell's figures: per metric one value per iteration and their median
// (nil where not recorded: JSON has no NaN), and per count of losses in how many repeats it
// lost something ("lost acknowledged commits in 3 of 3 repeats, 12-40").
type outcomeCell struct {
	Label      string                `json:"label"`
	Iterations []int                 `json:"iterations"`
	Values     map[string][]*float64 `json:"values"`
	Medians    map[string]*float64   `json:"medians"`
	Losses     []string              `json:"losses,omitempty"`
}

// outcomesOf is the page's outcomes of run; nil without any.
func outcomesOf(run *results.Run) *outcomesData {
	o := outcomes.Of(run)
	if o == nil {
		return nil
	}
	d := &outcomesData{Sentences: o.Sentences}
	for _, m := range o.Metrics {
		d.Metrics = append(d.Metrics, outcomeMetric{Name: m.Name, Doc: m.Doc, Unit: m.TotalUnit, Loss: m.Loss})
	}
	for _, c := range o.Cells {
		oc := outcomeCell{Label: c.Label(o.Targets()), Iterations: c.Iterations, Values: map[string][]*float64{}, Medians: map[string]*float64{}}
		for _, m := range o.Metrics {
			for _, v := range c.Values[m.Name] {
				oc.Values[m.Name] = append(oc.Values[m.Name], finite(v))
			}
			oc.Medians[m.Name] = finite(c.Median(m.Name))
			if m.Loss != "" {
				oc.Losses = append(oc.Losses, m.Loss+" in "+c.Tally(m.Name))
			}
		}
		d.Cells = append(d.Cells, oc)
	}
	return d
}
