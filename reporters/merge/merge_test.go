package merge

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
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

// combine, the fallback when no histogram is in the folder: counts and rates add up,
// percentiles are left empty rather than guessed (0 when every shard says 0), maxima are
// maxima, the warmup flag is not summed.
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
		{"stage", []float64{2, 2, 2}, "2"},
		{"tx.pay.max_ms", []float64{3, 9, 4}, "9"},
		{"tx.pay.p95_ms", []float64{3, 9, 4}, ""},
		{"tx.pay.p95_ms", []float64{0, 0}, "0"},
		{"stmt.insert.p99_ms", []float64{3, 9, 4}, ""},
		{"stmt.insert.max_ms", []float64{3, 9, 4}, "9"},
		{"stmt.insert.count", []float64{3, 9, 4}, "16"},
		{"connect_p95_ms", []float64{3, 9, 4}, ""},
		{"connect_max_ms", []float64{3, 9, 4}, "9"},
		{"threads", []float64{2, 2, 1}, "5"},
	}
	for _, c := range cases {
		if got := combine(results.Describe(results.TimeseriesCSV, c.name), c.vals); got != c.want {
			t.Errorf("combine(%s, %v) = %q, want %q", c.name, c.vals, got, c.want)
		}
	}
}

// The tagged families (tx.NAME, stmt.CLASS, connect) as merge reads them: every
// percentile column of each is found by its .hlog tag, a name the tag had to change
// included, and recomputed from the shards' lines added up equals the same figure of one
// histogram of all values; the warmup's lines are not part of it.
func TestMergedTaggedFamiliesAreExact(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	families := []struct{ column, tag string }{
		{"tx.new order", "tx.new_order"},
		{"tx.pay", "tx.pay"},
		{"stmt.point_select", "stmt.point_select"},
		{"connect", "connect"},
	}
	all := map[string]*measure.Histogram{}
	for _, f := range families {
		all[f.tag] = measure.NewHistogram()
	}
	measured := map[string]*measure.Histogram{}
	for k, scale := range []float64{300, 4000, 1200} {
		path := filepath.Join(dir, "shard.hlog")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := results.NewHistogramLog(f, start)
		if err != nil {
			t.Fatal(err)
		}
		for s := range 4 { // a warmup interval, then three measured ones
			iv := &measure.Interval{Start: start.Add(time.Duration(s) * time.Second), End: start.Add(time.Duration(s+1) * time.Second), Warmup: s == 0}
			hist := func(tag string, n int) *measure.Histogram {
				h := measure.NewHistogram()
				for range n {
					us := int64(rng.ExpFloat64()*scale*float64(len(tag))/8) + 20
					h.RecordUS(us)
					if !iv.Warmup && all[tag] != nil {
						all[tag].RecordUS(us)
					}
				}
				return h
			}
			iv.Latency = hist("latency-not-checked", 10)
			iv.Connect = hist("connect", 50+10*k)
			iv.Transactions = []measure.Named{{Name: "new order", Latency: hist("tx.new_order", 700+100*k)}, {Name: "pay", Latency: hist("tx.pay", 300)}}
			iv.Statements = []measure.Named{{Name: "point_select", Latency: hist("stmt.point_select", 1500)}}
			if err := l.Write(iv); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		f.Close()
		lines, err := results.ReadHistogramIntervals(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, lh := range lines {
			if strings.HasPrefix(lh.Tag, "warmup-") {
				continue
			}
			if measured[lh.Tag] == nil {
				measured[lh.Tag] = measure.NewHistogram()
			}
			measured[lh.Tag].Merge(lh.H)
		}
	}
	checked := 0
	for _, f := range families {
		suffixes := []string{".p50_ms", ".p90_ms", ".p95_ms", ".p99_ms", ".max_ms"}
		if f.column == "connect" {
			suffixes = []string{"_ms", "_p50_ms", "_p95_ms", "_p99_ms", "_max_ms"}
		}
		truth := measure.Summarize(all[f.tag])
		for _, suffix := range suffixes {
			col := f.column + suffix
			c := results.Describe(results.SummaryCSV, col)
			tag, pick, ok := c.Histogram, c.Latency, c.Merge == results.MergeHistogram
			if !ok || tag != f.tag {
				t.Fatalf("Describe(%q) = %q, %v; want tag %q", col, tag, ok, f.tag)
			}
			if measured[tag].Count() != all[tag].Count() {
				t.Fatalf("%s: merged %d values, want %d", tag, measured[tag].Count(), all[tag].Count())
			}
			got := fromHistogram(c, measured[tag], []map[string]string{{col: "1"}, {col: "2"}})
			want := results.FormatFloat(measure.Ms(pick(truth)))
			if got != want {
				t.Errorf("%s: merged %s, one histogram of all values %s", col, got, want)
			}
			checked++
		}
	}
	if checked != 20 {
		t.Fatalf("checked %d columns, want 20", checked)
	}
	for _, col := range []string{"tx.pay.count", "stmt.point_select.errors", "tps", "connects"} {
		if results.Describe(results.SummaryCSV, col).Merge == results.MergeHistogram {
			t.Errorf("%s is a count, not recomputed from a histogram", col)
		}
	}
}

// A server counter's cost per transaction, which the leader alone watched and divided by
// its own transactions, is divided by every shard's once merged; the client's CPU per
// transaction stays the leader's own.
func TestServerCostsOverAllShards(t *testing.T) {
	leader := map[string]string{"transactions": "100", "cost.fsyncs": "0.5", "cost.client_cpu_us": "40", "status.Innodb_data_fsyncs": "50"}
	rows := []map[string]string{leader, {"transactions": "300"}}
	v := summaryValues(nil, []string{"transactions", "cost.fsyncs", "cost.client_cpu_us", "status.Innodb_data_fsyncs"}, rows, nil, leader)
	for col, want := range map[string]string{"transactions": "400", "cost.fsyncs": "0.125", "cost.client_cpu_us": "40", "status.Innodb_data_fsyncs": "50"} {
		if v[col] != want {
			t.Errorf("%s = %q, want %s", col, v[col], want)
		}
	}
}

// TestWorstBehind: a merged iteration fell behind its schedule when one shard did, by the
// lag percentiles of the shard furthest behind, with the worst lag of all, from the earliest
// moment one did; on time when none did.
func TestWorstBehind(t *testing.T) {
	its := []results.IterationInfo{
		{Index: 1},
		{Index: 1, Behind: &results.Behind{LimitMs: 100, LagP50Ms: 3, LagP99Ms: 450, LagMaxMs: 900, FromS: 12}},
		{Index: 1, Behind: &results.Behind{LimitMs: 100, LagP50Ms: 9, LagP99Ms: 700, LagMaxMs: 800, FromS: 20}},
	}
	got := worstBehind(its)
	if got == nil || got.LagP99Ms != 700 || got.LagP50Ms != 9 || got.LagMaxMs != 900 || got.FromS != 12 {
		t.Errorf("merged behind %+v: want the second shard's percentiles (p99 700 ms), the worst lag 900 ms, from 12 s", got)
	}
	if its[2].Behind.FromS != 20 {
		t.Error("the shard's own figures were changed")
	}
	if b := worstBehind(its[:1]); b != nil {
		t.Errorf("no shard behind: %+v, want none", b)
	}
}
