package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// TestFidelityRows: replay.csv says how long the sessions were blocked and how their errors
// differ from the capture's; fingerprints.csv has the captured errors by code beside the
// replayed ones, the top fingerprint by replayed time first and "other" last; the cells are
// written as the shared tables write theirs (results.TableRecords), iteration and target
// first.
func TestFidelityRows(t *testing.T) {
	slow, fast := measure.NewHistogram(), measure.NewHistogram()
	slow.Record(30 * time.Millisecond)
	fast.Record(time.Millisecond)
	f := &Fidelity{StatementsCaptured: 10, StatementsReplayed: 10, ErrorsCaptured: 1, ErrorsUnlikeCapture: 2,
		LockWaits: 1, LockWaitTime: 5 * time.Second, LongStatements: 3, LongTime: 1500 * time.Millisecond, SessionsBlocked: 2, BlockedMost: 5200 * time.Millisecond,
		EndState: "different", EndDiffers: []string{"db.a", "db.b"},
		Fingerprints: []Fingerprint{{ID: otherFingerprint}, {ID: "q0fast"},
			{ID: "q0slow", ErrorsByCode: map[int]int64{1062: 1, 1205: 1}, CapturedErrorsByCode: map[int]int64{1213: 1}}}}
	tot := &measure.Total{Summary: f}
	tot.Transactions = []measure.Named{{Name: "q0fast", Latency: fast}, {Name: "q0slow", Latency: slow}, {Name: otherFingerprint, Latency: slow}}
	rows := tableRows(tot, f)
	recs := results.TableRecords(1, "primary", rows[fidelityFile])
	if len(recs) != 1 || recs[0][0] != (results.Field{Name: "iteration", Value: "1"}) || recs[0][1] != (results.Field{Name: "target", Value: "primary"}) {
		t.Fatalf("replay.csv rows %v", recs)
	}
	got := cells(recs[0])
	for k, want := range map[string]string{"errors_captured": "1", "errors_unlike_capture": "2", "sessions_blocked": "2", "blocked_max_ms": "5200", "lock_waits": "1",
		"lock_wait_ms": "5000", "long_statements": "3", "long_ms": "1500", "lag_p99_ms": "", "end_state": "different", "end_state_differs": "db.a db.b"} {
		if got[k] != want {
			t.Errorf("replay.csv %s = %q, want %q", k, got[k], want)
		}
	}
	fps := results.TableRecords(1, "primary", rows[fingerprintsFile])
	var order []string
	for _, r := range fps {
		order = append(order, cells(r)["fingerprint_id"])
	}
	if len(order) != 3 || order[0] != "q0slow" || order[1] != "q0fast" || order[2] != otherFingerprint {
		t.Fatalf("fingerprints.csv order %v, want q0slow, q0fast, other", order)
	}
	fp := cells(fps[0])
	if fp["errors_by_code"] != "1062:1 1205:1" || fp["captured_errors_by_code"] != "1213:1" || fp["rank"] != "1" || !strings.HasPrefix(fp["p95_ms"], "30.0") || fp["captured_p95_ms"] != "" {
		t.Errorf("fingerprints.csv first row %v", fp)
	}
}

func cells(r results.Record) map[string]string {
	m := map[string]string{}
	for _, f := range r {
		m[f.Name] = f.Value
	}
	return m
}

// TestFingerprintsAreComparedByTheirP95: the fingerprints table declares that compare lines
// it up across runs by columns it has: the fingerprint id, the statement, the replayed p95
// (of the fingerprint's histogram, in ms) and the count; the replay.csv table is not lined up.
func TestFingerprintsAreComparedByTheirP95(t *testing.T) {
	for _, tb := range Tables {
		if tb.File != fingerprintsFile {
			if tb.Compare != nil {
				t.Errorf("%s is lined up across runs by %+v", tb.File, tb.Compare)
			}
			continue
		}
		c := tb.Compare
		if c == nil {
			t.Fatalf("%s declares no comparison", tb.File)
		}
		for _, col := range []string{c.Row, c.Text, c.Value, c.Count} {
			if _, ok := tb.Column(col); !ok || col == "" {
				t.Errorf("%s is compared by %q, not a column of it", tb.File, col)
			}
		}
		if v, _ := tb.Column(c.Value); c.Row != tb.Key[len(tb.Key)-1] || v.Histogram != "tx" || v.Percentile != 95 || v.Unit != measure.Millis {
			t.Errorf("%s is compared by row %s and value %+v, want its key's fingerprint id and the replayed p95", tb.File, c.Row, v)
		}
	}
}
