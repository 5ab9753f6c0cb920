package measure

import (
	"maps"
	"slices"
	"time"
)

// Counts are plain event and statement counters, sysbench's meaning:
// a statement returning a result set is a read, affected rows > 0 a write,
// anything else other.
type Counts struct {
	Events     int64 `json:"events"` // transactions (sysbench "events")
	Reads      int64 `json:"reads"`
	Writes     int64 `json:"writes"`
	Other      int64 `json:"other"`
	Errors     int64 `json:"errors"` // all errors, ignored ones included
	Reconnects int64 `json:"reconnects"`
	// Rollbacks are transactions the workload rolled back on purpose (TPC-C's NewOrder
	// with an unused item): completed events, never errors.
	Rollbacks int64 `json:"rollbacks,omitempty"`
	// CertFailures are the errors that were a Galera node's certification failure (error
	// 1213 with the WSREP message, engine.CertFailure): counted in Errors too.
	CertFailures int64 `json:"cert_failures,omitempty"`
}

// Queries is reads + writes + other.
func (c Counts) Queries() int64 { return c.Reads + c.Writes + c.Other }

func (c *Counts) add(o Counts) {
	c.Events += o.Events
	c.Reads += o.Reads
	c.Writes += o.Writes
	c.Other += o.Other
	c.Errors += o.Errors
	c.Reconnects += o.Reconnects
	c.Rollbacks += o.Rollbacks
	c.CertFailures += o.CertFailures
}

// Latency is the derived summary of a latency histogram. A negative field
// means unknown: results parsed from sysbench carry only what sysbench prints.
type Latency struct {
	Avg  time.Duration `json:"avg"`
	Min  time.Duration `json:"min"`
	P50  time.Duration `json:"p50"`
	P90  time.Duration `json:"p90"`
	P95  time.Duration `json:"p95"`
	P99  time.Duration `json:"p99"`
	P999 time.Duration `json:"p999"`
	Max  time.Duration `json:"max"`
}

// Unknown latency summary (every field -1).
var unknownLatency = Latency{-1, -1, -1, -1, -1, -1, -1, -1}

// UnknownLatency returns a summary with every field unknown (-1).
func UnknownLatency() Latency { return unknownLatency }

// Summarize derives the summary of h (zeros when h is empty, unknown when nil).
func Summarize(h *Histogram) Latency {
	if h == nil {
		return unknownLatency
	}
	return Latency{
		Avg: h.Mean(), Min: h.Min(), P50: h.Percentile(50), P90: h.Percentile(90), P95: h.Percentile(95),
		P99: h.Percentile(99), P999: h.Percentile(99.9), Max: h.Max(),
	}
}

// Named are the statistics of one named transaction of a custom workload
// (or one statement kind of a replay).
type Named struct {
	Name    string     `json:"name"`
	Counts  Counts     `json:"counts"`
	Latency *Histogram `json:"latency"`
	Lat     Latency    `json:"lat"`
}

// Stats is what an Interval and the Total have in common.
type Stats struct {
	Counts
	// ErrorsByCode: MySQL error number (server or client, e.g. 1213, 2013) -> count.
	// Errors without a MySQL number (timeouts, driver errors) use code 0.
	ErrorsByCode map[int]int64 `json:"errors_by_code,omitempty"`
	// Latency of each event in µs. Closed loop: from event start. Open loop: from the
	// event's intended (scheduled) start, so queueing counts (no coordinated omission).
	// Nil for results parsed from sysbench output.
	Latency *Histogram `json:"latency,omitempty"`
	// Service time (from actual start) in open loop; nil in closed loop (equal to Latency).
	Service *Histogram `json:"service,omitempty"`
	// Lag, open loop only: actual start minus intended start of each event
	// (Latency minus Service, event by event); nil in closed loop.
	Lag *Histogram `json:"lag,omitempty"`
	// Connect: connect: per_transaction only, how long each new connection took to log in
	// (and prepare its statements again); nil otherwise.
	Connect *Histogram `json:"connect,omitempty"`
	// Lat is the summary of Latency (or what sysbench printed).
	Lat Latency `json:"lat"`
	// ConnectLat is the summary of Connect.
	ConnectLat Latency `json:"connect_lat"`
	// Transactions: per-transaction statistics of a custom workload, in declaration order.
	Transactions []Named `json:"transactions,omitempty"`
	// Statements: per-statement-class statistics of an OLTP builtin (point_select, begin...),
	// Counts.Events being the statements executed; in the builtin's order.
	Statements []Named `json:"statements,omitempty"`
	// Nodes: a workload whose threads are spread over a Galera cluster's nodes (nodes:),
	// each node's counts under its target name, in the nodes' order; nil otherwise.
	Nodes []Named `json:"nodes,omitempty"`
	// Own is set for a workload whose kind has metrics of its own (workload.Kind.Metrics):
	// those metrics and what they are relative to, on every Interval and the Total.
	Own *Own `json:"own,omitempty"`
}

// Own is what a kind adds to its workload's figures: its own metrics, columns of the time
// series and the summary after the counts (they name no kind here: the kind declares them),
// and the workload's settings they are computed from (a scale, a mode), by name.
type Own struct {
	Metrics []Metric           `json:"-"`
	Params  map[string]float64 `json:"params,omitempty"`
}

