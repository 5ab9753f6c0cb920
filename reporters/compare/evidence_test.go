package compare

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

func loadMatrix(t *testing.T, scale float64) *results.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	fixture.Matrix(t, dir, scale)
	r, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The fixture's COMMIT takes 0.05 ms x fsyncs per transaction (2 with fsync), its log file waits
// 0.04 ms x fsyncs: per transaction 100 µs and 80 µs with fsync, whatever the throughput.
func TestEvidenceLinesUpCostsStatementsAndWaitsPerTransaction(t *testing.T) {
	c := Compare([]*results.Run{loadMatrix(t, 1), loadMatrix(t, 0.8)}, []string{"tps"})
	if len(c.Evidence) != 6 {
		t.Fatalf("evidence of %d cells, want 6", len(c.Evidence))
	}
	var ce *CellEvidence
	for i := range c.Evidence {
		if c.Evidence[i].Key == "threads=1 flush=fsync @primary" {
			ce = &c.Evidence[i]
		}
	}
	if ce == nil {
		t.Fatalf("no evidence for threads=1 flush=fsync: %+v", c.Evidence)
	}
	want := map[string]float64{"cost.fsyncs": 2, "cost.server_cpu_us": 160, "sbtest: COMMIT": 100,
		"sbtest: SELECT c FROM sbtest1 WHERE id = ?": 20, "wait/io/file/innodb/innodb_log_file": 80, "wait/synch/mutex/innodb/log_sys_mutex": 1}
	if len(ce.Rows) != len(want) {
		t.Fatalf("rows %+v, want %v", ce.Rows, want)
	}
	for _, r := range ce.Rows {
		w, ok := want[r.Name]
		if !ok || len(r.Values) != 2 || math.Abs(r.Values[0]-w) > 0.02*w || math.Abs(r.Values[1]-w) > 0.02*w {
			t.Errorf("%s %s: %v, want %v in both runs", r.Kind, r.Name, r.Values, w)
		}
	}
	// costs first, then statements and waits by their time
	if ce.Rows[0].Kind != CostRow || ce.Rows[2].Name != "sbtest: COMMIT" || ce.Rows[4].Name != "wait/io/file/innodb/innodb_log_file" {
		t.Errorf("row order %+v", ce.Rows)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"Where the time went", "threads=1 flush=fsync @primary; tps run 2 vs run 1: slower by 20%",
		"statement sbtest: COMMIT", "wait wait/io/file/innodb/innodb_log_file"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestNoEvidenceWithoutCostsDigestsOrWaits(t *testing.T) {
	a := load(t, 1, nil)
	c := Compare([]*results.Run{a, a}, []string{"tps"})
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if len(c.Evidence) != 0 || strings.Contains(buf.String(), "Where the time went") {
		t.Errorf("a folder without costs, digests or waits shows evidence: %+v", c.Evidence)
	}
}
