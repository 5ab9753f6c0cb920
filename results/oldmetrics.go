package results

import (
	_ "embed"
	"encoding/json"
	"slices"
)

// oldMetrics are the descriptions, in run.json's own format, of the metrics the metric
// table held for a workload kind before run.json described a kind's own metrics (Metrics):
// a folder of that time has their columns and no word of what they are. They are the
// format's history, frozen as those versions wrote them, so they are data of this package
// rather than the kinds' declarations of today (which a kind may change, and which this
// package cannot import).
//
//go:embed oldmetrics.json
var oldMetrics []byte

// describeOldMetrics describes, in a folder whose run.json describes no metric, the
// columns of its summary or time series that the metric table then held (oldMetrics), so
// that report, compare and merge read an old folder as they read a new one.
func (r *Run) describeOldMetrics() error {
	if r.Info.Metrics != nil {
		return nil
	}
	var old []MetricInfo
	if err := json.Unmarshal(oldMetrics, &old); err != nil {
		return err // the embedded file is broken: a test reads it
	}
	for _, m := range old {
		if r.hasColumn(m.Name) {
			r.Info.Metrics = append(r.Info.Metrics, m)
		}
	}
	return nil
}

// hasColumn says whether the summary or a time series has a column of that name (their
// headers are read by Load and Open alike).
func (r *Run) hasColumn(name string) bool {
	if r.Summary != nil && slices.Contains(r.Summary.Header, name) {
		return true
	}
	for _, d := range r.Timeseries {
		if slices.Contains(d.Header, name) {
			return true
		}
	}
	return false
}
