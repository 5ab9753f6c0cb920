package executor

import "github.com/quadrant-bench/quadrant/spec/verdict"

// assertions evaluates the iteration's assert: expressions on its summary row as the folder
// will have it; it returns the false (or failing) ones, each with the values it saw. quadrant
// merge judges a sharded run's merged row with the same evaluator (spec/verdict).
func (x *iteration) assertions() []string {
	return verdict.Failed(x.r.plan, x.it, x.summaryRow(x.target).Figures())
}
