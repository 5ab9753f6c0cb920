package html

import (
	_ "embed"
	"math"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/results"
)

// effects.js draws the headline's effects: the sentences and a chart per axis and metric.
//
//go:embed assets/effects.js
var effectsJS string

// effectLine is an effects.Line for the page: one axis value against the axis's first at
// one combination of the other axes, with its sentence.
type effectLine struct {
	Axis     string         `json:"axis"`
	Value    string         `json:"value"`
	Base     string         `json:"base"`
	At       string         `json:"at"` // "threads=4"; "" on a one-axis run of one target
	Sentence string         `json:"sentence"`
	Effects  []effectMetric `json:"effects"`
}

// effectMetric is one metric's change in percent with its 95% CI; nil where there is none
// (JSON has no NaN).
type effectMetric struct {
	Metric string   `json:"metric"`
	Kind   string   `json:"kind"`
	Change *float64 `json:"change"`
	Lo     *float64 `json:"lo"`
	Hi     *float64 `json:"hi"`
	Text   string   `json:"text"`
	// Reruns are what the folder's recorded reproductions (reproductions/) found of it.
	Reruns []rerunJSON `json:"reruns,omitempty"`
}

// effectsOf is what each matrix axis does (reporters/axiseffects); nil without a matrix.
func effectsOf(run *results.Run) []effectLine {
	var out []effectLine
	lines := axiseffects.Compute(run)
	var reruns map[string][]rerunJSON
	if len(lines) > 0 {
		reruns = rerunsOf(run)
	}
	for _, l := range lines {
		el := effectLine{Axis: l.Axis, Value: l.Value, Base: l.Base, At: l.Where(), Sentence: l.Sentence()}
		for _, e := range l.Effects {
			v := e.Verdict
			key := results.ReproducedEffect{Axis: l.Axis, Value: l.Value, Base: l.Base, At: l.At, Target: l.Target, Metric: e.Metric}.Key()
			el.Effects = append(el.Effects, effectMetric{Metric: e.Metric, Kind: v.Kind, Change: finite(v.Change),
				Lo: finite(v.Lo), Hi: finite(v.Hi), Text: v.Text, Reruns: reruns[key]})
		}
		out = append(out, el)
	}
	return out
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
