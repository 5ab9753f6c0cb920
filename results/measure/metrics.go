package measure

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Metric is one figure of a measured workload, written down once: the time series, the
// summary, assertions, compare's defaults, the report and the generated docs all derive
// their columns from Metrics and Families. Adding a column is adding a row here.
type Metric struct {
	Name string
	Doc  string // one line: what it means
	// Interval is the value in a time-series row of the workload's target, over one report
	// interval; nil when the time series has no such column.
	Interval     func(*Interval) float64
	IntervalUnit string
	// Total is the value in a summary row and what an assertion sees, over the measured
	// part of an iteration; nil when the summary has no such column.
	Total     func(*Total) float64
	TotalUnit string
	// Compare marks the metrics `quadrant compare` shows unless told otherwise.
	Compare bool
	// Headline marks the figure a workload that has it is judged by (a kind's own metric,
	// none of the table's): where a summary has it, it and the Headline families' columns
	// lead the console's end of an iteration, the report's headline and compare's defaults.
	Headline bool
	// Better says which way is an improvement (tps up, latency down), for compare's
	// verdicts; 0 when neither is (threads, warmup).
	Better Direction
	// Chart marks the metrics the report charts first.
	Chart bool
	// Kind says how a reader aggregates the time-series column: a Rate or Gauge per
	// interval. Totals are what Total says.
	Kind Kind
	// Latency is the figure the column takes from the workload's latency histogram; nil for
	// columns that are not one. A reader that adds histograms up recomputes these columns.
	Latency func(Latency) time.Duration
	// Events marks the count of completed transactions (the summary's count, the time
	// series' rate): what a cost per transaction divides by and the throughput a
	// comparison leads with.
	Events bool
	// RowKey marks a column that places its row rather than measures it (warmup): readers
	// neither chart nor compare it, and a merge takes any shard's value.
	RowKey bool
	// Outcome marks an iteration metric a step records that says what the step came to (a
	// drill's acknowledged commits lost, seconds without a write, recovery): the console's
	// end of an iteration shows it, and the report's table of the step's figures per cell.
	Outcome bool
	// Loss, when set, marks a count of what an iteration lost (a drill's acknowledged
	// commits) and says what an iteration whose count is above 0 did ("lost acknowledged
	// commits"): the report says in how many repeats of each cell it did so.
	Loss string
}

// Kind says how a column's values are to be read.
type Kind string

const (
	// Rate columns are per-second figures over their interval.
	Rate Kind = "rate"
	// Gauge columns are a level at the end of (or over) their interval: a latency, a count of threads.
	Gauge Kind = "gauge"
	// Counter columns of watched sources are per-second rates of a server counter over the interval;
	// their summary is the increase over the workload.
	Counter Kind = "counter"
)

// Direction is which way a metric improves.
type Direction int8

const (
	// Higher is better: throughput.
	Higher Direction = 1
	// Lower is better: latency, errors.
	Lower Direction = -1
)

// Family is a set of columns named by a pattern (error.CODE, tx.NAME.count): one column per
// key the measurement has.
type Family struct {
	Pattern  string // how the names look, for docs: "error.CODE"
	Doc      string
	Interval func(iv *Interval, add func(name string, v float64))
	Total    func(t *Total, add func(name string, v float64))
	// Prefix and Suffix name the columns PREFIX.KEY.SUFFIX (PREFIX.KEY without a suffix);
	// a family of fixed columns lists them in Names instead (connect's, stage).
	Prefix, Suffix string
	Names          []string
	// Kind, the units and Better are as a Metric's, for every column of the family.
	Kind                    Kind
	IntervalUnit, TotalUnit string
	Better                  Direction
	RowKey                  bool
	// Headline marks a family whose columns join a known Headline metric (tx.NAME.p90_ms
	// beside a kind's headline): the same columns of a workload without one stay out.
	Headline bool
	// Histogram and Latency are set on families of latency columns: each column is figure
	// Latency of the histogram tagged Histogram.KEY (Histogram alone for fixed Names, whose
	// figures are Figures, one per name).
	Histogram string
	Latency   func(Latency) time.Duration
	Figures   []func(Latency) time.Duration
}

