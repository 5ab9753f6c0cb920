package results

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// writeTablesFolder writes a folder with rows in replay.csv, fingerprints.csv and own.csv,
// its run.json declaring the tables decl gives (none: a folder of before declarations).
func writeTablesFolder(t *testing.T, decl []measure.Table) string {
	t.Helper()
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	row := func(cols ...string) Record {
		var r Record
		for i := 0; i < len(cols); i += 2 {
			r.Add(cols[i], cols[i+1])
		}
		return r
	}
	for file, rec := range map[string]Record{
		replayCSV:       row(ColIteration, "1", ColTarget, "db", "statements_captured", "40"),
		fingerprintsCSV: row(ColIteration, "1", ColTarget, "db", ColFingerprintID, "q1", "p95_ms", "2.5"),
		"own.csv":       row(ColIteration, "1", ColTarget, "db", "widgets", "7"),
	} {
		if err := w.appendRows(file, []Record{rec}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	info := &RunInfo{Tool: "quadrant", Version: "0.9", Plan: "tables", Start: t0, Status: StatusDone,
		Iterations: []IterationInfo{{Index: 1, Repeat: 1, Status: StatusDone, Start: t0}}}
	info.AddTables(decl)
	if err := w.WriteRunInfo(info); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A folder written before run.json declared the kinds' tables reads its replay.csv and
// fingerprints.csv with the declarations of its time (oldtables.json): how each column
// merges, its unit, a percentile's histogram. A folder that declares its tables reads those
// it declares and no other, by Load and Open alike.
func TestTablesAreReadAsDeclared(t *testing.T) {
	old := writeTablesFolder(t, nil)
	own := []measure.Table{{File: "own.csv", Title: "Widgets", Key: []string{ColIteration, ColTarget},
		Columns: []measure.TableColumn{{Name: "widgets", Unit: "count", Merge: "max"}}}}
	declared := writeTablesFolder(t, own)
	for name, read := range map[string]func(string) (*Run, error){"Load": Load, "Open": Open} {
		r, err := read(old)
		if err != nil {
			t.Fatal(err)
		}
		if v := r.Table(replayCSV).Value(0, "statements_captured"); v != "40" {
			t.Errorf("%s: old folder's replay.csv statements_captured %q, want 40", name, v)
		}
		if v := r.Table(fingerprintsCSV).Value(0, "p95_ms"); v != "2.5" {
			t.Errorf("%s: old folder's fingerprints.csv p95_ms %q, want 2.5", name, v)
		}
		if c := oldCompare(r); c == nil || c.Row != ColFingerprintID || c.Value != ColFingerprintP95 || c.Count != ColCount || c.Text != ColFingerprint {
			t.Errorf("%s: old folder's fingerprints.csv is lined up across runs by %+v, want by its id, text, p95 and count", name, c)
		}
		if n := len(r.Table("own.csv").Rows); n != 0 || len(r.Info.Tables) != 2 {
			t.Errorf("%s: old folder declares %d tables and reads %d undeclared rows, want 2 and 0", name, len(r.Info.Tables), n)
		}
		for _, c := range []struct {
			file, col  string
			merge      Merge
			role       Role
			unit, hist string
			q          float64
		}{
			{replayCSV, "lag_p99_ms", MergeEmpty, RoleOther, measure.Millis, "", 0},
			{replayCSV, ColBlockedMaxMs, MergeMax, RoleOther, measure.Millis, "", 0},
			{replayCSV, "statements_captured", MergeSum, RoleOther, "", "", 0},
			{fingerprintsCSV, ColFingerprintP95, MergeHistogram, RoleOther, measure.Millis, "tx", 95},
			{fingerprintsCSV, "captured_p95_ms", MergeEmpty, RoleOther, measure.Millis, "", 0},
			{fingerprintsCSV, ColRank, MergeRank, RoleKey, "", "", 0},
			{fingerprintsCSV, ColFingerprintID, MergeKey, RoleKey, "", "", 0},
			{fingerprintsCSV, ColErrorsByCode, MergeCodes, RoleOther, "", "", 0},
		} {
			d := r.DescribeTable(c.file, c.col)
			if d.Merge != c.merge || d.Role != c.role || d.Unit != c.unit || d.Histogram != c.hist || d.Percentile != c.q {
				t.Errorf("%s: %s %s is %+v, want merge %s role %s unit %q histogram %q percentile %v", name, c.file, c.col, d, c.merge, c.role, c.unit, c.hist, c.q)
			}
		}
		r, err = read(declared)
		if err != nil {
			t.Fatal(err)
		}
		if v := r.Table("own.csv").Value(0, "widgets"); v != "7" || r.DescribeTable("own.csv", "widgets").Merge != MergeMax {
			t.Errorf("%s: declared own.csv widgets %q merged %s, want 7 and max", name, v, r.DescribeTable("own.csv", "widgets").Merge)
		}
		if n := len(r.Table(replayCSV).Rows); n != 0 {
			t.Errorf("%s: a folder declaring its tables read %d rows of the undeclared replay.csv", name, n)
		}
	}
}

// replayCSV and fingerprintsCSV are the replay kind's tables, which old folders'
// declarations (oldtables.json) describe.
const (
	replayCSV       = "replay.csv"
	fingerprintsCSV = "fingerprints.csv"
)

// oldCompare is how compare lines up the old folder's fingerprints.csv.
func oldCompare(r *Run) *measure.TableCompare {
	t, _ := r.Info.table(fingerprintsCSV)
	return t.Compare
}

// A folder whose run.json declares the replay's tables as they were before a table declared
// its comparison has its fingerprints.csv lined up as today's (oldtables.json's comparison);
// a table that lacks a column of it is not.
func TestDeclaredTablesOfThenGetTheirComparison(t *testing.T) {
	var old []measure.Table
	if err := json.Unmarshal(oldTables, &old); err != nil {
		t.Fatal(err)
	}
	for i := range old {
		old[i].Compare = nil
	}
	r, err := Load(writeTablesFolder(t, old))
	if err != nil {
		t.Fatal(err)
	}
	if c := oldCompare(r); c == nil || c.Row != ColFingerprintID || c.Value != ColFingerprintP95 {
		t.Errorf("fingerprints.csv declared without a comparison is lined up by %+v, want by its id and p95", c)
	}
	for _, tb := range r.Info.Tables {
		if tb.File == replayCSV && tb.Compare != nil {
			t.Errorf("replay.csv is lined up by %+v", tb.Compare)
		}
	}
	for i := range old {
		if old[i].File == fingerprintsCSV {
			old[i].Columns = slices.DeleteFunc(old[i].Columns, func(c measure.TableColumn) bool { return c.Name == ColFingerprintP95 })
		}
	}
	if r, err = Load(writeTablesFolder(t, old)); err != nil {
		t.Fatal(err)
	}
	if c := oldCompare(r); c != nil {
		t.Errorf("fingerprints.csv without p95_ms is lined up by %+v", c)
	}
}
