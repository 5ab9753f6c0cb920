package results

import (
	"slices"
	"testing"

	"github.com/quadrant-bench/quadrant/results/measure"
)

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		csv       CSV
		name      string
		role      Role
		merge     Merge
		fallback  Merge
		kind      measure.Kind
		unit      string
		better    measure.Direction
		histogram string
		key       string
	}{
		{TimeseriesCSV, ColIteration, RoleKey, MergeKey, "", "", "", 0, "", ""},
		{TimeseriesCSV, ColTime, RoleKey, MergeLatest, "", "", "", 0, "", ""},
		{SummaryCSV, ColDuration, RoleKey, MergeMax, "", "", "s", 0, "", ""},
		{TimeseriesCSV, ColWarmup, RoleKey, MergeKey, "", measure.Gauge, measure.Count, 0, "", ""},
		{TimeseriesCSV, ColStage, RoleKey, MergeKey, "", measure.Gauge, measure.Count, 0, "", ""},
		{SummaryCSV, ColStage, RoleKey, MergeKey, "", measure.Gauge, "", 0, "", ""},
		{TimeseriesCSV, Throughput(), RoleMetric, MergeSum, "", measure.Rate, measure.PerSecond, measure.Higher, "", ""},
		{SummaryCSV, Transactions(SummaryCSV), RoleMetric, MergeSum, "", "", measure.Count, measure.Higher, "", ""},
		{SummaryCSV, "p95_ms", RoleMetric, MergeHistogram, MergeEmpty, measure.Gauge, measure.Millis, measure.Lower, "latency", ""},
		{SummaryCSV, "lat_max_ms", RoleMetric, MergeHistogram, MergeMax, measure.Gauge, measure.Millis, measure.Lower, "latency", ""},
		{SummaryCSV, "connect_p95_ms", RoleMetric, MergeHistogram, MergeEmpty, measure.Gauge, measure.Millis, measure.Lower, "connect", ""},
		{SummaryCSV, "connect_max_ms", RoleMetric, MergeHistogram, MergeMax, measure.Gauge, measure.Millis, measure.Lower, "connect", ""},
		{TimeseriesCSV, "error.1213", RoleMetric, MergeSum, "", measure.Rate, measure.PerSecond, measure.Lower, "", "1213"},
		{SummaryCSV, "tx.new_order.count", RoleMetric, MergeSum, "", measure.Rate, measure.Count, measure.Higher, "", "new_order"},
		{SummaryCSV, "tx.new_order.max_ms", RoleMetric, MergeHistogram, MergeMax, measure.Gauge, measure.Millis, measure.Lower, "tx.new_order", "new_order"},
		{SummaryCSV, "stmt.point_select.p99_ms", RoleMetric, MergeHistogram, MergeEmpty, measure.Gauge, measure.Millis, measure.Lower, "stmt.point_select", "point_select"},
		{SummaryCSV, "cost.fsyncs", RoleCost, MergeRescale, "", measure.PerTransaction, measure.Count, measure.Lower, "", ""},
		{SummaryCSV, "cost.client_cpu_us", RoleCost, MergeLeader, "", measure.PerTransaction, "µs", measure.Lower, "", ""},
		{SummaryCSV, "status.Com_select", RoleWatched, MergeLeader, "", "", "", 0, "", ""},
		{TimeseriesCSV, "host.load1", RoleWatched, MergeLeader, "", "", "", 0, "", ""},
		{SummaryCSV, "threads_axis", RoleOther, MergeLeader, "", "", "", 0, "", ""},
	} {
		c := Describe(tc.csv, tc.name)
		if c.Role != tc.role || c.Merge != tc.merge || c.Fallback != tc.fallback || c.Kind != tc.kind || c.Unit != tc.unit ||
			c.Better != tc.better || c.Histogram != tc.histogram || c.FamilyKey != tc.key {
			t.Errorf("%s %s: got role %s merge %s/%s kind %s unit %q better %d histogram %q key %q", tc.csv, tc.name,
				c.Role, c.Merge, c.Fallback, c.Kind, c.Unit, c.Better, c.Histogram, c.FamilyKey)
		}
	}
}

// Every column the metric table writes is described by it, whatever row is added.
func TestDescribeCoversTheTable(t *testing.T) {
	for _, m := range measure.Metrics {
		c := Describe(SummaryCSV, m.Name)
		if c.Metric == nil || c.Metric.Name != m.Name || c.Better != m.Better {
			t.Errorf("%s: %+v", m.Name, c)
		}
		if (m.Latency != nil) != (c.Merge == MergeHistogram) {
			t.Errorf("%s: merge %s", m.Name, c.Merge)
		}
	}
	for i := range measure.Families {
		f := &measure.Families[i]
		names := f.Names
		if len(names) == 0 {
			n := f.Prefix + ".KEY"
			if f.Suffix != "" {
				n += "." + f.Suffix
			}
			names = []string{n}
		}
		for _, n := range names {
			if c := Describe(TimeseriesCSV, n); c.Family != f {
				t.Errorf("%s: family %v, want %s", n, c.Family, f.Pattern)
			}
		}
	}
	if got, want := measure.TxSuffixes, []string{"count", "rollbacks", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"}; !slices.Equal(got, want) {
		t.Errorf("TxSuffixes %v, want %v", got, want)
	}
	if got, want := measure.StmtSuffixes, []string{"count", "errors", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"}; !slices.Equal(got, want) {
		t.Errorf("StmtSuffixes %v, want %v", got, want)
	}
	if Throughput() == "" || Transactions(SummaryCSV) == "" || Transactions(TimeseriesCSV) != Throughput() {
		t.Errorf("throughput %q, transactions %q / %q", Throughput(), Transactions(SummaryCSV), Transactions(TimeseriesCSV))
	}
}

// A run's watched columns take their kind and source from run.json; its matrix axes are axes.
func TestRunDescribe(t *testing.T) {
	r := &Run{Info: &RunInfo{Axes: []string{"buffer"}, Targets: []TargetInfo{{Name: "db", Watched: []Column{
		{Name: "status.Com_select", Kind: measure.Counter, Source: "SHOW GLOBAL STATUS"},
		{Name: "mine.x", Kind: measure.Gauge, Source: "custom"},
	}}}}}
	if c := r.Describe(SummaryCSV, "status.Com_select"); c.Role != RoleWatched || c.Kind != measure.Counter || c.Source != "SHOW GLOBAL STATUS" {
		t.Errorf("status: %+v", c)
	}
	if c := r.Describe(TimeseriesCSV, "mine.x"); c.Role != RoleWatched || !c.Watched || c.Merge != MergeLeader {
		t.Errorf("listed watched: %+v", c)
	}
	if c := r.Describe(SummaryCSV, "buffer"); c.Role != RoleAxis || c.Merge != MergeLeader {
		t.Errorf("axis: %+v", c)
	}
}