// Match says whether column name is one of f's, and its key (the CODE, NAME or CLASS; ""
// for a fixed name).
func (f *Family) Match(name string) (key string, ok bool) {
	if len(f.Names) > 0 {
		return "", slices.Contains(f.Names, name)
	}
	if f.Prefix == "" {
		return "", false
	}
	rest, ok := strings.CutPrefix(name, f.Prefix+".")
	if !ok {
		return "", false
	}
	if f.Suffix != "" {
		if rest, ok = strings.CutSuffix(rest, "."+f.Suffix); !ok {
			return "", false
		}
	}
	return rest, rest != ""
}

// Figure is what column name of f takes from its histogram; nil for a family of no latency.
func (f *Family) Figure(name string) func(Latency) time.Duration {
	if f.Latency != nil {
		return f.Latency
	}
	for i, n := range f.Names {
		if n == name && i < len(f.Figures) {
			return f.Figures[i]
		}
	}
	return nil
}

// Names of the table's rows that readers place rows by.
const (
	WarmupName = "warmup"
	StageName  = "stage"
)

// Prefixes of the families named by key: error.CODE, tx.NAME.SUFFIX, stmt.CLASS.SUFFIX,
// node.NAME.SUFFIX. An
// assertion sees tx.NAME.SUFFIX under TxPrefix.
const (
	ErrorPrefix = "error"
	TxPrefix    = "tx"
	StmtPrefix  = "stmt"
	NodePrefix  = "node"
)

// Units.
const (
	PerSecond = "1/s"
	Count     = "count"
	Millis    = "ms"
	PerMinute = "1/min"
	Percent   = "%"
)

// Ms is d in milliseconds; an unknown latency (negative, see Latency) is NaN, which the
// results folder writes as an empty cell.
func Ms(d time.Duration) float64 {
	if d < 0 {
		return math.NaN()
	}
	return float64(d) / float64(time.Millisecond)
}

func latency(name, doc string, pick func(Latency) time.Duration, compare, chart bool) Metric {
	return Metric{
		Name: name, Doc: doc, Kind: Gauge, Compare: compare, Chart: chart, Better: Lower, Latency: pick,
		Interval: func(iv *Interval) float64 { return Ms(pick(iv.Lat)) }, IntervalUnit: Millis,
		Total: func(t *Total) float64 { return Ms(pick(t.Lat)) }, TotalUnit: Millis,
	}
}

// counted is a per-second rate in the time series and a total in the summary.
func counted(name, doc string, pick func(Counts) int64, compare bool, better Direction) Metric {
	return Metric{
		Name: name, Doc: doc, Kind: Rate, Compare: compare, Better: better,
		Interval: func(iv *Interval) float64 {
			if s := iv.Seconds(); s > 0 {
				return float64(pick(iv.Counts)) / s
			}
			return 0
		},
		IntervalUnit: PerSecond,
		Total:        func(t *Total) float64 { return float64(pick(t.Counts)) }, TotalUnit: Count,
	}
}

