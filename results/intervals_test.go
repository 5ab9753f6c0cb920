package results

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Lines read back one by one keep their tag, their times to the millisecond and their values.
func TestReadHistogramIntervals(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.hlog")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	l, err := NewHistogramLog(f, start)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		h := measure.NewHistogram()
		for v := range 10 * (i + 1) {
			h.RecordUS(int64(100 * (v + 1)))
		}
		iv := &measure.Interval{Start: start.Add(time.Duration(i) * time.Second), End: start.Add(time.Duration(i+1) * time.Second), Warmup: i == 0}
		iv.Latency = h
		if err := l.Write(iv); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	f.Close()
	got, err := ReadHistogramIntervals(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d lines, want 3", len(got))
	}
	for i, lh := range got {
		wantTag := "latency"
		if i == 0 {
			wantTag = "warmup-latency"
		}
		if lh.Tag != wantTag || lh.H.Count() != int64(10*(i+1)) || !lh.End.Equal(start.Add(time.Duration(i+1)*time.Second)) || !lh.Start.Equal(start.Add(time.Duration(i)*time.Second)) {
			t.Errorf("line %d: tag %s count %d %s..%s", i, lh.Tag, lh.H.Count(), lh.Start, lh.End)
		}
	}
}
