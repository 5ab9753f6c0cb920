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
	lat    *Histogram
}

// bucket is one interval's worth of a worker's data.
type bucket struct {
	counts Counts
	errs   map[int]int64
	lat    *Histogram
	svc    *Histogram
	named  []namedBucket
}

func newBucket(openLoop bool, names int) *bucket {
	b := &bucket{errs: map[int]int64{}, lat: NewHistogram()}
	if openLoop {
		b.svc = NewHistogram()
	}
	b.named = make([]namedBucket, names)
	for i := range b.named {
		b.named[i].lat = NewHistogram()
	}
	return b
}

func (b *bucket) reset() {
	b.counts = Counts{}
	clear(b.errs)
	b.lat.Reset()
	if b.svc != nil {
		b.svc.Reset()
	}
	for i := range b.named {
		b.named[i].counts = Counts{}
		b.named[i].lat.Reset()
	}
}

// Recorder belongs to one worker. Its methods are cheap (an uncontended
// mutex and an HdrHistogram record); the Collector swaps its bucket at
// every interval cut.
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

// Event records one completed event.
func (r *Recorder) Event(e Event) {
	r.mu.Lock()
	b := r.cur
	b.counts.Events++
	b.lat.Record(e.Latency)
	if b.svc != nil {
		b.svc.Record(e.Service)
	}
	if e.Tx >= 0 && e.Tx < len(b.named) {
		b.named[e.Tx].counts.Events++
		b.named[e.Tx].lat.Record(e.Latency)
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
	TPCC     *TPCC    // set on every Interval and the Total of a tpcc workload
	// Start of the workload and of its measured part (Start + warmup).
	Start, MeasuredStart time.Time
}

// Collector merges the workers' recorders into Intervals and the Total.
// Cut and Total must be called from one goroutine (the engine's ticker).
type Collector struct {
	o          CollectorOptions
	recs       []*Recorder
	merged     *bucket
	index      int
	last       time.Time
	total      Stats
	totalEnd   time.Time
	threads    int
	maxBacklog int64
}

// NewCollector creates o.Workers recorders.
func NewCollector(o CollectorOptions) *Collector {
	c := &Collector{o: o, last: o.Start, merged: newBucket(o.OpenLoop, len(o.Names))}
	for range o.Workers {
		c.recs = append(c.recs, &Recorder{cur: newBucket(o.OpenLoop, len(o.Names)), spare: newBucket(o.OpenLoop, len(o.Names))})
	}
	c.total.Latency = NewHistogram()
	if o.OpenLoop {
		c.total.Service = NewHistogram()
	}
	for _, n := range o.Names {
		c.total.Transactions = append(c.total.Transactions, Named{Name: n, Latency: NewHistogram()})
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
	m := c.merged
	m.reset()
	for _, r := range c.recs {
		r.mu.Lock()
		b := r.cur
		r.cur, r.spare = r.spare, b
		r.mu.Unlock()
		m.counts.add(b.counts)
		for code, n := range b.errs {
			m.errs[code] += n
		}
		m.lat.Merge(b.lat)
		if m.svc != nil {
			m.svc.Merge(b.svc)
		}
		for i := range b.named {
			m.named[i].counts.add(b.named[i].counts)
			m.named[i].lat.Merge(b.named[i].lat)
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
	iv.Latency = m.lat.Clone()
	if m.svc != nil {
		iv.Service = m.svc.Clone()
	}
	for i, n := range c.o.Names {
		iv.Transactions = append(iv.Transactions, Named{Name: n, Counts: m.named[i].counts, Latency: m.named[i].lat.Clone()})
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
	t.Summarize()
	return t
}
