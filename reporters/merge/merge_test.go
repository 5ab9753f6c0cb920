package merge

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// Three shards with different latency profiles (a fast one, a slow one, a mixed one),
// written to .hlog files and read back as merge reads them: their merged histogram gives
// exactly the percentiles of one histogram of every value. Averaging the shards' p99s,
// what a tool without histograms would do, is far off.
func TestMergedHistogramsAreExact(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	all := measure.NewHistogram()
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var shardP99 []time.Duration
	merged := measure.NewHistogram()
	for k, scale := range []float64{200, 5000, 900} {
		path := filepath.Join(dir, "shard.hlog")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := results.NewHistogramLog(f, start)
		if err != nil {
			t.Fatal(err)
		}
		own := measure.NewHistogram()
		for s := range 5 { // five one-second intervals
			h := measure.NewHistogram()
			for range 2000 + 500*k {
				us := int64(rng.ExpFloat64()*scale) + 50
				h.RecordUS(us)
				all.RecordUS(us)
				own.RecordUS(us)
			}
			iv := &measure.Interval{Start: start.Add(time.Duration(s) * time.Second), End: start.Add(time.Duration(s+1) * time.Second)}
			iv.Latency = h
			if err := l.Write(iv); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		f.Close()
		shardP99 = append(shardP99, own.Percentile(99))
		lines, err := results.ReadHistogramIntervals(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, lh := range lines {
			merged.Merge(lh.H)
		}
	}
	if merged.Count() != all.Count() {
		t.Fatalf("merged %d values, want %d", merged.Count(), all.Count())
	}
	for _, p := range []float64{50, 90, 95, 99, 99.9, 100} {
		if got, want := merged.Percentile(p), all.Percentile(p); got != want {
			t.Errorf("p%v: merged %v, one histogram of all values %v", p, got, want)
		}
	}
	if got, want := merged.Mean(), all.Mean(); got != want {
		t.Errorf("mean: merged %v, want %v", got, want)
	}
	var avg time.Duration
	for _, p := range shardP99 {
		avg += p / time.Duration(len(shardP99))
	}
	truth := all.Percentile(99)
	if off := float64(avg-truth) / float64(truth); off > -0.1 && off < 0.1 {
		t.Fatalf("the average of shard p99s (%v) is within 10%% of the true p99 (%v): the test does not show why averaging is wrong", avg, truth)
	}
	t.Logf("true p99 %v, merged p99 %v, average of the shards' p99s %v", truth, merged.Percentile(99), avg)
}

// combine: counts and rates add up, custom transactions' percentiles are left empty
// (their histograms are not in the folder), the warmup flag is not summed.
func TestCombine(t *testing.T) {
	cases := []struct {
		name string
		vals []float64
		want string
	}{
		{"tps", []float64{100.5, 200, 50}, "350.5"},
		{"transactions", []float64{1, 2, 3}, "6"},
		{"error.1213", []float64{1, 0.5}, "1.5"},
		{"warmup", []float64{1, 1, 1}, "1"},
		{"tx.pay.max_ms", []float64{3, 9, 4}, "9"},
		{"tx.pay.p95_ms", []float64{3, 9, 4}, ""},
		{"threads", []float64{2, 2, 1}, "5"},
	}
	for _, c := range cases {
		if got := combine(c.name, c.vals); got != c.want {
			t.Errorf("combine(%s, %v) = %q, want %q", c.name, c.vals, got, c.want)
		}
	}
}
