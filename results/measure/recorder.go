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
	named  []namedBucket
	stmts  []namedBucket
}

func newBucket(openLoop bool, names, stmts int) *bucket {
	return &bucket{errs: map[int]int64{}, open: openLoop, named: make([]namedBucket, names), stmts: make([]namedBucket, stmts)}
}

func (b *bucket) reset() {
	b.counts = Counts{}
	clear(b.errs)
	b.lat, b.svc, b.lag = b.lat[:0], b.svc[:0], b.lag[:0]
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
// CollectorOptions.Statements) and its latency in µs.
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
		if l.Class >= 0 && int(l.Class) < len(b.stmts) {
			s := &b.stmts[l.Class]
			s.counts.Events++
			s.lat = append(s.lat, l.US)
		}
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
	TPCC       *TPCC // set on every Interval and the Total of a tpcc workload
	// Start of the workload and of its measured part (Start + warmup).
	Start, MeasuredStart time.Time
}

// merged is the interval being cut, reused.
type merged struct {
	counts Counts
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
}

// NewCollector creates o.Workers recorders.
func NewCollector(o CollectorOptions) *Collector {
	c := &Collector{o: o, last: o.Start, merged: merged{errs: map[int]int64{}, named: make([]Counts, len(o.Names)), stmts: make([]Counts, len(o.Statements))}}
	for range o.Workers {
		c.recs = append(c.recs, &Recorder{
			cur:   newBucket(o.OpenLoop, len(o.Names), len(o.Statements)),
			spare: newBucket(o.OpenLoop, len(o.Names), len(o.Statements)),
		})
	}
	c.total.Latency = NewHistogram()
	if o.OpenLoop {
		c.total.Service = NewHistogram()
		c.total.Lag = NewHistogram()
	}
	for _, n := range o.Names {
		c.total.Transactions = append(c.total.Transactions, Named{Name: n, Latency: NewHistogram()})
	}
	for _, n := range o.Statements {
		c.total.Statements = append(c.total.Statements, Named{Name: n, Latency: NewHistogram()})
	}
	c.totalEnd = o.MeasuredStart
	c.total.TPCC = o.TPCC
	return c
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
	lat := NewHistogram()
	var svc, lag *Histogram
	if c.o.OpenLoop {
		svc, lag = NewHistogram(), NewHistogram()
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
		for code, n := range b.errs {
			m.errs[code] += n
		}
		record(lat, b.lat)
		if svc != nil {
			record(svc, b.svc)
			record(lag, b.lag)
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
	iv.TPCC = c.o.TPCC
	c.last = end
	iv.Counts = m.counts
	if len(m.errs) > 0 {
		iv.ErrorsByCode = make(map[int]int64, len(m.errs))
		for code, n := range m.errs {
			iv.ErrorsByCode[code] = n
		}
	}
	iv.Latency, iv.Service, iv.Lag = lat, svc, lag
	for i, n := range c.o.Names {
		iv.Transactions = append(iv.Transactions, Named{Name: n, Counts: m.named[i], Latency: named[i]})
	}
	for i, n := range c.o.Statements {
		iv.Statements = append(iv.Statements, Named{Name: n, Counts: m.stmts[i], Latency: stmts[i]})
	}
	iv.Summarize()
	if !iv.Warmup {
		c.total.Merge(&iv.Stats)
		c.totalEnd = end
		c.threads = max(c.threads, threads)
		c.maxBacklog = max(c.maxBacklog, backlog)
	}
	return iv
}

// Total returns the statistics of the measured part up to the last Cut.
func (c *Collector) Total() *Total {
	t := &Total{Start: c.o.MeasuredStart, End: c.totalEnd, Threads: c.threads, MaxBacklog: c.maxBacklog, Stats: c.total}
	t.Latency = c.total.Latency.Clone()
	if c.total.Service != nil {
		t.Service = c.total.Service.Clone()
	}
	if c.total.Lag != nil {
		t.Lag = c.total.Lag.Clone()
	}
	t.ErrorsByCode = nil
	for code, n := range c.total.ErrorsByCode {
		if t.ErrorsByCode == nil {
			t.ErrorsByCode = map[int]int64{}
		}
		t.ErrorsByCode[code] = n
	}
	t.Transactions = nil
	for _, n := range c.total.Transactions {
		t.Transactions = append(t.Transactions, Named{Name: n.Name, Counts: n.Counts, Latency: n.Latency.Clone(), Lat: n.Lat})
	}
	t.Statements = nil
	for _, n := range c.total.Statements {
		t.Statements = append(t.Statements, Named{Name: n.Name, Counts: n.Counts, Latency: n.Latency.Clone(), Lat: n.Lat})
	}
	t.Summarize()
	return t
}