// Metrics are the figures every workload has, in column order (after the row's keys); a
// kind's own (Own) go after the counts, before the latencies (MetricsOf).
var Metrics = []Metric{
	{Name: "transactions", Doc: "transactions (sysbench events) completed in the measured part",
		Total: func(t *Total) float64 { return float64(t.Events) }, TotalUnit: Count, Better: Higher, Events: true},
	{Name: "tps", Doc: "transactions per second", Kind: Rate, Compare: true, Chart: true, Better: Higher, Events: true,
		Interval: func(iv *Interval) float64 { return iv.Rates().TPS }, IntervalUnit: PerSecond,
		Total: func(t *Total) float64 { return t.Rates().TPS }, TotalUnit: PerSecond},
	{Name: "qps", Doc: "statements per second (reads + writes + other)", Kind: Rate, Compare: true, Better: Higher,
		Interval: func(iv *Interval) float64 { return iv.Rates().QPS }, IntervalUnit: PerSecond,
		Total: func(t *Total) float64 { return t.Rates().QPS }, TotalUnit: PerSecond},
	counted("reads", "statements that returned a result set, as sysbench counts them (per second in the time series)", func(c Counts) int64 { return c.Reads }, false, Higher),
	counted("writes", "statements that affected rows > 0 (per second in the time series)", func(c Counts) int64 { return c.Writes }, false, Higher),
	counted("other", "any other statement: BEGIN, COMMIT, DDL... (per second in the time series)", func(c Counts) int64 { return c.Other }, false, Higher),
	counted("errors", "errors, ignored ones (deadlocks, lock wait timeouts) included, as in sysbench (per second in the time series)", func(c Counts) int64 { return c.Errors }, true, Lower),
	counted("reconnects", "reconnections after an error in on_error.reconnect (per second in the time series)", func(c Counts) int64 { return c.Reconnects }, false, Lower),
	counted("cert_failures", "Galera certification failures: errors 1213 of a Galera node (wsrep_on=ON), a transaction that lost to a conflicting one another node committed first (it failed certification, or that one's writes aborted it); MariaDB words them as a deadlock, so an InnoDB deadlock on a Galera node counts too, and elsewhere only a 1213 worded \"WSREP detected deadlock/conflict\" does. Counted in errors and error.1213 too, retried as on_error says (per second in the time series)", func(c Counts) int64 { return c.CertFailures }, false, Lower),
	counted("rollbacks", "transactions rolled back on purpose (tpcc: NewOrder with an unused item, 1%), completed events and never errors (per second in the time series)", func(c Counts) int64 { return c.Rollbacks }, false, 0),
	latency("lat_avg_ms", "mean transaction latency", func(l Latency) time.Duration { return l.Avg }, true, false),
	latency("p50_ms", "median transaction latency", func(l Latency) time.Duration { return l.P50 }, false, false),
	latency("p90_ms", "90th percentile of transaction latency", func(l Latency) time.Duration { return l.P90 }, false, false),
	latency("p95_ms", "95th percentile of transaction latency", func(l Latency) time.Duration { return l.P95 }, true, true),
	latency("p99_ms", "99th percentile of transaction latency", func(l Latency) time.Duration { return l.P99 }, true, false),
	latency("p999_ms", "99.9th percentile of transaction latency", func(l Latency) time.Duration { return l.P999 }, false, false),
	latency("lat_max_ms", "largest transaction latency", func(l Latency) time.Duration { return l.Max }, false, false),
	{Name: "threads", Doc: "worker threads running; in summary.csv, only on a stage row: the stage's threads as the plan gives them (and `rate`, its rate in open loop)", Kind: Gauge,
		Interval: func(iv *Interval) float64 { return float64(iv.Threads) }, IntervalUnit: Count},
	{Name: WarmupName, Doc: "1 for a warmup interval (not counted in the summary), else 0", Kind: Gauge, RowKey: true,
		Interval: func(iv *Interval) float64 {
			if iv.Warmup {
				return 1
			}
			return 0
		}, IntervalUnit: Count},
	{Name: "backlog", Doc: "open loop: transactions due but not started at the interval's end", Kind: Gauge, Better: Lower,
		Interval: func(iv *Interval) float64 { return float64(iv.Backlog) }, IntervalUnit: Count},
}

