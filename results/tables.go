package results

import (
	_ "embed"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// AddTables adds the declarations of ts that info lacks (by file).
func (info *RunInfo) AddTables(ts []measure.Table) {
	for _, t := range ts {
		if _, ok := info.table(t.File); !ok {
			info.Tables = append(info.Tables, t)
		}
	}
}

func (info *RunInfo) table(file string) (measure.Table, bool) {
	for _, t := range info.Tables {
		if t.File == file {
			return t, true
		}
	}
	return measure.Table{}, false
}

// Table is the declared table of that file and its rows; empty (no header) when the
// folder has none.
func (r *Run) Table(file string) *Data {
	if d := r.Tables[file]; d != nil {
		return d
	}
	return NewData(nil, nil)
}

// DescribeTable says what column name of the declared table file is, from run.json's
// declaration; an undeclared column is a figure the shards' sum merges.
func (r *Run) DescribeTable(file, name string) ColumnInfo {
	c := ColumnInfo{Name: name, CSV: CSV(file), Role: RoleOther, Merge: MergeSum}
	t, _ := r.Info.table(file)
	col, ok := t.Column(name)
	if !ok {
		return c
	}
	c.Unit, c.Better, c.Merge = col.Unit, col.Better, Merge(col.Merge)
	switch c.Merge {
	case MergeKey, MergeRank:
		c.Role = RoleKey
	case MergeHistogram:
		c.Fallback, c.Histogram, c.Percentile = MergeEmpty, col.Histogram, col.Percentile
	}
	return c
}

// loadTables reads the declared tables the folder has (a file absent is no table), the
// declarations of its time for a folder whose run.json has none (oldTables).
func (r *Run) loadTables() error {
	if err := r.declareOldTables(); err != nil {
		return err
	}
	r.Tables = map[string]*Data{}
	for _, t := range r.Info.Tables {
		d, err := loadData(r.Dir, filepath.Base(t.File))
		if err != nil {
			return err
		}
		r.Tables[t.File] = d
	}
	return nil
}

// oldTables are the declarations, in run.json's own format, of the kinds' tables written
// before run.json declared them (Tables): frozen as those versions wrote them, data of
// this package rather than the kinds' declarations of today (see oldMetrics).
//
//go:embed oldtables.json
var oldTables []byte

// declareOldTables declares, in a folder whose run.json declares no table, those of
// oldTables whose file it has; in a folder that declares them, it adds the comparisons of
// oldTables (addOldComparisons).
func (r *Run) declareOldTables() error {
	var old []measure.Table
	if err := json.Unmarshal(oldTables, &old); err != nil {
		return err // the embedded file is broken: a test reads it
	}
	if r.Info.Tables != nil {
		addOldComparisons(r.Info.Tables, old)
		return nil
	}
	for _, t := range old {
		if _, err := os.Lstat(filepath.Join(r.Dir, t.File)); err == nil { // a link is declared, then refused reading it
			r.Info.Tables = append(r.Info.Tables, t)
		}
	}
	return nil
}

// addOldComparisons gives a table declared without a comparison, as run.json declared
// tables before a declaration said how compare lines them up (measure.TableCompare), the
// comparison of old's table of the same file, when the table has every column it names:
// a replay's fingerprints.csv of then is lined up as today's.
func addOldComparisons(tables, old []measure.Table) {
	for i, t := range tables {
		for _, o := range old {
			if t.Compare != nil || o.File != t.File || o.Compare == nil {
				continue
			}
			if hasColumns(t, o.Compare.Row, o.Compare.Text, o.Compare.Value, o.Compare.Count) {
				c := *o.Compare
				tables[i].Compare = &c
			}
		}
	}
}

// hasColumns says whether t declares each of names ("" aside).
func hasColumns(t measure.Table, names ...string) bool {
	for _, n := range names {
		if _, ok := t.Column(n); !ok && n != "" {
			return false
		}
	}
	return true
}

// AppendTableRows adds rows to a workload's own table file (merge writes the shards'
// rows merged by the table's declaration).
func (w *Writer) AppendTableRows(file string, recs []Record) error {
	return w.appendRows(filepath.Base(file), recs)
}
