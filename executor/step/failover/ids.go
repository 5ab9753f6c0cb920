package failover

import "github.com/quadrant-bench/quadrant/executor/step"

// keepIDs writes into the results folder the ids behind the drill's counts, for the user to
// check against the ledger on their servers: those acknowledged before the promotion
// (failover_acked) and those of them the new primary lacked (failover_acked_lost), as ranges
// (results.WriteIDs). A drill that did not get as far as its counts writes no file of them.
func (d *drill) keepIDs(env step.Env, m map[string]float64) {
	if env.Out == nil || env.Iteration == nil {
		return
	}
	write := func(metric string, ids []int64) {
		if err := env.Out.WriteIDs(metric, env.Iteration.Index, ids); err != nil {
			env.Logf("warning: %s: keep the ids of %s: %v", env.Where, metric, err)
		}
	}
	if _, ok := m[MetricAcked]; ok {
		write(MetricAcked, d.acked)
	}
	if _, ok := m[MetricAckedLost]; ok {
		write(MetricAckedLost, d.lost)
	}
}