// Param is the workload's setting name for its kind's metrics; ok false without one.
func (s *Stats) Param(name string) (v float64, ok bool) {
	if s.Own == nil {
		return 0, false
	}
	v, ok = s.Own.Params[name]
	return v, ok
}

// Tx are the completed executions of transaction name, rolled back ones included.
func (s *Stats) Tx(name string) int64 {
	for _, n := range s.Transactions {
		if n.Name == name {
			return n.Counts.Events
		}
	}
	return 0
}

// Interval is one report interval. The engine's ticker produces one per report_interval;
// it is the clock watchers sample on.
type Interval struct {
	Index int       `json:"index"` // 1-based, warmup intervals included
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Elapsed is End minus the start of the measured part: <= 0 for warmup intervals.
	Elapsed time.Duration `json:"elapsed"`
	Warmup  bool          `json:"warmup"`
	Threads int           `json:"threads"`
	// Backlog: open loop, events scheduled but not yet started at End.
	Backlog int64 `json:"backlog"`
	// Stage is the load shape's stage the interval is in (1, 2...); 0 in warmup and
	// without stages.
	Stage int `json:"stage,omitempty"`
	Stats
}

// Seconds is the interval's length.
func (iv *Interval) Seconds() float64 { return iv.End.Sub(iv.Start).Seconds() }

// Rates returns per-second rates of the interval.
func (iv *Interval) Rates() Rates { return rates(&iv.Stats, iv.Seconds()) }

// Total covers the measured part of a workload (warmup excluded).
type Total struct {
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	Threads    int       `json:"threads"`
	MaxBacklog int64     `json:"max_backlog"`
	// Rows are the rows of the kind's own tables (its Table declarations), by file, that
	// its run produced: results writes them with the iteration and target first.
	Rows map[string][]Row `json:"-"`
	// Summary is the kind's own account of the run, opaque to every other layer (its Rows
	// are what the folder keeps; its tests read this).
	Summary any `json:"-"`
	Stats
	// Stages are a load shape's stages, each its own Total (Stage set, from 1); nil
	// without stages. Stage is 0 for the whole measured part.
	Stages []*Total `json:"stages,omitempty"`
	Stage  int      `json:"stage,omitempty"`
}

// Seconds is the length of the measured part.
func (t *Total) Seconds() float64 { return t.End.Sub(t.Start).Seconds() }

// Rates returns per-second rates over the measured part.
func (t *Total) Rates() Rates { return rates(&t.Stats, t.Seconds()) }

// Rates are per-second figures.
type Rates struct {
	TPS, QPS, Reads, Writes, Other, Errors, Reconnects float64
}

func rates(s *Stats, sec float64) Rates {
	if sec <= 0 {
		return Rates{}
	}
	return Rates{
		TPS: float64(s.Events) / sec, QPS: float64(s.Queries()) / sec,
		Reads: float64(s.Reads) / sec, Writes: float64(s.Writes) / sec, Other: float64(s.Other) / sec,
		Errors: float64(s.Errors) / sec, Reconnects: float64(s.Reconnects) / sec,
	}
}

// Merge adds o into s (histograms merged, error codes summed, named stats matched by name).
func (s *Stats) Merge(o *Stats) {
	s.Counts.add(o.Counts)
	if s.Own == nil {
		s.Own = o.Own // never changed once set: shared
	}
	for c, n := range o.ErrorsByCode {
		if s.ErrorsByCode == nil {
			s.ErrorsByCode = map[int]int64{}
		}
		s.ErrorsByCode[c] += n
	}
	s.Latency = mergeHist(s.Latency, o.Latency)
	s.Service = mergeHist(s.Service, o.Service)
	s.Lag = mergeHist(s.Lag, o.Lag)
	s.Connect = mergeHist(s.Connect, o.Connect)
	s.Transactions = mergeNamed(s.Transactions, o.Transactions)
	s.Statements = mergeNamed(s.Statements, o.Statements)
	s.Nodes = mergeNamed(s.Nodes, o.Nodes)
	s.Summarize()
}

// mergeNamed adds src into dst, matched by name; names new to dst are appended.
func mergeNamed(dst, src []Named) []Named {
	for _, on := range src {
		i := slices.IndexFunc(dst, func(n Named) bool { return n.Name == on.Name })
		if i < 0 {
			dst = append(dst, Named{Name: on.Name})
			i = len(dst) - 1
		}
		dst[i].Counts.add(on.Counts)
		dst[i].Latency = mergeHist(dst[i].Latency, on.Latency)
	}
	return dst
}

func mergeHist(dst, src *Histogram) *Histogram {
	if src == nil {
		return dst
	}
	if dst == nil {
		dst = NewHistogram()
	}
	dst.Merge(src)
	return dst
}

// Summarize recomputes Lat (and each transaction's Lat) from the histograms.
// Stats without a histogram keep their Lat.
func (s *Stats) Summarize() {
	if s.Latency != nil {
		s.Lat = Summarize(s.Latency)
	}
	if s.Connect != nil {
		s.ConnectLat = Summarize(s.Connect)
	}
	for _, named := range [][]Named{s.Transactions, s.Statements} {
		for i := range named {
			if named[i].Latency != nil {
				named[i].Lat = Summarize(named[i].Latency)
			}
		}
	}
}

// ErrorCodes returns the error codes seen, sorted.
func (s *Stats) ErrorCodes() []int {
	return slices.Sorted(maps.Keys(s.ErrorsByCode))
}
