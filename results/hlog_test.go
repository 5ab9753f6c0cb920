package results

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// The fast merge must give exactly what the library's own log reader and Merge give,
// for quadrant's geometry and for a log written by another tool in another geometry.
func TestReadHistogramLogMatchesTheLibrary(t *testing.T) {
	var buf bytes.Buffer
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	l, err := NewHistogramLog(&buf, start)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for s := 0; s < 50; s++ {
		iv := &measure.Interval{Index: s + 1, Start: start.Add(time.Duration(s) * time.Second), End: start.Add(time.Duration(s+1) * time.Second),
			Warmup: s < 5}
		iv.Latency, iv.Service = measure.NewHistogram(), measure.NewHistogram()
		for k := 0; k < 500; k++ {
			iv.Latency.RecordUS(int64(r.ExpFloat64() * 2000))
			iv.Service.RecordUS(int64(r.ExpFloat64() * 1000))
		}
		iv.Latency.RecordUS(int64(r.IntN(200_000_000))) // clamped to the top
		if err := l.Write(iv); err != nil {
			t.Fatal(err)
		}
	}
	// A line in another geometry, as another tool would write it.
	other := hdrhistogram.New(1, 3_600_000_000, 2)
	for k := int64(1); k < 5000; k += 7 {
		other.RecordValue(k * 13)
	}
	other.SetTag("latency")
	if err := hdrhistogram.NewHistogramLogWriter(&buf).OutputIntervalHistogram(other); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"latency", "service", "warmup-latency", "none"} {
		got, err := ReadHistogramLog(bytes.NewReader(buf.Bytes()), tag)
		if err != nil {
			t.Fatal(err)
		}
		want := measure.NewHistogram()
		lr := hdrhistogram.NewHistogramLogReader(bytes.NewReader(buf.Bytes()))
		for {
			h, err := lr.NextIntervalHistogram()
			if err != nil {
				t.Fatal(err)
			}
			if h == nil {
				break
			}
			if h.Tag() == tag {
				want.Hdr().Merge(h)
			}
		}
		if !want.Hdr().Equals(got.Hdr()) || got.Count() != want.Count() {
			t.Errorf("%s: merged %d values (max %v), the library %d (max %v)", tag, got.Count(), got.Max(), want.Count(), want.Max())
		}
	}
}

func TestReadHistogramLogRejectsACorruptLine(t *testing.T) {
	log := "#[StartTime: 1.000 (seconds since epoch)]\nTag=latency,0.000,1.000,1.000,HISTFAAAACB42pNpmSzMwMDAxQABzFCaEUzOgNB2ACcDAk8=\n"
	if _, err := ReadHistogramLog(bytes.NewReader([]byte(log)), "latency"); err == nil {
		t.Error("a corrupt payload merged without an error")
	}
}

func TestHistogramLogCodec(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	l, err := NewHistogramLog(&buf, start)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		iv := &measure.Interval{Start: start.Add(time.Duration(i-1) * time.Second), End: start.Add(time.Duration(i) * time.Second)}
		iv.Latency, iv.Service = measure.NewHistogram(), measure.NewHistogram()
		for j := 0; j < 100*i; j++ {
			iv.Latency.Record(time.Duration(i) * time.Millisecond)
			iv.Service.Record(time.Millisecond)
		}
		if err := l.Write(iv); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(buf.String(), "Tag=latency") {
		t.Fatalf("log:\n%s", buf.String())
	}
	h, err := ReadHistogramLog(strings.NewReader(buf.String()), "latency")
	if err != nil {
		t.Fatal(err)
	}
	if h.Count() != 600 || h.Max() < 3*time.Millisecond-10*time.Microsecond || h.Max() > 3*time.Millisecond+10*time.Microsecond {
		t.Fatalf("merged count %d max %v", h.Count(), h.Max())
	}
	s, err := ReadHistogramLog(strings.NewReader(buf.String()), "service")
	if err != nil || s.Count() != 600 {
		t.Fatalf("service count %v %v", s, err)
	}
}

// Each interval line reads back at its own times, to the millisecond, when the log's start
// is not on a whole second (the log format keeps its StartTime in whole seconds): merge
// finds a shard's lines of an interval by the time-series row's time.
func TestHistogramLogIntervalTimes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.hlog")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 1, 0, 4, 55, 508_000_000, time.UTC)
	l, err := NewHistogramLog(f, start)
	if err != nil {
		t.Fatal(err)
	}
	var want []time.Time
	for i := range 5 {
		iv := &measure.Interval{Start: start.Add(time.Duration(i) * 250 * time.Millisecond), End: start.Add(time.Duration(i+1)*250*time.Millisecond + 3*time.Millisecond)}
		iv.Latency = measure.NewHistogram()
		iv.Latency.RecordUS(100)
		if err := l.Write(iv); err != nil {
			t.Fatal(err)
		}
		want = append(want, iv.Start, iv.End)
	}
	l.Close()
	f.Close()
	lines, err := ReadHistogramIntervals(path)
	if err != nil || len(lines) != 5 {
		t.Fatalf("%d lines, %v", len(lines), err)
	}
	for i, ln := range lines {
		for j, got := range []time.Time{ln.Start, ln.End} {
			if d := got.Sub(want[2*i+j]); d < -time.Millisecond || d > time.Millisecond {
				t.Errorf("line %d: read back %s, written %s", i, got.Format(TimeFormat), want[2*i+j].Format(TimeFormat))
			}
		}
	}
}
