package measure

import (
	"sync"
	"time"
)

// Event is one completed event (transaction) as a worker saw it.
type Event struct {
	// Latency: closed loop from start, open loop from intended start; includes retries.
	Latency time.Duration
	// Service: open loop only, from the actual start.
	Service time.Duration
	// Tx indexes CollectorOptions.Names (custom transactions); ignored without names.
	Tx int
}

type namedBucket struct {
	counts Counts
	lat    []int64
}

// bucket is one interval's worth of a worker's data. Latencies are kept as
// the interval's values (µs) and recorded into histograms at the cut: a
// histogram per worker costs hundreds of KB (cleared and merged whole every
// interval), which with a thousand connections was most of the client's
// memory and of the ticker's CPU. The histograms come out the same.
type bucket struct {
	counts Counts
	errs   map[int]int64
	open   bool
	lat    []int64
	svc    []int64
	lag    []int64
	conn   []int64
	named  []namedBucket
	stmts  []namedBucket
}

func newBucket(openLoop bool, names, stmts int) *bucket {
	return &bucket{errs: map[int]int64{}, open: openLoop, named: make([]namedBucket, names), stmts: make([]namedBucket, stmts)}
}

func (b *bucket) reset() {
	b.counts = Counts{}
	clear(b.errs)
	b.lat, b.svc, b.lag, b.conn = b.lat[:0], b.svc[:0], b.lag[:0], b.conn[:0]
	for i := range b.named {
		b.named[i].counts = Counts{}
		b.named[i].lat = b.named[i].lat[:0]
	}
	for i := range b.stmts {
		b.stmts[i].counts = Counts{}
		b.stmts[i].lat = b.stmts[i].lat[:0]
	}
}

// Recorder belongs to one worker. Its methods are cheap (an uncontended
// mutex and an append); the Collector swaps its bucket at every interval cut.
type Recorder struct {
	mu    sync.Mutex
	cur   *bucket
	spare *bucket
	node  int // its worker's index in CollectorOptions.Nodes; -1 without
}

// Statements counts executed statements (also those of failed, retried events).
func (r *Recorder) Statements(reads, writes, other int64, tx int) {
	r.mu.Lock()
	r.cur.counts.Reads += reads
	r.cur.counts.Writes += writes
	r.cur.counts.Other += other
	if tx >= 0 && tx < len(r.cur.named) {
		n := &r.cur.named[tx].counts
		n.Reads += reads
		n.Writes += writes
		n.Other += other
	}
	r.mu.Unlock()
}

// Lap is one statement of an event, timed: its class (an index of
// CollectorOptions.Statements) and its latency in µs; a negative latency is a statement
// that failed (counted as an error of its class).
type Lap struct {
	Class int32
	US    int64
}

// Laps records the timed statements of one event (or of one failed attempt): one
// lock for all of them, as the worker hands them over after the event.
func (r *Recorder) Laps(laps []Lap) {
	r.mu.Lock()
	b := r.cur
	for _, l := range laps {
		if l.Class < 0 || int(l.Class) >= len(b.stmts) {
			continue
		}
		s := &b.stmts[l.Class]
		if l.US < 0 {
			s.counts.Errors++
			continue
		}
		s.counts.Events++
		s.lat = append(s.lat, l.US)
	}
	r.mu.Unlock()
}

// Event records one completed event.
func (r *Recorder) Event(e Event) {
	lat := e.Latency.Microseconds()
	r.mu.Lock()
	b := r.cur
	b.counts.Events++
	b.lat = append(b.lat, lat)
	if b.open {
		b.svc = append(b.svc, e.Service.Microseconds())
		// Latency and service share the end, so the difference is exactly how
		// late the event started; its distribution is not derivable from theirs.
		b.lag = append(b.lag, (e.Latency - e.Service).Microseconds())
	}
	if e.Tx >= 0 && e.Tx < len(b.named) {
		b.named[e.Tx].counts.Events++
		b.named[e.Tx].lat = append(b.named[e.Tx].lat, lat)
	}
	r.mu.Unlock()
}

