package results

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

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
