package results

import (
	"bytes"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// TestFingerprintHistogramsMerge: a fingerprint's latencies written per interval into the .hlog
// under tx.ID read back merged into exactly its distribution over the run.
func TestFingerprintHistogramsMerge(t *testing.T) {
	start := time.Unix(1700000000, 0)
	var buf bytes.Buffer
	l, err := NewHistogramLog(&buf, start)
	if err != nil {
		t.Fatal(err)
	}
	want := measure.NewHistogram()
	for i := range 3 {
		h := measure.NewHistogram()
		for j := range 100 {
			d := time.Duration((i+1)*(j+1)) * time.Millisecond
			h.Record(d)
			want.Record(d)
		}
		iv := &measure.Interval{Start: start.Add(time.Duration(i) * time.Second), End: start.Add(time.Duration(i+1) * time.Second)}
		iv.Latency = h
		iv.Transactions = []measure.Named{{Name: "q0123456789ab", Latency: h}, {Name: "other", Latency: measure.NewHistogram()}}
		if err := l.Write(iv); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadHistogramLog(bytes.NewReader(buf.Bytes()), "tx.q0123456789ab")
	if err != nil {
		t.Fatal(err)
	}
	if got.Count() != 300 || got.Percentile(95) != want.Percentile(95) || got.Percentile(50) != want.Percentile(50) {
		t.Errorf("merged %d values, p95 %v p50 %v; want 300, %v, %v", got.Count(), got.Percentile(95), got.Percentile(50), want.Percentile(95), want.Percentile(50))
	}
	if o, _ := ReadHistogramLog(bytes.NewReader(buf.Bytes()), "tx.other"); o != nil && o.Count() != 0 {
		t.Errorf("an empty histogram was written: %d values", o.Count())
	}
}

// errors_by_code cells add up through AddErrorCodes and are written back in code order;
// a part that is not CODE:COUNT is skipped.
func TestErrorCodesRoundTrip(t *testing.T) {
	n := map[int]int64{}
	AddErrorCodes(n, "1213:1 1062:3")
	AddErrorCodes(n, "1062:2 junk 2013:x")
	if got := ErrorCodes(n); got != "1062:5 1213:1" {
		t.Fatalf("ErrorCodes = %q, want \"1062:5 1213:1\"", got)
	}
}