// Connect records how long a new connection took to log in (connect: per_transaction).
func (r *Recorder) Connect(d time.Duration) {
	r.mu.Lock()
	r.cur.conn = append(r.cur.conn, d.Microseconds())
	r.mu.Unlock()
}

// Error counts one error by MySQL error number (0: no number).
func (r *Recorder) Error(code int, tx int) {
	r.mu.Lock()
	r.cur.counts.Errors++
	r.cur.errs[code]++
	if tx >= 0 && tx < len(r.cur.named) {
		r.cur.named[tx].counts.Errors++
	}
	r.mu.Unlock()
}

// CertFailure counts one error that was a certification failure; record its Error too.
func (r *Recorder) CertFailure(tx int) {
	r.mu.Lock()
	r.cur.counts.CertFailures++
	if tx >= 0 && tx < len(r.cur.named) {
		r.cur.named[tx].counts.CertFailures++
	}
	r.mu.Unlock()
}

// Rollback counts one transaction rolled back on purpose; record its Event too.
func (r *Recorder) Rollback(tx int) {
	r.mu.Lock()
	r.cur.counts.Rollbacks++
	if tx >= 0 && tx < len(r.cur.named) {
		r.cur.named[tx].counts.Rollbacks++
	}
	r.mu.Unlock()
}

// Reconnect counts one successful reconnect.
func (r *Recorder) Reconnect() {
	r.mu.Lock()
	r.cur.counts.Reconnects++
	r.mu.Unlock()
}

// CollectorOptions shape the recorders.
type CollectorOptions struct {
	Workers  int
	OpenLoop bool     // keep service time separately
	Names    []string // per-transaction statistics (custom workloads)
	// Statements are the statement classes timed one by one (the OLTP builtins'
	// point_select, begin...): Lap.Class indexes them.
	Statements []string
	// Own is a kind's own metrics and their settings, set on every Interval and the Total.
	Own *Own
	// Start of the workload and of its measured part (Start + warmup).
	Start, MeasuredStart time.Time
	// StageEnds are the ends of a load shape's stages from MeasuredStart: each measured
	// interval is in the stage its middle is in, and each stage gets a Total of its own.
	StageEnds []time.Duration
	// Connect keeps the latency of connecting (connect: per_transaction).
	Connect bool
	// Nodes name the servers a spread workload's workers connect to (a Galera cluster's
	// nodes) and NodeOf gives worker i's index in Nodes: each Interval and the Total then
	// count every node's events and errors apart (Stats.Nodes). Nil: one server.
	Nodes  []string
	NodeOf func(worker int) int
}

// merged is the interval being cut, reused.
type merged struct {
	counts Counts
	nodes  []Counts
	errs   map[int]int64
	named  []Counts
	stmts  []Counts
}

func record(h *Histogram, us []int64) {
	for _, v := range us {
		h.RecordUS(v)
	}
}

// Collector merges the workers' recorders into Intervals and the Total.
// Cut and Total must be called from one goroutine (the engine's ticker).
type Collector struct {
	o          CollectorOptions
	recs       []*Recorder
	merged     merged
	index      int
	last       time.Time
	total      Stats
	totalEnd   time.Time
	threads    int
	maxBacklog int64
	stages     []stageTotal
}

// stageTotal accumulates one stage of a load shape.
type stageTotal struct {
	stats      Stats
	start, end time.Time
	threads    int
	maxBacklog int64
	seen       bool
}

