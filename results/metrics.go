package results

import "github.com/quadrant-bench/quadrant/results/measure"

// MetricInfo is run.json's description of a metric a workload kind adds of its own
// (workload.Kind.Metrics): what the metric table says of the table's own metrics, written
// into the folder so that report, compare and merge of it need not know the kind.
type MetricInfo struct {
	Name         string            `json:"name"`
	Doc          string            `json:"doc,omitempty"`
	Kind         measure.Kind      `json:"kind"`
	IntervalUnit string            `json:"interval_unit,omitempty"`
	TotalUnit    string            `json:"total_unit,omitempty"`
	Better       measure.Direction `json:"better,omitempty"`
	// Timeseries and Summary say which tables have the column.
	Timeseries bool `json:"timeseries,omitempty"`
	Summary    bool `json:"summary,omitempty"`
	Headline   bool `json:"headline,omitempty"`
	Compare    bool `json:"compare,omitempty"`
	Chart      bool `json:"chart,omitempty"`
	// Outcome and Loss are a step's records: what the step came to, and the count of what an
	// iteration lost with what losing means (measure.Metric's).
	Outcome bool   `json:"outcome,omitempty"`
	Loss    string `json:"loss,omitempty"`
}

// DescribeMetric is m as run.json describes it.
func DescribeMetric(m measure.Metric) MetricInfo {
	return MetricInfo{Name: m.Name, Doc: m.Doc, Kind: m.Kind, IntervalUnit: m.IntervalUnit, TotalUnit: m.TotalUnit, Better: m.Better,
		Timeseries: m.Interval != nil, Summary: m.Total != nil, Headline: m.Headline, Compare: m.Compare, Chart: m.Chart,
		Outcome: m.Outcome, Loss: m.Loss}
}

// AddMetrics adds the descriptions of ms that info lacks (by name).
func (info *RunInfo) AddMetrics(ms []measure.Metric) {
	for _, m := range ms {
		if _, ok := info.metric(m.Name); !ok {
			info.Metrics = append(info.Metrics, DescribeMetric(m))
		}
	}
}

// metric is the described metric of that name, as the metric table would have it (its
// values are in the folder: it computes none).
func (info *RunInfo) metric(name string) (*measure.Metric, bool) {
	if info == nil {
		return nil, false
	}
	for _, mi := range info.Metrics {
		if mi.Name != name {
			continue
		}
		m := &measure.Metric{Name: mi.Name, Doc: mi.Doc, Kind: mi.Kind, IntervalUnit: mi.IntervalUnit, TotalUnit: mi.TotalUnit,
			Better: mi.Better, Headline: mi.Headline, Compare: mi.Compare, Chart: mi.Chart, Outcome: mi.Outcome, Loss: mi.Loss}
		return m, true
	}
	return nil, false
}
