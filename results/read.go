package results

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Data is a CSV table read back from a folder.
type Data struct {
	Header []string
	Rows   [][]string
	index  map[string]int
}

// NewData indexes a table by column name.
func NewData(header []string, rows [][]string) *Data {
	d := &Data{Header: header, Rows: rows, index: make(map[string]int, len(header))}
	for i, h := range header {
		d.index[h] = i
	}
	return d
}

// Col is the index of a column, or -1.
func (d *Data) Col(name string) int {
	if i, ok := d.index[name]; ok {
		return i
	}
	return -1
}

// Value is the cell of row i in column name ("" when absent).
func (d *Data) Value(i int, name string) string {
	c := d.Col(name)
	if c < 0 || i >= len(d.Rows) {
		return ""
	}
	return d.Rows[i][c]
}

// Float is the cell as a number; ok is false for an empty or non-numeric cell.
func (d *Data) Float(i int, name string) (float64, bool) {
	v, err := strconv.ParseFloat(d.Value(i, name), 64)
	return v, err == nil
}

// Run is a whole results folder, read back.
type Run struct {
	Dir     string
	Info    *RunInfo
	Plan    string // plan.yaml as written
	Summary *Data  // summary.csv: the iterations' rows
	// Stages are summary.csv's rows of a load shape's stages (a stage column set), apart
	// so every reader of Summary keeps one row per iteration and target; empty (header
	// only) when no workload had stages.
	Stages     *Data
	Timeseries map[string]*Data // timeseries/TARGET.csv by target (header only after Open)
	Targets    []string         // targets with a time series, sorted
	// Tables are the workload kinds' own tables run.json declares, by file (see Table).
	Tables map[string]*Data
	// Warnings are the files whose last line was cut (TornLines), that row left out: a
	// reader says them, since the folder is less than it looks.
	Warnings []string

	onDisk bool // Open: the time-series rows are read by EachRow, not held in Timeseries
}

// Load reads a results folder. Missing optional parts (no samples yet, a run killed
// before its first iteration ended) give empty tables, not errors.
func Load(dir string) (*Run, error) {
	info, err := readFolder(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Info: info, Timeseries: map[string]*Data{}}
	if r.Plan, err = readPlan(dir); err != nil {
		return nil, err
	}
	r.Summary, r.Stages, err = loadSummary(dir)
	if err != nil {
		return nil, err
	}
	r.Targets, err = Targets(dir)
	if err != nil {
		return nil, err
	}
	for _, t := range r.Targets {
		if r.Timeseries[t], err = loadData(dir, filepath.Join(TimeseriesDir, t+".csv")); err != nil {
			return nil, err
		}
	}
	if err := r.loadTables(); err != nil {
		return nil, err
	}
	r.renameHostColumns()
	if err := r.describeOldMetrics(); err != nil {
		return nil, fmt.Errorf("describe the metrics of an old folder: %w", err)
	}
	r.Warnings = TornLines(dir)
	return r, nil
}

// readFolder reads run.json of the results folder dir, once the folder is known to hold no
// link out (CheckFolder): run.json first, so that a folder that is none says so.
func readFolder(dir string) (*RunInfo, error) {
	info, err := ReadRunInfo(dir)
	if err != nil {
		return nil, err
	}
	if err := CheckFolder(dir); err != nil {
		return nil, err
	}
	return info, nil
}

// readPlan reads plan.yaml ("" when the folder has none: a verify's).
func readPlan(dir string) (string, error) {
	plan, err := ReadFileIn(dir, PlanFile)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return string(plan), err
}

// Open reads a results folder like Load but leaves the time-series rows on disk: each
// Timeseries entry has its header and no rows, and EachRow streams them. An hour at
// 1 s of 200 watched columns is ~20 million cells, far more memory as strings than the
// reports built from them need.
func Open(dir string) (*Run, error) {
	info, err := readFolder(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Info: info, Timeseries: map[string]*Data{}, onDisk: true}
	if r.Plan, err = readPlan(dir); err != nil {
		return nil, err
	}
	if r.Summary, r.Stages, err = loadSummary(dir); err != nil {
		return nil, err
	}
	if r.Targets, err = Targets(dir); err != nil {
		return nil, err
	}
	for _, t := range r.Targets {
		header, err := readHeader(dir, filepath.Join(TimeseriesDir, t+".csv"))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, TimeseriesDir, t+".csv"), err)
		}
		r.Timeseries[t] = NewData(header, nil)
	}
	if err := r.loadTables(); err != nil {
		return nil, err
	}
	r.renameHostColumns()
	if err := r.describeOldMetrics(); err != nil {
		return nil, fmt.Errorf("describe the metrics of an old folder: %w", err)
	}
	r.Warnings = TornLines(dir)
	return r, nil
}

