package failover

import "github.com/quadrant-bench/quadrant/results/measure"

// described is the drill's figures as its kind declares them (spec.StepKind.Metrics, into
// run.json): what a drill came to, the Outcome the console's end of an iteration and the
// report's table per cell show (the acknowledged commits lost, the seconds without a write,
// the recovery to 90% of the throughput), and the count of a loss (Loss, saying what losing
// is), by which the report says in how many drills of a cell anything was lost.
func described() []measure.Metric {
	ms := runner{}.Metrics()
	for i := range ms {
		switch ms[i].Name {
		case MetricAckedLost:
			ms[i].Outcome, ms[i].Loss = true, "lost acknowledged commits"
		case MetricUnavailable, MetricRecovery:
			ms[i].Outcome = true
		}
	}
	return ms
}
