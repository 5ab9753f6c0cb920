package mysqlwatch

import (
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/traffic"
)

// The tracker sums each instance's last counters minus its baseline, per statement class; an instance
// that goes away still counts, and a reused address (new text, or a count that went down) starts over.
func TestPreparedTrackerAggregates(t *testing.T) {
	point, rng := "SELECT c FROM sbtest1 WHERE id=?", "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?"
	ps := func(text string, count, timer float64) DigestStats {
		return DigestStats{Text: text, Count: count, TimerPs: timer, RowsSent: count}
	}
	tr := NewPreparedTracker(map[string]DigestStats{
		"a/1/10": ps(point, 100, 1000), // from before the workload: subtracted
		"b/1/11": ps(rng, 7, 70),       // reused by another statement during the workload
	})
	tr.Observe(map[string]DigestStats{"a/1/10": ps(point, 150, 1500), "b/1/11": ps(point, 3, 30), "c/1/12": ps(point, 5, 50), "d/2/12": ps(rng, 4, 40)})
	tr.Observe(map[string]DigestStats{"a/1/10": ps(point, 160, 1600), "c/1/12": ps(point, 2, 20), "d/2/12": ps(rng, 9, 90)}) // b closed; c reused
	got, n := tr.Digests()
	byText := map[string]DigestStats{}
	for k, d := range got {
		if !strings.HasPrefix(d.Digest, PreparedDigestPrefix) || k != "\x00"+d.Digest || d.Schema != "" {
			t.Errorf("key %q digest %q schema %q, want \\x00ps:... and no schema", k, d.Digest, d.Schema)
		}
		byText[d.Text] = d
	}
	// point: a 60, b 3, c 5 then 2 (reused); range: d 9.
	want := map[string]float64{traffic.Fingerprint(point): 70, traffic.Fingerprint(rng): 9}
	for text, c := range want {
		d := byText[text]
		if d.Count != c || d.TimerPs != 10*c || d.RowsSent != c {
			t.Errorf("%s: count %v timer %v sent %v, want %v, %v, %v", text, d.Count, d.TimerPs, d.RowsSent, c, 10*c, c)
		}
	}
	if len(got) != 2 || n != 79 {
		t.Errorf("%d classes, %v executions; want 2, 79", len(got), n)
	}
}