// Families are the workload's columns named by key, after Metrics.
var Families = []Family{
	{Pattern: "connect_ms, connect_p50_ms, connect_p95_ms, connect_p99_ms, connect_max_ms", Names: ConnectNames, Figures: connectFigures,
		Histogram: "connect", Kind: Gauge, IntervalUnit: Millis, TotalUnit: Millis, Better: Lower, Doc: "connect: per_transaction only: mean, median, 95th, 99th percentile and largest time to open a new connection (log in, prepare the statements again); not part of the transaction latency",
		Interval: func(iv *Interval, add func(string, float64)) { connectValues(&iv.Stats, add) },
		Total:    func(t *Total, add func(string, float64)) { connectValues(&t.Stats, add) }},
	{Pattern: StageName, Names: []string{StageName}, Kind: Gauge, IntervalUnit: Count, RowKey: true, Doc: "with stages: the load shape's stage of the interval (1, 2, ...; empty in warmup); in summary.csv, set on the row of each stage and empty on the iteration's",
		Interval: func(iv *Interval, add func(string, float64)) {
			if iv.Stage > 0 {
				add(StageName, float64(iv.Stage))
			}
		}},
	{Pattern: "error.CODE", Prefix: ErrorPrefix, Kind: Rate, IntervalUnit: PerSecond, TotalUnit: Count, Better: Lower, Doc: "errors with MySQL error number CODE (0: no number, e.g. a timeout); per second in the time series, a count in the summary",
		Interval: func(iv *Interval, add func(string, float64)) {
			for _, code := range iv.ErrorCodes() {
				add(ErrorPrefix+"."+strconv.Itoa(code), float64(iv.ErrorsByCode[code])/iv.Seconds())
			}
		},
		Total: func(t *Total, add func(string, float64)) {
			for _, code := range t.ErrorCodes() {
				add(ErrorPrefix+"."+strconv.Itoa(code), float64(t.ErrorsByCode[code]))
			}
		}},
	nodeCounted("transactions", "on a Galera target (whatever nodes: says; 0 for a node without threads): transactions completed by the threads on node NAME (its target name)", func(c Counts) int64 { return c.Events }, Higher),
	nodeCounted("errors", "on a Galera target: errors of the threads on node NAME, as errors counts them", func(c Counts) int64 { return c.Errors }, Lower),
	nodeCounted("cert_failures", "on a Galera target: certification failures of the threads on node NAME, as cert_failures counts them", func(c Counts) int64 { return c.CertFailures }, Lower),
	txCounted("count", "executions of transaction NAME (custom transactions, tpcc)", func(c Counts) int64 { return c.Events }, Higher),
	txCounted("rollbacks", "executions of NAME rolled back on purpose (tpcc's NewOrder with an unused item), counted in tx.NAME.count too", func(c Counts) int64 { return c.Rollbacks }, 0),
	txLatency("p50_ms", "median", func(l Latency) time.Duration { return l.P50 }),
	headlineFamily(txLatency("p90_ms", "90th percentile of the", func(l Latency) time.Duration { return l.P90 })),
	txLatency("p95_ms", "95th percentile of the", func(l Latency) time.Duration { return l.P95 }),
	txLatency("p99_ms", "99th percentile of the", func(l Latency) time.Duration { return l.P99 }),
	txLatency("max_ms", "largest", func(l Latency) time.Duration { return l.Max }),
	stmtCounted("count", "statements of class CLASS executed ("+strings.Join(StmtClasses, ", ")+
		"), those of failed and retried events included", func(c Counts) int64 { return c.Events }, Higher),
	stmtCounted("errors", "server errors of statements of class CLASS (deadlocks, lock wait timeouts...; not lost connections), counted in errors too", func(c Counts) int64 { return c.Errors }, Lower),
	stmtLatency("p50_ms", "median", func(l Latency) time.Duration { return l.P50 }),
	stmtLatency("p90_ms", "90th percentile of the", func(l Latency) time.Duration { return l.P90 }),
	stmtLatency("p95_ms", "95th percentile of the", func(l Latency) time.Duration { return l.P95 }),
	stmtLatency("p99_ms", "99th percentile of the", func(l Latency) time.Duration { return l.P99 }),
	stmtLatency("max_ms", "largest", func(l Latency) time.Duration { return l.Max }),
}

func headlineFamily(f Family) Family { f.Headline = true; return f }

