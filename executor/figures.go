package executor

import (
	"math"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Figure is an iteration metric a step recorded, as its step kind describes it
// (spec.StepKind.Metrics): what the console says of it knows no kind.
type Figure struct {
	measure.Metric
	// Value is NaN when the step did not record it (a drill cut short before its recovery).
	Value float64
}

// figures are the iteration's records that the plan's step kinds describe, in the order
// each kind describes them: every figure of a kind of which the iteration recorded any,
// the missing ones NaN, so that a drill cut short shows what it lacks.
func (x *iteration) figures() []Figure {
	var out []Figure
	seen := map[string]bool{}
	for ps := range x.r.plan.Steps() {
		k := ps.Step.Kind
		if k == nil || !x.recordedAny(k.Metrics) {
			continue
		}
		for _, m := range k.Metrics {
			if seen[m.Name] {
				continue
			}
			seen[m.Name] = true
			v, ok := x.records[m.Name]
			if !ok {
				v = math.NaN()
			}
			out = append(out, Figure{Metric: m, Value: v})
		}
	}
	return out
}

func (x *iteration) recordedAny(ms []measure.Metric) bool {
	for _, m := range ms {
		if _, ok := x.records[m.Name]; ok {
			return true
		}
	}
	return false
}
