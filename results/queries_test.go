package results

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestQueriesRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	rows := []QueryRow{
		{FingerprintID: "a1", Fingerprint: "SELECT ? FROM t", Target: "new", Count: 7, Results: VerifySame, Plan: VerifyDifferent,
			BaseErrors: map[int]int64{}, Errors: map[int]int64{1054: 2}, Example: "SELECT 1 FROM t", Differences: "t: ref on k → ALL",
			Latency: VerifySlower, BaseP95: 1.5, P95: 12.25, Change: 700, ChangeLo: 610.5, ChangeHi: 802, Timed: 40},
		{FingerprintID: "b2", Fingerprint: "SHOW TABLES", Target: "new", Count: 1, Results: VerifyError, Plan: VerifyNoPlan,
			BaseErrors: map[int]int64{1146: 1}, Errors: map[int]int64{1146: 1},
			Latency: VerifyNoLatency, BaseP95: nan, P95: nan, Change: nan, ChangeLo: nan, ChangeHi: nan},
	}
	if err := w.AppendQueries(rows); err != nil {
		t.Fatal(err)
	}
	v := "12.5000"
	detail := QueryDetail{FingerprintID: "a1", Target: "new", BasePlan: []string{"t: ref on k, rows ~3"}, Plan: []string{"t: ALL, rows ~9000", "filesort"},
		Statement: "SELECT 1 FROM t", Columns: []string{"id", "price"}, BaseRows: [][]*string{{&v, nil}}, Rows: [][]*string{{nil, &v}},
		FirstDifference: "row 1, column 1: 12.5000 → NULL"}
	if err := w.AppendQueryDetail(detail); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadQueries(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("read %d rows, want 2", len(got))
	}
	if g := got[0]; g.Latency != VerifySlower || g.P95 != 12.25 || g.BaseP95 != 1.5 || g.ChangeLo != 610.5 || g.Timed != 40 || g.Errors[1054] != 2 {
		t.Errorf("row 1 read back as %+v", g)
	}
	if g := got[1]; g.Latency != VerifyNoLatency || !math.IsNaN(g.P95) || !math.IsNaN(g.Change) {
		t.Errorf("an untimed row read back as %+v, want none and NaN", g)
	}
	ds, err := ReadQueryDetails(dir)
	if err != nil || len(ds) != 1 || !reflect.DeepEqual(ds[0], detail) {
		t.Errorf("details read back as %+v, %v; want %+v", ds, err, detail)
	}
	// a crash mid-line leaves the lines before it readable
	f, _ := os.OpenFile(filepath.Join(dir, QueryDetailsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"fingerprint_id":"c`)
	f.Close()
	ds, err = ReadQueryDetails(dir)
	if err == nil || len(ds) != 1 {
		t.Errorf("a cut line: got %d details and %v, want the first and an error", len(ds), err)
	}
	if ds, err := ReadQueryDetails(t.TempDir()); err != nil || ds != nil {
		t.Errorf("a folder without details: %v, %v", ds, err)
	}
}
