package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// QueriesFile is quadrant verify's table: per statement fingerprint and compared target,
// whether the target returned the same rows and chose the same plan as the base target.
const QueriesFile = "queries.csv"

// CheckPage is the page of queries.csv in the folder of a plan run with a verify: step,
// beside the run's report.html; a folder `quadrant verify` wrote has it as report.html.
const CheckPage = "verify.html"

// Columns of queries.csv besides ColFingerprintID, ColFingerprint, ColTarget and ColCount.
const (
	// ColBase is the target the row's target was compared with (absent in folders written
	// before it: run.json's first target).
	ColBase        = "base"
	ColResults     = "results"
	ColPlan        = "plan"
	ColBaseErrors  = "base_errors"
	ColErrors      = "errors"
	ColExample     = "example"
	ColDifferences = "differences"
	// ColLatency is the latency verdict; ColBaseP95 and ColFingerprintP95 ("p95_ms") the
	// fingerprint's timed 95th percentile on the base and on the target; ColChange its change
	// in percent (target over base) with ColChangeLo..ColChangeHi its 95% confidence interval;
	// ColTimed how many timed runs each side had.
	ColLatency  = "latency"
	ColBaseP95  = "base_p95_ms"
	ColChange   = "change_pct"
	ColChangeLo = "change_lo_pct"
	ColChangeHi = "change_hi_pct"
	ColTimed    = "timed"
)

// The values of queries.csv's results and plan cells.
const (
	VerifySame          = "same"
	VerifyDifferent     = "different"
	VerifyError         = "error"          // results: the statements failed alike on both sides
	VerifyNotComparable = "not_comparable" // results: nondeterministic (NOW(), RAND()...): not compared
	VerifyNoPlan        = "none"           // plan: a statement EXPLAIN does not take (SHOW...)
	// latency: the change's 95% CI is wholly below (faster) or above (slower) zero, or holds
	// it (same); none when it was not timed on both sides.
	VerifyFaster    = "faster"
	VerifySlower    = "slower"
	VerifyNoLatency = "none"
)

// QueryRow is one row of queries.csv.
type QueryRow struct {
	FingerprintID string
	Fingerprint   string
	// Target is the compared target; Base the one it was compared with.
	Target, Base string
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
	Latency     string
	// BaseP95 and P95 are milliseconds; Change, ChangeLo and ChangeHi percent. NaN when not
	// timed.
	BaseP95, P95               float64
	Change, ChangeLo, ChangeHi float64
	Timed                      int64
}

func (q QueryRow) record() Record {
	var r Record
	r.Add(ColFingerprintID, q.FingerprintID)
	r.Add(ColFingerprint, q.Fingerprint)
	r.Add(ColTarget, q.Target)
	r.Add(ColBase, q.Base)
	r.AddInt(ColCount, q.Count)
	r.Add(ColResults, q.Results)
	r.Add(ColPlan, q.Plan)
	r.Add(ColBaseErrors, ErrorCodes(q.BaseErrors))
	r.Add(ColErrors, ErrorCodes(q.Errors))
	r.Add(ColExample, q.Example)
	r.Add(ColDifferences, q.Differences)
	r.Add(ColLatency, q.Latency)
	r.AddFloat(ColBaseP95, q.BaseP95)
	r.AddFloat(ColFingerprintP95, q.P95)
	r.AddFloat(ColChange, q.Change)
	r.AddFloat(ColChangeLo, q.ChangeLo)
	r.AddFloat(ColChangeHi, q.ChangeHi)
	r.AddInt(ColTimed, q.Timed)
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
	d, err := loadData(dir, QueriesFile)
	if err != nil {
		return nil, err
	}
	out := make([]QueryRow, len(d.Rows))
	for i := range d.Rows {
		n, _ := strconv.ParseInt(d.Value(i, ColCount), 10, 64)
		q := QueryRow{
			FingerprintID: d.Value(i, ColFingerprintID), Fingerprint: d.Value(i, ColFingerprint),
			Target: d.Value(i, ColTarget), Base: d.Value(i, ColBase), Count: n, Results: d.Value(i, ColResults), Plan: d.Value(i, ColPlan),
			BaseErrors: map[int]int64{}, Errors: map[int]int64{},
			Example: d.Value(i, ColExample), Differences: d.Value(i, ColDifferences),
			Latency: d.Value(i, ColLatency), BaseP95: floatOrNaN(d, i, ColBaseP95), P95: floatOrNaN(d, i, ColFingerprintP95),
			Change: floatOrNaN(d, i, ColChange), ChangeLo: floatOrNaN(d, i, ColChangeLo), ChangeHi: floatOrNaN(d, i, ColChangeHi),
		}
		q.Timed, _ = strconv.ParseInt(d.Value(i, ColTimed), 10, 64)
		if q.Latency == "" {
			// a folder written before latency verdicts
			q.Latency = VerifyNoLatency
		}
		AddErrorCodes(q.BaseErrors, d.Value(i, ColBaseErrors))
		AddErrorCodes(q.Errors, d.Value(i, ColErrors))
		out[i] = q
	}
	return out, nil
}

