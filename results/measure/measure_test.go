package measure

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestHistogramMergeEncodeDecode(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	for i := 1; i <= 1000; i++ {
		a.Record(time.Duration(i) * time.Microsecond)
		b.Record(time.Duration(i) * time.Millisecond)
	}
	b.Record(10 * time.Minute) // clamped to 100 s, not dropped
	b.Record(0)                // clamped to 1 µs
	a.Merge(b)
	if a.Count() != 2002 {
		t.Fatalf("count %d", a.Count())
	}
	if a.Max() < 99*time.Second || a.Max() > 101*time.Second {
		t.Fatalf("max %v", a.Max())
	}
	p50 := a.Percentile(50)
	if p50 < 990*time.Microsecond || p50 > 1010*time.Microsecond {
		t.Fatalf("p50 %v", p50)
	}
	s, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeHistogram(s)
	if err != nil {
		t.Fatal(err)
	}
	if d.Count() != a.Count() || d.Percentile(99) != a.Percentile(99) || d.Mean() != a.Mean() {
		t.Fatalf("decoded differs: %d %v %v", d.Count(), d.Percentile(99), a.Percentile(99))
	}
	if _, err := DecodeHistogram("not base64!"); err == nil {
		t.Fatal("garbage decoded")
	}
}

func TestCollectorWarmupIntervalsAndTotal(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewCollector(CollectorOptions{Workers: 2, OpenLoop: true, Names: []string{"a", "b"}, Start: start, MeasuredStart: start.Add(time.Second)})
	r0, r1 := c.Recorder(0), c.Recorder(1)
	// warmup interval
	r0.Statements(20, 0, 0, 0)
	r0.Event(Event{Latency: time.Millisecond, Service: time.Millisecond, Tx: 0})
	w := c.Cut(start.Add(time.Second), 2, 0)
	if !w.Warmup || w.Events != 1 || w.Elapsed != 0 {
		t.Fatalf("warmup interval %+v", w)
	}
	// measured intervals
	for i := range 10 {
		r0.Statements(14, 4, 2, 0)
		r0.Event(Event{Latency: 2 * time.Millisecond, Service: time.Millisecond, Tx: 0})
		r1.Statements(1, 0, 0, 1)
		r1.Event(Event{Latency: 4 * time.Millisecond, Service: 3 * time.Millisecond, Tx: 1})
		if i%2 == 0 {
			r1.Error(1213, 1)
		}
	}
	r1.Reconnect()
	iv := c.Cut(start.Add(2*time.Second), 2, 7)
	if iv.Warmup || iv.Index != 2 || iv.Elapsed != time.Second || iv.Events != 20 || iv.Reads != 150 || iv.Writes != 40 ||
		iv.Other != 20 || iv.Errors != 5 || iv.ErrorsByCode[1213] != 5 || iv.Reconnects != 1 || iv.Backlog != 7 {
		t.Fatalf("interval %+v", iv)
	}
	if r := iv.Rates(); r.TPS != 20 || r.QPS != 210 {
		t.Fatalf("rates %+v", r)
	}
	if iv.Transactions[1].Counts.Events != 10 || iv.Transactions[1].Counts.Errors != 5 || iv.Transactions[0].Lat.Max < 2*time.Millisecond {
		t.Fatalf("per transaction %+v", iv.Transactions)
	}
	empty := c.Cut(start.Add(3*time.Second), 2, 0)
	if empty.Events != 0 || empty.Latency.Count() != 0 || empty.Lat.P99 != 0 {
		t.Fatalf("recorders not reset: %+v", empty)
	}
	tot := c.Total()
	if tot.Events != 20 || tot.Seconds() != 2 || tot.MaxBacklog != 7 || tot.Latency.Count() != 20 || tot.Service.Count() != 20 ||
		tot.Lat.P50 < 2*time.Millisecond || tot.Lat.Max < 4*time.Millisecond || tot.ErrorsByCode[1213] != 5 {
		t.Fatalf("total %+v lat %+v", tot.Counts, tot.Lat)
	}
	// JSON keeps the histograms (base64), so percentiles can be recomputed.
	b, err := json.Marshal(tot)
	if err != nil {
		t.Fatal(err)
	}
	var back Total
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Latency.Percentile(99) != tot.Latency.Percentile(99) || back.Events != 20 {
		t.Fatalf("json round trip: %s", b)
	}
}

func TestFormatLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	iv := &Interval{Start: start, End: start.Add(time.Second), Elapsed: 10 * time.Second, Threads: 16}
	iv.Counts = Counts{Events: 1234, Reads: 17284, Writes: 4938, Other: 2469}
	iv.Lat.P95 = 8430 * time.Microsecond
	got := FormatLine(iv, false)
	want := "[ 10s ] thds: 16 tps: 1234.00 qps: 24691.00 (r/w/o: 17284.00/4938.00/2469.00) lat (ms,95%): 8.43 err/s: 0.00 reconn/s: 0.00"
	if got != want {
		t.Fatalf("\ngot  %s\nwant %s", got, want)
	}
	iv.Warmup, iv.Elapsed, iv.Backlog = true, -1500*time.Millisecond, 3
	if got := FormatLine(iv, true); !strings.HasPrefix(got, "[ -1.5s ]") || !strings.HasSuffix(got, " queue: 3 (warmup)") {
		t.Fatalf("warmup/open loop line: %s", got)
	}
}

func BenchmarkRecorderEvent(b *testing.B) {
	c := NewCollector(CollectorOptions{Workers: 1, Start: time.Now(), MeasuredStart: time.Now()})
	r := c.Recorder(0)
	for b.Loop() {
		r.Statements(14, 4, 2, 0)
		r.Event(Event{Latency: 1234 * time.Microsecond})
	}
}

// Lag is per event (latency minus service), not the difference of two distributions.
func TestLagIsPerEvent(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewCollector(CollectorOptions{Workers: 1, OpenLoop: true, Start: start, MeasuredStart: start})
	r := c.Recorder(0)
	// Slow service with no lag, fast service with much lag: both distributions
	// are equal, the lags are not.
	for range 50 {
		r.Event(Event{Latency: 10 * time.Millisecond, Service: 10 * time.Millisecond})
		r.Event(Event{Latency: 10 * time.Millisecond, Service: time.Millisecond})
	}
	c.Cut(start.Add(time.Second), 1, 0)
	tot := c.Total()
	if tot.Lag == nil || tot.Lag.Count() != 100 || tot.Lag.Percentile(40) > time.Microsecond || tot.Lag.Max() < 9*time.Millisecond-10*time.Microsecond {
		t.Fatalf("lag p40 %v max %v count %d", tot.Lag.Percentile(40), tot.Lag.Max(), tot.Lag.Count())
	}
	closed := NewCollector(CollectorOptions{Workers: 1, Start: start, MeasuredStart: start})
	closed.Recorder(0).Event(Event{Latency: time.Millisecond})
	closed.Cut(start.Add(time.Second), 1, 0)
	if closed.Total().Lag != nil {
		t.Fatal("closed loop has no lag")
	}
}

// Workers keep raw values and the cut records them: the histograms must be
// exactly what recording each event directly gives.
func TestCutHistogramsAreExact(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewCollector(CollectorOptions{Workers: 3, OpenLoop: true, Names: []string{"a"}, Start: start, MeasuredStart: start})
	direct, svc := NewHistogram(), NewHistogram()
	for i := range 5000 {
		d := time.Duration(i*i%7919)*time.Microsecond + time.Duration(i%1000)*time.Nanosecond
		if i%97 == 0 {
			d = 200 * time.Second // clamped
		}
		c.Recorder(i % 3).Event(Event{Latency: d, Service: d / 2})
		direct.Record(d)
		svc.Record(d / 2)
		if i == 2500 {
			c.Cut(start.Add(time.Second), 3, 0)
		}
	}
	c.Cut(start.Add(2*time.Second), 3, 0)
	tot := c.Total()
	for _, p := range []struct {
		name      string
		got, want *Histogram
	}{{"latency", tot.Latency, direct}, {"service", tot.Service, svc}} {
		g, _ := p.got.Encode()
		w, _ := p.want.Encode()
		if g != w {
			t.Fatalf("%s histogram differs from direct recording: count %d vs %d, max %v vs %v", p.name, p.got.Count(), p.want.Count(), p.got.Max(), p.want.Max())
		}
	}
}

