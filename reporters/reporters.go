// Package reporters rebuilds every derived file of a results folder from the folder
// alone: the measured data (summary.csv, timeseries/, histograms/, run.json) is written
// while a run goes; the reports here are views of it, so `quadrant report` on a
// colleague's folder gives the same files as the run that made it.
package reporters

import (
	"fmt"
	"path/filepath"

	"github.com/quadrant-bench/quadrant/reporters/html"
	"github.com/quadrant-bench/quadrant/reporters/verifyfolder"
	"github.com/quadrant-bench/quadrant/results"
)

// Reporter writes one kind of derived file.
type Reporter interface {
	// Name is the format name a plan's report.formats uses.
	Name() string
	// Wanted reports whether the run's report options ask for this reporter.
	Wanted(o results.ReportOptions) bool
	// Write writes the files and returns their paths.
	Write(run *results.Run, version string) ([]string, error)
}

// All lists every reporter, in the order they run.
func All() []Reporter {
	return []Reporter{htmlReport{}, variablePages{}, variableCSVs{}, summaryJSON{}}
}

// Rebuild loads dir and writes every wanted report; it returns the paths written. A verify
// folder (queries.csv) gets its own page: it has no summary or time series to chart.
func Rebuild(dir, version string) ([]string, error) {
	if verifyfolder.Is(dir) {
		f, err := verifyfolder.Load(dir)
		if err != nil {
			return nil, err
		}
		p, err := html.WriteCheckReport(f, version)
		if err != nil {
			return nil, fmt.Errorf("html report: %w", err)
		}
		return []string{p}, nil
	}
	run, err := results.Open(dir) // time series stay on disk: each reporter streams what it needs
	if err != nil {
		return nil, err
	}
	var written []string
	for _, r := range All() {
		if !r.Wanted(run.Info.Report) {
			continue
		}
		paths, err := r.Write(run, version)
		written = append(written, paths...)
		if err != nil {
			return written, fmt.Errorf("%s report: %w", r.Name(), err)
		}
	}
	if verifyfolder.Has(dir) {
		// a verify: step's queries.csv gets its own page beside the run's
		f, err := verifyfolder.Load(dir)
		if err != nil {
			return written, err
		}
		p, err := html.WriteCheckReport(f, version)
		if err != nil {
			return written, fmt.Errorf("verify page: %w", err)
		}
		written = append(written, p)
	}
	return written, nil
}

type htmlReport struct{}

func (htmlReport) Name() string                        { return "html" }
func (htmlReport) Wanted(o results.ReportOptions) bool { return o.Wants("html") }
func (htmlReport) Write(run *results.Run, version string) ([]string, error) {
	p, err := html.WriteReport(run, version)
	return []string{p}, err
}

type variablePages struct{}

func (variablePages) Name() string { return "html (per variable)" }
func (variablePages) Wanted(o results.ReportOptions) bool {
	return o.PerVariable && o.Wants("html")
}
func (variablePages) Write(run *results.Run, version string) ([]string, error) {
	return html.WriteVariablePages(run, version)
}

type variableCSVs struct{}

func (variableCSVs) Name() string { return "csv (per variable)" }
func (variableCSVs) Wanted(o results.ReportOptions) bool {
	return o.PerVariable && o.Wants("csv")
}
func (variableCSVs) Write(run *results.Run, _ string) ([]string, error) {
	return results.WriteVariableCSVs(run)
}

// summaryJSON writes summary.json: the summary rows as objects with typed numbers, for
// tools that would rather not parse CSV.
type summaryJSON struct{}

func (summaryJSON) Name() string                        { return "json" }
func (summaryJSON) Wanted(o results.ReportOptions) bool { return o.Wants("json") }
func (summaryJSON) Write(run *results.Run, _ string) ([]string, error) {
	path := filepath.Join(run.Dir, "summary.json")
	out := struct {
		Plan       string           `json:"plan"`
		Status     string           `json:"status"`
		Iterations []map[string]any `json:"rows"`
		// Stages are summary.csv's rows of load shapes' stages, apart as results.Run has them.
		Stages []map[string]any `json:"stages,omitempty"`
	}{run.Info.Plan, run.Info.Status, jsonRows(run.Summary), jsonRows(run.Stages)}
	if err := results.WriteJSON(path, out); err != nil {
		return nil, err
	}
	return []string{path}, nil
}

// jsonRows are d's rows as objects with typed numbers, empty cells left out.
func jsonRows(d *results.Data) []map[string]any {
	if d == nil {
		return nil
	}
	rows := make([]map[string]any, 0, len(d.Rows))
	for i, row := range d.Rows {
		obj := make(map[string]any, len(row))
		for c, name := range d.Header {
			if v, ok := d.Float(i, name); ok {
				obj[name] = v
			} else if row[c] != "" {
				obj[name] = row[c]
			}
		}
		rows = append(rows, obj)
	}
	return rows
}
