package results

import (
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// What each column of the folder's CSV files is. Readers (merge, export, the report,
// compare) ask Describe instead of matching column names: the workload's columns come from
// the metric table (measure.Metrics, measure.Families, measure.Costs), the watched ones from
// run.json (Column), and the row keys are named here, once.

// The row keys: columns that place a row (which iteration, target, second) rather than
// measure anything.
const (
	ColIteration = "iteration"
	ColRepeat    = "repeat"
	ColTarget    = "target"
	ColStatus    = "status"
	ColDuration  = "duration_s" // the summary's length of the measured part
	ColElapsed   = "elapsed_s"
	ColTime      = "time"
	ColStage     = measure.StageName
	ColWarmup    = measure.WarmupName
	// ColStageThreads and ColStageRate are a summary stage row's level of load as the plan
	// gives it: the stage's threads (closed loop; an open loop's connections) and its rate
	// (open loop), what a knee is drawn against. Empty on the iteration's rows, and absent
	// from folders written before them.
	ColStageThreads = "threads"
	ColStageRate    = "rate"
)

// Columns of the workloads' own tables that readers look up (the replay kind lays them out); a
// kind's declaration (measure.Table) describes them, Run.DescribeTable says it.
const (
	ColRank          = "rank"
	ColFingerprintID = "fingerprint_id"
	ColFingerprint   = "fingerprint"
	ColErrorsByCode  = "errors_by_code"
	// ColBlockedMaxMs is replay.csv's longest time one session spent blocked.
	ColBlockedMaxMs = "blocked_max_ms"
	// ColEndState is replay.csv's same or different: the written tables at the end against
	// the capture's end; ColEndDiffers names those that differ.
	ColEndState   = "end_state"
	ColEndDiffers = "end_state_differs"
	// ColCapturedErrorsByCode are the errors the capture recorded for the fingerprint.
	ColCapturedErrorsByCode = "captured_errors_by_code"
	ColCount                = "count"
	ColTotalMs              = "total_ms"
	// ColFingerprintP95 is a fingerprint's replayed 95th percentile, what comparisons line
	// fingerprints up by.
	ColFingerprintP95 = "p95_ms"
)

// CSV is which of the folder's tables a column is of.
type CSV string

// The tables Describe knows; a kind's own table is named by its file (Run.DescribeTable).
const (
	TimeseriesCSV CSV = "timeseries"
	SummaryCSV    CSV = "summary"
	QueriesCSV    CSV = "queries" // quadrant verify's
)

// Role is what a column is.
type Role string

// Roles.
const (
	// RoleKey places a row: iteration, target, elapsed_s, stage, warmup...
	RoleKey Role = "key"
	// RoleMetric is a workload figure: a row of measure.Metrics or a column of a measure.Family.
	RoleMetric Role = "metric"
	// RoleWatched is a sampled column: status.*, repl.*, query.*, host.*, proc.*, client.*.
	RoleWatched Role = "watched"
	// RoleCost is a cost per transaction (measure.Costs).
	RoleCost Role = "cost"
	// RoleAxis is a matrix axis of the summary.
	RoleAxis Role = "axis"
	// RoleOther is anything else: a record_as value, a replay's figure, an unknown column.
	RoleOther Role = "other"
)

// Merge is how the shards' cells of a column add up into one (quadrant merge).
type Merge string

// Ways to merge.
const (
	MergeKey       Merge = "key"       // a row key: the shards agree, any one's
	MergeSum       Merge = "sum"       // counts and rates: the shards' sum
	MergeHistogram Merge = "histogram" // recomputed from the shards' histograms added up
	MergeMax       Merge = "max"       // a maximum: the maximum of the shards'
	MergeLatest    Merge = "latest"    // a time: the latest of the shards'
	MergeLeader    Merge = "leader"    // the leader's, the only shard that samples (watched, record_as, axes)
	MergeRescale   Merge = "rescale"   // a server's cost: the leader's over every shard's transactions
	MergeEmpty     Merge = "empty"     // nothing kept to add up from: left empty rather than guessed
	MergeCodes     Merge = "codes"     // an errors_by_code cell: the codes' counts summed
	MergeRank      Merge = "rank"      // a rank: ranked again over the merged rows
)

// ColumnInfo describes one column of one of the folder's tables.
type ColumnInfo struct {
	Name string
	CSV  CSV
	Role Role
	// Metric is the column's row of measure.Metrics; Family its measure.Family and FamilyKey
	// the key in its name (error.1213: 1213, tx.NAME.count: NAME); Cost its measure.Costs row.
	Metric    *measure.Metric
	Family    *measure.Family
	FamilyKey string
	Cost      *measure.Cost
	// Kind is how the values read: rate, gauge, counter (watched), per_transaction (cost).
	Kind measure.Kind
	// Unit is the value's unit in this table ("" when unknown).
	Unit string
	// Watched is a sampled column (Role watched) and Source where it came from (run.json).
	Watched bool
	Source  string
	// Merge is how shards add up; Fallback how, for a histogram column, when no histogram is
	// in the folder (MergeMax for a maximum, else MergeEmpty).
	Merge, Fallback Merge
	// Better is which way the column improves; 0 when neither.
	Better measure.Direction
	// Histogram is the .hlog tag the column is a figure of (latency, connect, tx.NAME,
	// stmt.CLASS), Latency that figure; "" and nil for any other column. Fingerprint
	// percentiles are of the histogram tagged tx.ID of their row: Percentile is theirs.
	Histogram  string
	Latency    func(measure.Latency) time.Duration
	Percentile float64
}

// IsCost reports whether the column is a cost per transaction.
func (c ColumnInfo) IsCost() bool { return c.Role == RoleCost }

// WatchedPrefixes start the names of watched columns, for folders written before run.json
// listed them (and wsrep.*, a Galera node's, for a reader without run.json).
var WatchedPrefixes = []string{StatusPrefix, "repl.", "query.", HostPrefix, "proc.", "client.", "wsrep."}

// StatusFamily is the watched columns of SHOW GLOBAL STATUS, status.NAME (StatusPrefix), as
// an assertion sees them.
const (
	StatusFamily = "status"
	StatusPrefix = StatusFamily + "."
)

// CostPrefix starts the names of the cost per transaction columns.
const CostPrefix = "cost."

// Describe says what column name of table csv is, from the metric table alone: a watched
// column's kind and source need run.json (Run.Describe).
func Describe(csv CSV, name string) ColumnInfo {
	switch csv {
	case QueriesCSV:
		return describeQueries(name)
	}
	c := ColumnInfo{Name: name, CSV: csv, Role: RoleOther, Merge: MergeLeader}
	switch name {
	case ColIteration, ColRepeat, ColTarget, ColStatus, ColElapsed:
		c.Role, c.Merge = RoleKey, MergeKey
		return c
	case ColTime:
		c.Role, c.Merge = RoleKey, MergeLatest
		return c
	case ColDuration:
		c.Role, c.Merge, c.Unit = RoleKey, MergeMax, "s"
		return c
	}
	if csv == SummaryCSV && name == ColStageRate {
		c.Role, c.Merge, c.Unit = RoleKey, MergeKey, measure.PerSecond
		return c
	}
	if m, ok := lookupMetric(name); ok {
		return describeMetric(c, m)
	}
	if f, key, ok := measure.FamilyOf(name); ok {
		c.Role, c.Family, c.FamilyKey, c.Kind, c.Better, c.Merge = RoleMetric, f, key, f.Kind, f.Better, MergeSum
		c.Unit = f.TotalUnit
		if csv == TimeseriesCSV {
			c.Unit = f.IntervalUnit
		}
		if f.RowKey {
			c.Role, c.Merge = RoleKey, MergeKey
		}
		if pick := f.Figure(name); pick != nil && f.Histogram != "" {
			c.Histogram, c.Latency = f.Histogram, pick
			if key != "" {
				c.Histogram = HistogramTag(f.Histogram, key)
			}
			c.Merge, c.Fallback = MergeHistogram, fallback(pick)
		}
		return c
	}
	for i := range measure.Costs {
		if cost := &measure.Costs[i]; cost.Name == name {
			c.Role, c.Cost, c.Kind, c.Unit, c.Better, c.Merge = RoleCost, cost, measure.PerTransaction, cost.Unit, measure.Lower, MergeRescale
			if clientCost(cost) {
				// The leader's own CPU per transaction of its own stands for each client's.
				c.Merge = MergeLeader
			}
			return c
		}
	}
	if strings.HasPrefix(name, CostPrefix) {
		c.Role, c.Kind, c.Better, c.Merge = RoleCost, measure.PerTransaction, measure.Lower, MergeRescale
		return c
	}
	for _, p := range WatchedPrefixes {
		if strings.HasPrefix(name, p) {
			c.Role, c.Watched = RoleWatched, true
			return c
		}
	}
	return c
}

// describeMetric is c, a column of the time series or the summary, as metric m.
func describeMetric(c ColumnInfo, m *measure.Metric) ColumnInfo {
	c.Role, c.Metric, c.Kind, c.Better, c.Merge = RoleMetric, m, m.Kind, m.Better, MergeSum
	c.Unit = m.TotalUnit
	if c.CSV == TimeseriesCSV {
		c.Unit = m.IntervalUnit
	}
	if m.RowKey || c.CSV == SummaryCSV && c.Name == ColStageThreads {
		// the summary's threads is a stage row's level: it places the row on a knee
		c.Role, c.Merge, c.Unit = RoleKey, MergeKey, m.IntervalUnit
	}
	if m.Latency != nil {
		c.Histogram, c.Latency = "latency", m.Latency
		c.Merge, c.Fallback = MergeHistogram, fallback(m.Latency)
	}
	return c
}

// Describe says what column name of table csv is in this run: as the package's Describe,
// with the metrics of the run's kinds, a watched column's kind and source from run.json,
// and the matrix axes as such.
func (r *Run) Describe(csv CSV, name string) ColumnInfo {
	c := Describe(csv, name)
	if r == nil || r.Info == nil {
		return c
	}
	if m, ok := r.Info.metric(name); ok && c.Role == RoleOther && (csv == SummaryCSV || csv == TimeseriesCSV) {
		return describeMetric(c, m)
	}
	// A matrix axis may have a stage level's name (matrix: {threads: [...]}): the axis it is.
	if (csv == SummaryCSV || csv == TimeseriesCSV) && (c.Role == RoleOther || csv == SummaryCSV && (name == ColStageThreads || name == ColStageRate)) {
		for _, a := range r.Info.Axes {
			if a == name {
				c.Role = RoleAxis
				return c
			}
		}
	}
	for _, t := range r.Info.Targets {
		for _, w := range t.Watched {
			if w.Name != name {
				continue
			}
			c.Kind, c.Source = w.Kind, w.Source
			if c.Role == RoleOther {
				c.Role, c.Watched = RoleWatched, true
			}
			return c
		}
	}
	return c
}

// IsKey reports whether column name of table csv places a row rather than measures.
func IsKey(csv CSV, name string) bool { return Describe(csv, name).Role == RoleKey }

// Headline is the summary columns a reader leads with (the report's headline, compare's
// defaults): the Headline metrics of the table and of the run's kinds (run.json) that have
// a value in some row and, when one has, the summary's columns of the Headline families (a
// kind's headline, then tx.NAME.p90_ms); nil when the workload has none.
func (r *Run) Headline() []string {
	if r == nil || r.Summary == nil {
		return nil
	}
	d := r.Summary
	has := func(name string) bool {
		for i := range d.Rows {
			if _, ok := d.Float(i, name); ok {
				return true
			}
		}
		return false
	}
	var out []string
	for _, m := range measure.Metrics {
		if m.Headline && has(m.Name) {
			out = append(out, m.Name)
		}
	}
	for _, h := range d.Header {
		if m, ok := r.Info.metric(h); ok && m.Headline && has(h) && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil
	}
	for _, h := range d.Header {
		if f, _, ok := measure.FamilyOf(h); ok && f.Headline && has(h) {
			out = append(out, h)
		}
	}
	return out
}

// Throughput is the time series' and the summary's transactions per second: the figure a
// comparison leads with.
func Throughput() string {
	for _, m := range measure.Metrics {
		if m.Events && m.Interval != nil && m.Total != nil {
			return m.Name
		}
	}
	return ""
}

// Transactions is the column of csv (time series or summary) that counts completed
// transactions, what a cost per transaction is over: the summary's count, the time series'
// rate.
func Transactions(csv CSV) string {
	for _, m := range measure.Metrics {
		switch {
		case !m.Events:
		case csv == TimeseriesCSV && m.Interval != nil:
			return m.Name
		case csv == SummaryCSV && m.Interval == nil && m.Total != nil:
			return m.Name
		}
	}
	return ""
}

func lookupMetric(name string) (*measure.Metric, bool) {
	for i := range measure.Metrics {
		if measure.Metrics[i].Name == name {
			return &measure.Metrics[i], true
		}
	}
	return nil, false
}

// fallback is how a latency figure merges without a histogram: a maximum is the maximum of
// the maxima (the figure a latency whose only value is its Max gives), any other is not to be
// guessed.
func fallback(pick func(measure.Latency) time.Duration) Merge {
	if pick(measure.Latency{Max: time.Millisecond}) == time.Millisecond && pick(measure.Latency{Avg: time.Millisecond, P50: time.Millisecond}) == 0 {
		return MergeMax
	}
	return MergeEmpty
}

// clientCost is a cost of quadrant's own process (its counters are client.*), not a server's.
func clientCost(c *measure.Cost) bool {
	for _, f := range c.From {
		if !strings.HasPrefix(f, "client.") {
			return false
		}
	}
	return len(c.From) > 0
}