func floatOrNaN(d *Data, i int, col string) float64 {
	if v, ok := d.Float(i, col); ok {
		return v
	}
	return math.NaN()
}

// QueryDetailsFile holds, per fingerprint and compared target that differed, what the
// report shows beside queries.csv's row: both plans and the first differing rows. One JSON
// object per line (QueryDetail), appended as verify goes.
const QueryDetailsFile = "query-details.jsonl"

// MaxDetailRows bounds QueryDetail's rows on each side: enough to see the difference, never
// a result set.
const MaxDetailRows = 10

// QueryDetail is one line of query-details.jsonl.
type QueryDetail struct {
	FingerprintID string `json:"fingerprint_id"`
	Target        string `json:"target"`
	// BasePlan and Plan are the reduced plans, one line per table in join order then the
	// plan's flags ("orders: ref on idx_customer, rows ~12", "filesort"); empty when the
	// statement has no plan.
	BasePlan []string `json:"base_plan,omitempty"`
	Plan     []string `json:"plan,omitempty"`
	// Statement is the sample whose rows are below; Columns its columns' names.
	Statement string   `json:"statement,omitempty"`
	Columns   []string `json:"columns,omitempty"`
	// BaseRows and Rows are the differing rows, at most MaxDetailRows each side, in the
	// statement's order (or sorted, for an unordered statement); a nil cell is NULL.
	BaseRows [][]*string `json:"base_rows,omitempty"`
	Rows     [][]*string `json:"rows,omitempty"`
	// FirstDifference says where the rows first differ: "row 3, column 2: 12.50 → 12.5000".
	FirstDifference string `json:"first_difference,omitempty"`
}

// AppendQueryDetail adds one line to query-details.jsonl.
func (w *Writer) AppendQueryDetail(d QueryDetail) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return w.appendLine(QueryDetailsFile, b)
}

// ReadQueryDetails reads the query-details.jsonl of folder dir; a folder without one has
// none (verify wrote it only when something differed, or was older).
func ReadQueryDetails(dir string) ([]QueryDetail, error) {
	f, err := OpenIn(dir, QueryDetailsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []QueryDetail
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var d QueryDetail
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			// a line cut short by a crash is the last one: keep what came before
			return out, fmt.Errorf("%s line %d: %w", filepath.Join(dir, QueryDetailsFile), n, err)
		}
		out = append(out, d)
	}
	return out, sc.Err()
}

// describeQueries: queries.csv's rows are placed by fingerprint and target; its error cells
// add up as codes.
func describeQueries(name string) ColumnInfo {
	c := ColumnInfo{Name: name, CSV: QueriesCSV, Role: RoleOther, Merge: MergeLeader}
	switch name {
	case ColFingerprintID, ColFingerprint, ColTarget, ColBase:
		c.Role, c.Merge = RoleKey, MergeKey
	case ColCount:
		c.Merge, c.Unit = MergeSum, measure.Count
	case ColBaseErrors, ColErrors:
		c.Merge = MergeCodes
	case ColBaseP95, ColFingerprintP95:
		c.Unit, c.Better = measure.Millis, -1
	case ColTimed:
		c.Merge, c.Unit = MergeSum, measure.Count
	}
	return c
}

// appendLine adds one line to file, opened for the line only: lines are few (what differed)
// and each is on disk once written, whatever happens to the run after.
func (w *Writer) appendLine(file string, line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, err := openOwn(filepath.Join(w.Dir, file), os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return w.writeError(file, err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return w.writeError(file, err)
	}
	return w.writeError(file, f.Close())
}