// Stages and statement laps: each measured interval goes to the stage its middle is in,
// each stage's Total is its own (statements, histograms, threads), the whole Total is
// their sum, and a lap's class counts and times only that class.
func TestCollectorStagesAndLaps(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	measured := start.Add(time.Second)
	c := NewCollector(CollectorOptions{Workers: 1, Statements: []string{"begin", "point_select"}, Connect: true, Start: start, MeasuredStart: measured,
		StageEnds: []time.Duration{2 * time.Second, 3 * time.Second}})
	r := c.Recorder(0)
	event := func(us int64) {
		r.Laps([]Lap{{Class: 0, US: 1}, {Class: 1, US: us}, {Class: 1, US: us}, {Class: 7, US: 5}, {Class: 1, US: -1}})
		r.Connect(300 * time.Microsecond)
		r.Event(Event{Latency: time.Duration(2*us+1) * time.Microsecond})
	}
	event(1000)
	if w := c.Cut(measured, 1, 0); !w.Warmup || w.Stage != 0 {
		t.Fatalf("warmup interval in stage %d", w.Stage)
	}
	for s, at := range []struct {
		threads, events int
		us              int64
		want            int
	}{{2, 3, 100, 1}, {2, 3, 100, 1}, {8, 5, 900, 2}, {8, 1, 900, 2}} {
		for range at.events {
			event(at.us)
		}
		iv := c.Cut(measured.Add(time.Duration(s+1)*time.Second), at.threads, 0)
		if iv.Stage != at.want || iv.Statements[1].Counts.Events != int64(2*at.events) || iv.Statements[0].Counts.Events != int64(at.events) {
			t.Fatalf("interval %d: stage %d, statements %+v", s+1, iv.Stage, iv.Statements)
		}
	}
	tot := c.Total()
	if tot.Statements[1].Counts.Errors != 12 || tot.Statements[1].Latency.Count() != 24 || tot.Statements[0].Counts.Errors != 0 {
		t.Fatalf("a failed statement is an error of its class and no latency: %+v", tot.Statements)
	}
	if tot.Events != 12 || len(tot.Stages) != 2 || tot.Statements[1].Counts.Events != 24 || tot.Connect.Count() != 12 {
		t.Fatalf("total: %d events, %d stages, statements %+v", tot.Events, len(tot.Stages), tot.Statements)
	}
	s1, s2 := tot.Stages[0], tot.Stages[1]
	if s1.Stage != 1 || s1.Events != 6 || s1.Seconds() != 2 || s1.Threads != 2 || s1.Statements[1].Lat.Max != 100*time.Microsecond ||
		s2.Stage != 2 || s2.Events != 6 || s2.Seconds() != 2 || s2.Threads != 8 || s2.Statements[1].Lat.P50 < 899*time.Microsecond {
		t.Fatalf("stages %+v %+v", s1, s2)
	}
	if s1.Events+s2.Events != tot.Events || s1.Statements[1].Latency.Count()+s2.Statements[1].Latency.Count() != tot.Statements[1].Latency.Count() {
		t.Fatal("the stages do not add up to the total")
	}
	// The stages' histograms are their own: recording more does not change a Total taken before.
	event(5000)
	c.Cut(measured.Add(5*time.Second), 8, 0)
	if s2.Statements[1].Lat.Max > time.Millisecond {
		t.Fatal("a stage's Total shares its histograms with the collector")
	}
}

func TestCollectorPending(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewCollector(CollectorOptions{Workers: 2, Start: start, MeasuredStart: start})
	if c.Pending() {
		t.Fatal("pending before anything was recorded")
	}
	c.Recorder(1).Error(2013, -1)
	if !c.Pending() {
		t.Fatal("an error is not pending")
	}
	if iv := c.Cut(start.Add(time.Second), 2, 0); iv.ErrorsByCode[2013] != 1 || c.Pending() {
		t.Fatalf("after the cut: %+v, pending %v", iv.ErrorsByCode, c.Pending())
	}
	c.Recorder(0).Event(Event{Latency: time.Millisecond})
	if !c.Pending() {
		t.Fatal("an event is not pending")
	}
}