// EachRow calls fn with every row of target's time series in file order, from memory
// after Load and from the folder after Open. row is only valid during the call and is
// laid out as Timeseries[target].Header.
func (r *Run) EachRow(target string, fn func(row []string) error) error {
	ts := r.Timeseries[target]
	if ts == nil {
		return nil
	}
	if !r.onDisk {
		for _, row := range ts.Rows {
			if err := fn(row); err != nil {
				return err
			}
		}
		return nil
	}
	err := ScanTableIn(r.Dir, filepath.Join(TimeseriesDir, target+".csv"), func(header, row []string) error {
		if len(header) != len(ts.Header) {
			// Widened since Open read the header (a run still writing): keep Open's layout.
			row = row[:min(len(row), len(ts.Header))]
			for len(row) < len(ts.Header) {
				row = append(row, "")
			}
		}
		return fn(row)
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// CheckRows reads every time series through once, so that a damaged one is an error
// (path:line) before a reader that forgives a short series (compare's noise) uses it.
func (r *Run) CheckRows() error {
	for _, t := range r.Targets {
		if err := r.EachRow(t, func([]string) error { return nil }); err != nil {
			return err
		}
	}
	return nil
}

// oldHostPrefix is how host metrics were named before they could come from /proc as well as SNMP.
const oldHostPrefix = "snmp."

// renameHostColumns reads a folder written with snmp.NAME columns as host.NAME, so that reports and
// comparisons see one name for one host metric whichever version wrote it.
func (r *Run) renameHostColumns() {
	rename := func(d *Data) {
		for i, h := range d.Header {
			if n, ok := strings.CutPrefix(h, oldHostPrefix); ok {
				d.Header[i] = HostPrefix + n
			}
		}
		*d = *NewData(d.Header, d.Rows)
	}
	rename(r.Summary)
	for _, d := range r.Timeseries {
		rename(d)
	}
	for i := range r.Info.Targets {
		for j, c := range r.Info.Targets[i].Watched {
			if n, ok := strings.CutPrefix(c.Name, oldHostPrefix); ok {
				c.Name = HostPrefix + n
				if c.Source == "" {
					c.Source = "host: snmp"
				}
				r.Info.Targets[i].Watched[j] = c
			}
		}
	}
}

// loadSummary reads summary.csv as the iterations' rows and the stages' rows.
func loadSummary(dir string) (iterations, stages *Data, err error) {
	d, err := loadData(dir, SummaryFile)
	if err != nil {
		return nil, nil, err
	}
	c := d.Col(ColStage)
	if c < 0 {
		return d, NewData(d.Header, nil), nil
	}
	var its, sts [][]string
	for _, row := range d.Rows {
		if c < len(row) && row[c] != "" {
			sts = append(sts, row)
		} else {
			its = append(its, row)
		}
	}
	return NewData(d.Header, its), NewData(d.Header, sts), nil
}

// loadData reads the table rel of folder dir; a missing one is empty.
func loadData(dir, rel string) (*Data, error) {
	header, rows, err := ReadTableIn(dir, rel)
	if errors.Is(err, os.ErrNotExist) {
		return NewData(nil, nil), nil
	}
	var link *LinkError
	if errors.As(err, &link) {
		return nil, err // it says the file
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, rel), err)
	}
	return NewData(header, rows), nil
}

// Watched lists the watched columns of the run (status.*, repl.*, query.*, host.*, proc.*, cost.*), in
// first-seen order: as run.json lists them, or, in a folder written before run.json
// did, the time-series columns that are no workload metric.
func (r *Run) Watched() []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	listed := false
	for _, ti := range r.Info.Targets {
		for _, c := range ti.Watched {
			listed = true
			add(c.Name)
		}
	}
	if listed {
		return out
	}
	for _, t := range r.Targets {
		for _, h := range r.Timeseries[t].Header {
			if strings.Contains(h, ".") && !IsWorkloadColumn(h) {
				add(h)
			}
		}
	}
	return out
}

// IsWorkloadColumn reports whether a column is one of the workload's (a metric, a metric
// family such as error.CODE, or a row key), not a watched one.
func IsWorkloadColumn(name string) bool {
	c := Describe(SummaryCSV, name)
	return c.Role == RoleKey || c.Role == RoleMetric
}

// WriteVariableCSVs writes variables/NAME.csv for every watched variable: one row per
// sample, `target,iteration,elapsed_s,time,value`, for loading one variable into a
// spreadsheet without the rest of the time series. Each time series is read once and
// every file written as it goes, so a long run is never held in memory.
func WriteVariableCSVs(r *Run) ([]string, error) {
	type out struct {
		f  *AtomicFile
		bw *bufio.Writer
		cw *csv.Writer
	}
	names := r.Watched()
	files := make([]*out, len(names))
	defer func() {
		for _, o := range files {
			if o != nil {
				o.f.Abort()
			}
		}
	}()
	for i, name := range names {
		path := filepath.Join(r.Dir, VariablesDir, FileName(name)+".csv")
		f, err := CreateAtomic(path)
		if err != nil {
			return nil, err
		}
		bw := bufio.NewWriterSize(f, 16<<10)
		o := &out{f: f, bw: bw, cw: csv.NewWriter(bw)}
		o.cw.Write([]string{ColTarget, ColIteration, ColElapsed, ColTime, "value"})
		files[i] = o
	}
	for _, t := range r.Targets {
		ts := r.Timeseries[t]
		it, el, tm := ts.Col(ColIteration), ts.Col(ColElapsed), ts.Col(ColTime)
		cell := func(row []string, c int) string {
			if c < 0 {
				return ""
			}
			return row[c]
		}
		var cols []int
		var dst []*out
		for i, name := range names {
			if c := ts.Col(name); c >= 0 {
				cols, dst = append(cols, c), append(dst, files[i])
			}
		}
		if len(cols) == 0 {
			continue
		}
		rec := make([]string, 5)
		err := r.EachRow(t, func(row []string) error {
			rec[0], rec[1], rec[2], rec[3] = t, cell(row, it), cell(row, el), cell(row, tm)
			for k, c := range cols {
				rec[4] = row[c]
				if err := dst[k].cw.Write(rec); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var paths []string
	for i, o := range files {
		o.cw.Flush()
		err := o.cw.Error()
		if err == nil {
			err = o.bw.Flush()
		}
		if err == nil {
			err = o.f.Commit()
		}
		if err != nil {
			return paths, err
		}
		paths = append(paths, filepath.Join(r.Dir, VariablesDir, FileName(names[i])+".csv"))
	}
	return paths, nil
}