// ConnectNames are the connect: per_transaction columns, in order, and connectFigures
// what each takes from the connect histogram.
var (
	ConnectNames   = []string{"connect_ms", "connect_p50_ms", "connect_p95_ms", "connect_p99_ms", "connect_max_ms"}
	connectFigures = []func(Latency) time.Duration{
		func(l Latency) time.Duration { return l.Avg }, func(l Latency) time.Duration { return l.P50 },
		func(l Latency) time.Duration { return l.P95 }, func(l Latency) time.Duration { return l.P99 },
		func(l Latency) time.Duration { return l.Max },
	}
)

func connectValues(s *Stats, add func(string, float64)) {
	if s.Connect == nil {
		return
	}
	l := s.ConnectLat
	if s.Connect.Count() == 0 {
		l = unknownLatency
	}
	for i, pick := range connectFigures {
		add(ConnectNames[i], Ms(pick(l)))
	}
}

// StmtSuffixes are the per-statement-class figures, stmt.CLASS.SUFFIX, in column order:
// the Families' rows of prefix stmt.
var StmtSuffixes = suffixesOf(StmtPrefix)

// StmtClasses are the statement classes of the OLTP builtins, as their stmt.CLASS.* columns
// name them, in the order a transaction of oltp_read_write runs them.
var StmtClasses = []string{
	"begin", "point_select", "simple_range", "sum_range", "order_range", "distinct_range",
	"index_update", "non_index_update", "delete", "insert", "commit",
}

// stmtCounted is a count of a statement class: per second in the time series, a total in
// the summary.
func stmtCounted(suffix, doc string, pick func(Counts) int64, better Direction) Family {
	return namedCounted(StmtPrefix, "CLASS", suffix, "OLTP builtins with options: {statement_stats: on}: "+doc,
		func(s *Stats) []Named { return s.Statements }, pick, better)
}

// namedCounted is a count of each entry of one of Stats' named lists (PREFIX.NAME.SUFFIX):
// per second in the time series, a total in the summary.
func namedCounted(prefix, placeholder, suffix, doc string, list func(*Stats) []Named, pick func(Counts) int64, better Direction) Family {
	return Family{Pattern: prefix + "." + placeholder + "." + suffix, Doc: doc + "; per second in the time series, a count in the summary",
		Prefix: prefix, Suffix: suffix, Kind: Rate, IntervalUnit: PerSecond, TotalUnit: Count, Better: better,
		Interval: func(iv *Interval, add func(string, float64)) {
			for _, n := range list(&iv.Stats) {
				v := 0.0
				if s := iv.Seconds(); s > 0 {
					v = float64(pick(n.Counts)) / s
				}
				add(prefix+"."+n.Name+"."+suffix, v)
			}
		},
		Total: func(t *Total, add func(string, float64)) {
			for _, n := range list(&t.Stats) {
				add(prefix+"."+n.Name+"."+suffix, float64(pick(n.Counts)))
			}
		}}
}

// stmtLatency is a statement class's latency, from its own histogram; empty when the class
// ran no statement (a time-series interval without one).
func stmtLatency(suffix, what string, pick func(Latency) time.Duration) Family {
	ms := func(n Named) float64 {
		if n.Counts.Events == 0 {
			return math.NaN()
		}
		return Ms(pick(n.Lat))
	}
	return Family{Histogram: StmtPrefix, Prefix: StmtPrefix, Suffix: suffix, Latency: pick, Kind: Gauge, IntervalUnit: Millis, TotalUnit: Millis, Better: Lower,
		Pattern: "stmt.CLASS." + suffix, Doc: what + " latency of statements of class CLASS (OLTP builtins), from the client's write to the statement's reply; " +
			"a BEGIN or COMMIT that goes out in one write with a statement is timed to its own reply, and the statement from there",
		Interval: func(iv *Interval, add func(string, float64)) {
			for _, st := range iv.Statements {
				add(StmtPrefix+"."+st.Name+"."+suffix, ms(st))
			}
		},
		Total: func(t *Total, add func(string, float64)) {
			for _, st := range t.Statements {
				add(StmtPrefix+"."+st.Name+"."+suffix, ms(st))
			}
		}}
}