// NewCollector creates o.Workers recorders.
func NewCollector(o CollectorOptions) *Collector {
	c := &Collector{o: o, last: o.Start, merged: merged{errs: map[int]int64{}, named: make([]Counts, len(o.Names)), stmts: make([]Counts, len(o.Statements)), nodes: make([]Counts, len(o.Nodes))}}
	for i := range o.Workers {
		c.recs = append(c.recs, &Recorder{
			cur:   newBucket(o.OpenLoop, len(o.Names), len(o.Statements)),
			spare: newBucket(o.OpenLoop, len(o.Names), len(o.Statements)),
			node:  c.nodeOf(i),
		})
	}
	c.total.Latency = NewHistogram()
	if o.OpenLoop {
		c.total.Service = NewHistogram()
		c.total.Lag = NewHistogram()
	}
	if o.Connect {
		c.total.Connect = NewHistogram()
	}
	for _, n := range o.Names {
		c.total.Transactions = append(c.total.Transactions, Named{Name: n, Latency: NewHistogram()})
	}
	for _, n := range o.Statements {
		c.total.Statements = append(c.total.Statements, Named{Name: n, Latency: NewHistogram()})
	}
	c.totalEnd = o.MeasuredStart
	c.total.Own = o.Own
	c.stages = make([]stageTotal, len(o.StageEnds))
	return c
}

// Pending says whether any worker recorded something since the last Cut. The clock's
// last cut may come within a millisecond of the one before: a worker's error in between
// (a lost server's, at the tick) must still be cut, not dropped with the sliver.
func (c *Collector) Pending() bool {
	for _, r := range c.recs {
		r.mu.Lock()
		b := r.cur
		p := b.counts != (Counts{}) || len(b.errs) > 0 || len(b.lat) > 0 || len(b.conn) > 0
		r.mu.Unlock()
		if p {
			return true
		}
	}
	return false
}

// nodeOf is worker i's index in o.Nodes, -1 without nodes (or out of their range).
func (c *Collector) nodeOf(i int) int {
	if len(c.o.Nodes) == 0 || c.o.NodeOf == nil {
		return -1
	}
	if n := c.o.NodeOf(i); n >= 0 && n < len(c.o.Nodes) {
		return n
	}
	return -1
}

// Recorder returns worker i's recorder.
func (c *Collector) Recorder(i int) *Recorder { return c.recs[i] }

// Cut closes the interval ending at end and returns it (owned by the caller).
// An interval ending at or before MeasuredStart is warmup and not added to the Total;
// the engine cuts exactly at MeasuredStart so no interval straddles it.
func (c *Collector) Cut(end time.Time, threads int, backlog int64) *Interval {
	m := &c.merged
	m.counts = Counts{}
	clear(m.errs)
	clear(m.named)
	clear(m.stmts)
	clear(m.nodes)
	lat := NewHistogram()
	var svc, lag, conn *Histogram
	if c.o.OpenLoop {
		svc, lag = NewHistogram(), NewHistogram()
	}
	if c.o.Connect {
		conn = NewHistogram()
	}
	named := make([]*Histogram, len(c.o.Names))
	for i := range named {
		named[i] = NewHistogram()
	}
	stmts := make([]*Histogram, len(c.o.Statements))
	for i := range stmts {
		stmts[i] = NewHistogram()
	}
	for _, r := range c.recs {
		r.mu.Lock()
		b := r.cur
		r.cur, r.spare = r.spare, b
		r.mu.Unlock()
		m.counts.add(b.counts)
		if r.node >= 0 {
			m.nodes[r.node].add(b.counts)
		}
		for code, n := range b.errs {
			m.errs[code] += n
		}
		record(lat, b.lat)
		if svc != nil {
			record(svc, b.svc)
			record(lag, b.lag)
		}
		if conn != nil {
			record(conn, b.conn)
		}
		for i := range b.named {
			m.named[i].add(b.named[i].counts)
			record(named[i], b.named[i].lat)
		}
		for i := range b.stmts {
			m.stmts[i].add(b.stmts[i].counts)
			record(stmts[i], b.stmts[i].lat)
		}
		b.reset()
	}
	c.index++
	iv := &Interval{
		Index: c.index, Start: c.last, End: end, Elapsed: end.Sub(c.o.MeasuredStart),
		Warmup: !end.After(c.o.MeasuredStart), Threads: threads, Backlog: backlog,
	}
	iv.Own = c.o.Own
	c.last = end
	iv.Counts = m.counts
	if len(m.errs) > 0 {
		iv.ErrorsByCode = make(map[int]int64, len(m.errs))
		for code, n := range m.errs {
			iv.ErrorsByCode[code] = n
		}
	}
	iv.Latency, iv.Service, iv.Lag, iv.Connect = lat, svc, lag, conn
	for i, n := range c.o.Names {
		iv.Transactions = append(iv.Transactions, Named{Name: n, Counts: m.named[i], Latency: named[i]})
	}
	for i, n := range c.o.Statements {
		iv.Statements = append(iv.Statements, Named{Name: n, Counts: m.stmts[i], Latency: stmts[i]})
	}
	for i, n := range c.o.Nodes {
		iv.Nodes = append(iv.Nodes, Named{Name: n, Counts: m.nodes[i]})
	}
	iv.Summarize()
	if !iv.Warmup {
		c.total.Merge(&iv.Stats)
		c.totalEnd = end
		c.threads = max(c.threads, threads)
		c.maxBacklog = max(c.maxBacklog, backlog)
		if len(c.stages) > 0 {
			iv.Stage = c.stageOf(iv) + 1
			st := &c.stages[iv.Stage-1]
			if !st.seen {
				st.start, st.seen = iv.Start, true
			}
			st.stats.Merge(&iv.Stats)
			st.end = end
			st.threads = max(st.threads, threads)
			st.maxBacklog = max(st.maxBacklog, backlog)
		}
	}
	return iv
}

