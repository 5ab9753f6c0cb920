package collect

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch"
)

// counting is a counter source whose Sample waits for a release when told to: a reading
// still under way at the next tick, as on a busy host.
type counting struct {
	mu      sync.Mutex
	n, base float64 // the source's counter; its value at Baseline
	last    float64 // at the last reading
	hold    chan struct{}
	reading chan struct{} // told once a held reading has read the counter
}

func (c *counting) Start(context.Context) error { return nil }
func (c *counting) Columns() []watch.Column {
	return []watch.Column{{Name: "status.Com_insert", Kind: watch.Counter}}
}
func (c *counting) Baseline(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.base, c.last = c.n, c.n
	return nil
}
func (c *counting) Sample(_ context.Context, at time.Time) (watch.Sample, error) {
	c.mu.Lock()
	hold, v := c.hold, c.n
	c.mu.Unlock()
	if hold != nil {
		c.reading <- struct{}{}
		<-hold
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = v
	return watch.Sample{At: at, Values: []float64{v}}, nil
}
func (c *counting) Rebase() {}
func (c *counting) Summary() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return map[string]float64{"status.Com_insert": c.last - c.base}
}
func (c *counting) Close() error { return nil }

func (c *counting) add(n float64) { c.mu.Lock(); c.n += n; c.mu.Unlock() }

// A counter whose reading of the workload's last tick did not happen (the one before was
// still under way) is read once more after the workload, so its summary counts all of it.
func TestSettleReadsWhatTheLastTickMissed(t *testing.T) {
	src := &counting{}
	w := &Watchers{all: []*sampler{{target: "db", what: "status", s: src}}}
	w.Use(context.Background(), "db", []string{"db"}, t.Logf)
	at := time.Now()
	var wg sync.WaitGroup
	src.add(100)
	w.sample(at, time.Second, false, &wg) // read at once: 100
	wg.Wait()
	src.add(150)
	src.mu.Lock()
	src.hold, src.reading = make(chan struct{}), make(chan struct{})
	release := src.hold
	src.mu.Unlock()
	var slow sync.WaitGroup
	w.sample(at.Add(time.Second), time.Second, false, &slow) // reads 250, held
	<-src.reading
	src.add(50)
	var last sync.WaitGroup
	w.sample(at.Add(2*time.Second), time.Second, false, &last) // the last tick: still reading the one before
	last.Wait()
	src.mu.Lock()
	src.hold = nil
	src.mu.Unlock()
	close(release)
	slow.Wait()
	if got := w.Summaries()["db"][0].Value; got != 250 {
		t.Fatalf("before settling the summary says %v, want 250 (the last reading's)", got)
	}
	w.Settle(context.Background(), t.Logf)
	if got := w.Summaries()["db"][0].Value; got != 300 {
		t.Errorf("after settling the summary says %v, want all 300 of the workload", got)
	}
}