// TxSuffixes are the per-transaction figures, tx.NAME.SUFFIX, in column order: the
// Families' rows of prefix tx.
var TxSuffixes = suffixesOf(TxPrefix)

// NodeSuffixes are the per-node figures of a spread workload, node.NAME.SUFFIX, in column
// order: the Families' rows of prefix node.
var NodeSuffixes = suffixesOf(NodePrefix)

// suffixesOf are the suffixes of the Families of prefix, in order.
func suffixesOf(prefix string) []string {
	var out []string
	for _, f := range Families {
		if f.Prefix == prefix && f.Suffix != "" {
			out = append(out, f.Suffix)
		}
	}
	return out
}

// nodeCounted is a count per node of a spread workload: per second in the time series, a
// total in the summary.
func nodeCounted(suffix, doc string, pick func(Counts) int64, better Direction) Family {
	return namedCounted(NodePrefix, "NAME", suffix, doc, func(s *Stats) []Named { return s.Nodes }, pick, better)
}

// txCounted is a per-transaction count: per second in the time series, a total in the summary.
func txCounted(suffix, doc string, pick func(Counts) int64, better Direction) Family {
	return namedCounted(TxPrefix, "NAME", suffix, doc, func(s *Stats) []Named { return s.Transactions }, pick, better)
}

func txLatency(suffix, what string, pick func(Latency) time.Duration) Family {
	return Family{Histogram: TxPrefix, Prefix: TxPrefix, Suffix: suffix, Latency: pick, Kind: Gauge, IntervalUnit: Millis, TotalUnit: Millis, Better: Lower,
		Pattern: "tx.NAME." + suffix, Doc: what + " latency of transaction NAME (custom transactions, tpcc)",
		Interval: func(iv *Interval, add func(string, float64)) {
			for _, tx := range iv.Transactions {
				add(TxPrefix+"."+tx.Name+"."+suffix, Ms(pick(tx.Lat)))
			}
		},
		Total: func(t *Total, add func(string, float64)) {
			for _, tx := range t.Transactions {
				add(TxPrefix+"."+tx.Name+"."+suffix, Ms(pick(tx.Lat)))
			}
		}}
}

// Value is one named figure.
type Value struct {
	Name  string
	Value float64
}

// MetricsOf are the metrics of a workload whose kind adds own (nil: none) in column order:
// the table's, with the kind's after the counts and before the latencies.
func MetricsOf(own *Own) []Metric {
	if own == nil || len(own.Metrics) == 0 {
		return Metrics
	}
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Latency != nil })
	out := append(slices.Clone(Metrics[:i]), own.Metrics...)
	return append(out, Metrics[i:]...)
}

// IntervalValues are iv's time-series columns, in order.
func IntervalValues(iv *Interval) []Value {
	var out []Value
	for _, m := range MetricsOf(iv.Own) {
		if m.Interval != nil {
			out = append(out, Value{m.Name, m.Interval(iv)})
		}
	}
	for _, f := range Families {
		if f.Interval != nil {
			f.Interval(iv, func(n string, v float64) { out = append(out, Value{n, v}) })
		}
	}
	return out
}

// TotalValues are t's summary columns, in order: the fixed metrics, then the families.
func TotalValues(t *Total) (fixed, family []Value) {
	for _, m := range MetricsOf(t.Own) {
		if m.Total != nil {
			fixed = append(fixed, Value{m.Name, m.Total(t)})
		}
	}
	for _, f := range Families {
		if f.Total != nil {
			f.Total(t, func(n string, v float64) { family = append(family, Value{n, v}) })
		}
	}
	return fixed, family
}

