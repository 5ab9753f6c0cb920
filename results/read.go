package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results/measure"
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
	Dir        string
	Info       *RunInfo
	Plan       string           // plan.yaml as written
	Summary    *Data            // summary.csv
	Timeseries map[string]*Data // timeseries/TARGET.csv by target
	Targets    []string         // targets with a time series, sorted
}

// Load reads a results folder. Missing optional parts (no samples yet, a run killed
// before its first iteration ended) give empty tables, not errors.
func Load(dir string) (*Run, error) {
	info, err := ReadRunInfo(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Info: info, Timeseries: map[string]*Data{}}
	if plan, err := os.ReadFile(filepath.Join(dir, PlanFile)); err == nil {
		r.Plan = string(plan)
	}
	r.Summary, err = loadData(filepath.Join(dir, SummaryFile))
	if err != nil {
		return nil, err
	}
	r.Targets, err = Targets(dir)
	if err != nil {
		return nil, err
	}
	for _, t := range r.Targets {
		if r.Timeseries[t], err = loadData(filepath.Join(dir, TimeseriesDir, t+".csv")); err != nil {
			return nil, err
		}
	}
	r.renameHostColumns()
	return r, nil
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

func loadData(path string) (*Data, error) {
	header, rows, err := ReadTable(path)
	if errors.Is(err, os.ErrNotExist) {
		return NewData(nil, nil), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
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
	switch name {
	case "iteration", "elapsed_s", "time", "repeat", "target", "status", "duration_s":
		return true
	}
	if _, ok := measure.Lookup(name); ok {
		return true
	}
	return strings.HasPrefix(name, "error.") || strings.HasPrefix(name, "tx.")
}

// WriteVariableCSVs writes variables/NAME.csv for every watched variable: one row per
// sample, `target,iteration,elapsed_s,time,value`, for loading one variable into a
// spreadsheet without the rest of the time series.
func WriteVariableCSVs(r *Run) ([]string, error) {
	var paths []string
	for _, name := range r.Watched() {
		path := filepath.Join(r.Dir, VariablesDir, FileName(name)+".csv")
		var b strings.Builder
		cw := csv.NewWriter(&b)
		cw.Write([]string{"target", "iteration", "elapsed_s", "time", "value"})
		for _, t := range r.Targets {
			ts := r.Timeseries[t]
			if ts.Col(name) < 0 {
				continue
			}
			for i := range ts.Rows {
				cw.Write([]string{t, ts.Value(i, "iteration"), ts.Value(i, "elapsed_s"), ts.Value(i, "time"), ts.Value(i, name)})
			}
		}
		cw.Flush()
		if err := writeAtomic(path, []byte(b.String())); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
