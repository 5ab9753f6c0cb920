package html

import "github.com/quadrant-bench/quadrant/results"

// eventJSON is a moment a step marked in an iteration (run.json's events: a failover
// drill's fault and promotion), drawn on the over-time charts as a vertical line with its
// name, on the charts that have the iteration's line.
type eventJSON struct {
	Iteration int     `json:"iteration"`
	Name      string  `json:"name"`
	AtS       float64 `json:"at_s"`
}

// eventsOf are every iteration's events, in run.json's order.
func eventsOf(run *results.Run) []eventJSON {
	var out []eventJSON
	for _, it := range run.Info.Iterations {
		for _, e := range it.Events {
			out = append(out, eventJSON{Iteration: it.Index, Name: e.Name, AtS: e.AtS})
		}
	}
	return out
}
