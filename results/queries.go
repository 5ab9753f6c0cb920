package results

import (
	"path/filepath"
	"strconv"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// QueriesFile is quadrant verify's table: per statement fingerprint and compared target,
// whether the target returned the same rows and chose the same plan as the base target.
const QueriesFile = "queries.csv"

// Columns of queries.csv besides ColFingerprintID, ColFingerprint, ColTarget and ColCount.
const (
	ColResults     = "results"
	ColPlan        = "plan"
	ColBaseErrors  = "base_errors"
	ColErrors      = "errors"
	ColExample     = "example"
	ColDifferences = "differences"
)

// The values of queries.csv's results and plan cells.
const (
	VerifySame          = "same"
	VerifyDifferent     = "different"
	VerifyError         = "error"          // results: the statements failed alike on both sides
	VerifyNotComparable = "not_comparable" // results: nondeterministic (NOW(), RAND()...): not compared
	VerifyNoPlan        = "none"           // plan: a statement EXPLAIN does not take (SHOW...)
)

// QueryRow is one row of queries.csv.
type QueryRow struct {
	FingerprintID string
	Fingerprint   string
	// Target is the compared target; the base is run.json's first target.
	Target string
	// Count is how many times the fingerprint was captured (not how many were run: --sample).
	Count   int64
	Results string
	Plan    string
	// BaseErrors and Errors are the error codes of the statements run, code: count, on the
	// base and on Target.
	BaseErrors, Errors map[int]int64
	Example            string
	// Differences says what differed, "; "-separated ("orders: ref on idx_customer → ALL").
	Differences string
}

func (q QueryRow) record() Record {
	var r Record
	r.Add(ColFingerprintID, q.FingerprintID)
	r.Add(ColFingerprint, q.Fingerprint)
	r.Add(ColTarget, q.Target)
	r.AddInt(ColCount, q.Count)
	r.Add(ColResults, q.Results)
	r.Add(ColPlan, q.Plan)
	r.Add(ColBaseErrors, ErrorCodes(q.BaseErrors))
	r.Add(ColErrors, ErrorCodes(q.Errors))
	r.Add(ColExample, q.Example)
	r.Add(ColDifferences, q.Differences)
	return r
}

// AppendQueries adds rows to queries.csv.
func (w *Writer) AppendQueries(rows []QueryRow) error {
	recs := make([]Record, len(rows))
	for i, q := range rows {
		recs[i] = q.record()
	}
	return w.appendRows(QueriesFile, recs)
}

// ReadQueries reads the queries.csv of folder dir.
func ReadQueries(dir string) ([]QueryRow, error) {
	d, err := loadData(filepath.Join(dir, QueriesFile))
	if err != nil {
		return nil, err
	}
	out := make([]QueryRow, len(d.Rows))
	for i := range d.Rows {
		n, _ := strconv.ParseInt(d.Value(i, ColCount), 10, 64)
		q := QueryRow{
			FingerprintID: d.Value(i, ColFingerprintID), Fingerprint: d.Value(i, ColFingerprint),
			Target: d.Value(i, ColTarget), Count: n, Results: d.Value(i, ColResults), Plan: d.Value(i, ColPlan),
			BaseErrors: map[int]int64{}, Errors: map[int]int64{},
			Example: d.Value(i, ColExample), Differences: d.Value(i, ColDifferences),
		}
		AddErrorCodes(q.BaseErrors, d.Value(i, ColBaseErrors))
		AddErrorCodes(q.Errors, d.Value(i, ColErrors))
		out[i] = q
	}
	return out, nil
}

// describeQueries: queries.csv's rows are placed by fingerprint and target; its error cells
// add up as codes.
func describeQueries(name string) ColumnInfo {
	c := ColumnInfo{Name: name, CSV: QueriesCSV, Role: RoleOther, Merge: MergeLeader}
	switch name {
	case ColFingerprintID, ColFingerprint, ColTarget:
		c.Role, c.Merge = RoleKey, MergeKey
	case ColCount:
		c.Merge, c.Unit = MergeSum, measure.Count
	case ColBaseErrors, ColErrors:
		c.Merge = MergeCodes
	}
	return c
}