// stageOf is the stage iv's middle is in (the last one past the end).
func (c *Collector) stageOf(iv *Interval) int {
	mid := iv.Start.Add(iv.End.Sub(iv.Start) / 2).Sub(c.o.MeasuredStart)
	for i, e := range c.o.StageEnds {
		if mid < e {
			return i
		}
	}
	return len(c.o.StageEnds) - 1
}

// Total returns the statistics of the measured part up to the last Cut; with a load
// shape, Stages has those of each stage that has begun.
func (c *Collector) Total() *Total {
	t := total(c.total, c.o.MeasuredStart, c.totalEnd, c.threads, c.maxBacklog)
	for i := range c.stages {
		if st := &c.stages[i]; st.seen {
			s := total(st.stats, st.start, st.end, st.threads, st.maxBacklog)
			s.Stage = i + 1
			t.Stages = append(t.Stages, s)
		}
	}
	return t
}

// total is a Total of s that shares none of its histograms.
func total(s Stats, start, end time.Time, threads int, maxBacklog int64) *Total {
	t := &Total{Start: start, End: end, Threads: threads, MaxBacklog: maxBacklog, Stats: s}
	if s.Latency != nil {
		t.Latency = s.Latency.Clone()
	} else {
		t.Latency = NewHistogram() // a stage without events: the Total always has one
	}
	if s.Service != nil {
		t.Service = s.Service.Clone()
	}
	if s.Lag != nil {
		t.Lag = s.Lag.Clone()
	}
	if s.Connect != nil {
		t.Connect = s.Connect.Clone()
	}
	t.ErrorsByCode = nil
	for code, n := range s.ErrorsByCode {
		if t.ErrorsByCode == nil {
			t.ErrorsByCode = map[int]int64{}
		}
		t.ErrorsByCode[code] = n
	}
	t.Transactions = nil
	for _, n := range s.Transactions {
		t.Transactions = append(t.Transactions, Named{Name: n.Name, Counts: n.Counts, Latency: n.Latency.Clone(), Lat: n.Lat})
	}
	t.Statements = nil
	for _, n := range s.Statements {
		t.Statements = append(t.Statements, Named{Name: n.Name, Counts: n.Counts, Latency: n.Latency.Clone(), Lat: n.Lat})
	}
	t.Nodes = nil
	for _, n := range s.Nodes {
		t.Nodes = append(t.Nodes, Named{Name: n.Name, Counts: n.Counts}) // counts only: no histogram
	}
	t.Summarize()
	return t
}