// AssertionNames are the metrics an `assert:` may use by name: every metric with a Total
// (a kind's own are the kind's: spec.Kind.Metrics).
func AssertionNames() []string {
	var out []string
	for _, m := range Metrics {
		if m.Total != nil {
			out = append(out, m.Name)
		}
	}
	return out
}

// CompareDefaults are the metrics compared unless asked otherwise.
func CompareDefaults() []string {
	var out []string
	for _, m := range Metrics {
		if m.Compare {
			out = append(out, m.Name)
		}
	}
	return out
}

// Headlines are the figures a summary's values lead with: the Headline metrics (of the
// table and own, the kind's) that are known (not NaN) and, when one is, the columns of the
// Headline families; nil when none is.
func Headlines(own *Own, fixed, family []Value) []Value {
	var out []Value
	for _, v := range fixed {
		if m, ok := LookupIn(MetricsOf(own), v.Name); ok && m.Headline && !math.IsNaN(v.Value) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	for _, v := range family {
		if f, _, ok := FamilyOf(v.Name); ok && f.Headline {
			out = append(out, v)
		}
	}
	return out
}

// ChartDefaults are the time-series metrics a report shows first.
func ChartDefaults() []string {
	var out []string
	for _, m := range Metrics {
		if m.Chart {
			out = append(out, m.Name)
		}
	}
	return out
}

// Lookup is the table's metric of that name.
func Lookup(name string) (Metric, bool) { return LookupIn(Metrics, name) }

// LookupIn is the metric of that name in ms.
func LookupIn(ms []Metric, name string) (Metric, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Cost is a figure per transaction of the workload, from watched counters of a target: what a transaction
// cost the server (or the client) in CPU, context switches, I/O and fsyncs. CostMeter does the division, for
// the time series and the summary alike.
type Cost struct {
	Name string
	Doc  string
	Unit string
	// From are the watched counter columns whose increase is the cost; those a target has are summed.
	From []string
}

// PerTransaction is the kind of cost columns in run.json: a counter's increase divided by the transactions
// of the same interval (time series) or of the measured part (summary).
const PerTransaction Kind = "per_transaction"

// Costs are the cost columns in order, after the watched columns.
var Costs = []Cost{
	{Name: "cost.server_cpu_us", Unit: "µs", From: []string{"proc.cpu_us"},
		Doc: "CPU time (user + system, every thread) of the target's server process per transaction; needs a sandbox, or pid/pid_file on a dsn target on this machine"},
	{Name: "cost.client_cpu_us", Unit: "µs", From: []string{"client.cpu_us"},
		Doc: "CPU time of quadrant itself per transaction, on the workload's target; log.txt warns when it used 80% of a core or more (results may be client-bound)"},
	{Name: "cost.ctx_switches", Unit: Count, From: []string{"proc.ctx_switches"},
		Doc: "context switches (voluntary + involuntary) of the server process's threads per transaction"},
	{Name: "cost.read_kb", Unit: "KiB", From: []string{"proc.read_kb"},
		Doc: "storage reads of the server process per transaction (/proc/PID/io read_bytes: the page cache does not count)"},
	{Name: "cost.write_kb", Unit: "KiB", From: []string{"proc.write_kb"},
		Doc: "storage writes of the server process per transaction (/proc/PID/io write_bytes less cancelled writes)"},
	{Name: "cost.fsyncs", Unit: Count, From: []string{"status.Innodb_data_fsyncs", "status.Innodb_os_log_fsyncs"},
		Doc: "InnoDB fsyncs per transaction: Innodb_data_fsyncs plus Innodb_os_log_fsyncs where the server has it (MySQL; MariaDB counts log fsyncs in the first); both are in the default watch.status, a plan's own list needs them"},
}

// FamilyOf is the family column name belongs to, and its key (the CODE, NAME or CLASS).
func FamilyOf(name string) (*Family, string, bool) {
	for i := range Families {
		if key, ok := Families[i].Match(name); ok {
			return &Families[i], key, true
		}
	}
	return nil, "", false
}
