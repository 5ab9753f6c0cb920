// Package html renders a results folder as one self-contained, interactive HTML file
// (uPlot charts embedded, data inline), so the report works offline and can be mailed.
package html

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	gohtml "html"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/gate"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

var (
	//go:embed assets/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uPlot.min.css
	uplotCSS string
	//go:embed assets/report.js
	reportJS string
	//go:embed assets/report.html.tmpl
	pageSource string

	page = template.Must(template.New("report").Parse(pageSource))
)

type dataTable struct {
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

type pageData struct {
	Info    *results.RunInfo           `json:"info"`
	Summary dataTable                  `json:"summary"`
	Series  map[string]json.RawMessage `json:"series"` // seriesJSON per target
	// StageMarks are the elapsed seconds where a load shape's stage begins, drawn on every
	// over-time chart.
	StageMarks []float64 `json:"stage_marks,omitempty"`
	// StageLabels name each stage mark: the stage and its level ("stage 2: threads 64").
	StageLabels []string `json:"stage_labels,omitempty"`
	// Events are the moments steps marked in the iterations, drawn on the over-time charts.
	Events  []eventJSON         `json:"events,omitempty"`
	Latency map[string]spectrum `json:"latency,omitempty"`
	Plan    string              `json:"plan,omitempty"`
	Only    string              `json:"only,omitempty"`
	// Charts are the workload metrics charted first; Watched the run's watched columns.
	Charts  []string `json:"charts"`
	Watched []string `json:"watched"`
	// Tables are the workloads' own tables run.json declares and the folder has rows of,
	// each titled and in its declared order (ownTables).
	Tables []ownTable `json:"tables,omitempty"`
	// Keys name the columns the page finds rows by, and Columns say what each column of the
	// summary and the time series is (results.Describe): the page knows no column by name.
	Keys    pageKeys              `json:"keys"`
	Columns map[string]columnJSON `json:"columns"`
	// Matrix is drawn by axes.js: the charts by matrix axis and the headline.
	Matrix *matrixData `json:"matrix,omitempty"`
	// Evidence is drawn by evidence.js: where the time went.
	Evidence *evidenceData `json:"evidence,omitempty"`
	// Headline is the top of the page: the headline figures and a load shape's knee.
	Headline *headlineData `json:"headline,omitempty"`
	// Effects are what each matrix axis does at each combination of the others, drawn by
	// effects.js in the headline.
	Effects []effectLine `json:"effects,omitempty"`
	// Outcomes are what the steps came to per cell (a drill plan's losses), drawn by
	// outcomes.js at the top.
	Outcomes *outcomesData `json:"outcomes,omitempty"`
	// Failed says why each iteration that did not pass failed ("failed: REASON"), by
	// iteration: the charts draw those apart.
	Failed map[string]string `json:"failed,omitempty"`
}

// pageKeys are the names of the row keys the page reads; a kind's table says by which of
// its columns the page lines its rows up (ownTable.Compare).
type pageKeys struct {
	Iteration string `json:"iteration"`
	Target    string `json:"target"`
	Status    string `json:"status"`
}

var keys = pageKeys{Iteration: results.ColIteration, Target: results.ColTarget, Status: results.ColStatus}

// columnJSON is a column as the page sees it: a key places a row (never a metric to pick).
type columnJSON struct {
	Role   results.Role `json:"role"`
	Unit   string       `json:"unit,omitempty"`
	Better int          `json:"better,omitempty"`
}

// columnsOf describes the columns of the summary and of every time series.
func columnsOf(run *results.Run, all map[string]*samples) map[string]columnJSON {
	out := map[string]columnJSON{}
	add := func(csv results.CSV, h string) {
		if _, ok := out[h]; !ok {
			c := run.Describe(csv, h)
			out[h] = columnJSON{Role: c.Role, Unit: c.Unit, Better: int(c.Better)}
		}
	}
	if run.Summary != nil {
		for _, h := range run.Summary.Header {
			add(results.SummaryCSV, h)
		}
	}
	for _, s := range all {
		for _, h := range s.names {
			add(results.TimeseriesCSV, h)
		}
	}
	return out
}

// spectrum is one target's latency percentiles per iteration, recomputed from the
// histogram logs (the whole measured part, not one percentile per interval).
type spectrum struct {
	Percentiles []float64            `json:"percentiles"`
	Iterations  map[string][]float64 `json:"iterations"` // iteration index -> ms per percentile
}

// spectrumPercentiles are the points of the latency charts: the tail matters most.
var spectrumPercentiles = []float64{50, 75, 90, 95, 99, 99.9, 99.99, 100}

func latencySpectra(run *results.Run) map[string]spectrum {
	out := map[string]spectrum{}
	for _, t := range run.Targets {
		sp := spectrum{Percentiles: spectrumPercentiles, Iterations: map[string][]float64{}}
		for _, it := range run.Info.Iterations {
			h, err := results.ReadHistograms(run.Dir, t, it.Index, "latency")
			if err != nil || h.Count() == 0 {
				continue
			}
			vals := make([]float64, len(spectrumPercentiles))
			for i, p := range spectrumPercentiles {
				vals[i] = float64(h.Percentile(p).Microseconds()) / 1000
			}
			sp.Iterations[fmt.Sprint(it.Index)] = vals
		}
		if len(sp.Iterations) > 0 {
			out[t] = sp
		}
	}
	return out
}

// Render writes the report of run to w. With only set, the page shows that one
// variable (a column of the time series) across targets and iterations.
func Render(w io.Writer, run *results.Run, version, only string) error {
	all, latency, err := readRun(run, only == "")
	if err != nil {
		return err
	}
	return render(w, run, version, only, all, latency)
}

// readRun reads what the charts need: every time series, and the latency spectra from
// the histogram logs at the same time (they are separate files).
func readRun(run *results.Run, spectra bool) (map[string]*samples, map[string]spectrum, error) {
	var latency map[string]spectrum
	done := make(chan struct{})
	go func() {
		defer close(done)
		if spectra {
			latency = latencySpectra(run)
		}
	}()
	all, err := readAllSamples(run)
	<-done
	return all, latency, err
}

func render(w io.Writer, run *results.Run, version, only string, all map[string]*samples, latency map[string]spectrum) error {
	d := pageData{Info: run.Info, Series: seriesData(all, only), Only: only, Charts: measure.ChartDefaults(), Watched: run.Watched(),
		Keys: keys, Columns: columnsOf(run, all)}
	d.StageMarks, d.StageLabels = stageMarks(all, stageLevels(run))
	d.Events = eventsOf(run)
	d.Failed, _ = failedIterations(run)
	if only == "" {
		d.Summary = dataTable{run.Summary.Header, run.Summary.Rows}
		d.Plan = run.Plan
		d.Latency = latency
		d.Tables = ownTables(run)
		d.Matrix = matrixCharts(run)
		d.Headline = headlineOf(run)
		d.Effects = effectsOf(run)
		d.Outcomes = outcomesOf(run)
		ev, err := whereTimeWent(run)
		if err != nil {
			ev = &evidenceData{Error: err.Error()}
		}
		d.Evidence = ev
	}
	data, err := json.Marshal(d) // escapes <, > and &, so the data cannot close its <script>
	if err != nil {
		return err
	}
	title := run.Info.Plan
	if only != "" {
		title = only + " — " + title
	}
	return page.Execute(w, map[string]string{
		"Title":    gohtml.EscapeString("quadrant: " + title),
		"Version":  gohtml.EscapeString(version),
		"UPlotCSS": uplotCSS,
		"UPlotJS":  uplotJS,
		"ReportJS": reportJS + "\n" + axesJS + "\n" + effectsJS + "\n" + evidenceJS + "\n" + outcomesJS,
		"Data":     string(data),
	})
}

// WriteReport (re)builds report.html in the run's folder.
func WriteReport(run *results.Run, version string) (string, error) {
	path := filepath.Join(run.Dir, results.ReportFile)
	return path, writeFile(path, func(w io.Writer) error { return Render(w, run, version, "") })
}

// WriteVariablePages writes variables/NAME.html for every watched variable (a time-series
// column with a dot in its name: status.*, repl.*, query.*, snmp.*).
func WriteVariablePages(run *results.Run, version string) ([]string, error) {
	all, err := readAllSamples(run)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, name := range run.Watched() {
		path := filepath.Join(run.Dir, results.VariablesDir, results.FileName(name)+".html")
		if err := writeFile(path, func(w io.Writer) error { return render(w, run, version, name, all, nil) }); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// writeFile renders the page in memory first (a failed render leaves the old page) and
// writes it through results' atomic replace: a stranger's folder can plant names in it.
func writeFile(path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("render %s: %w", path, err)
	}
	return results.WriteFileAtomic(path, buf.Bytes())
}

type comparisonData struct {
	Runs    []string         `json:"runs"`
	Metrics []string         `json:"metrics"`
	Cells   []comparisonCell `json:"cells"`
	Notes   []string         `json:"notes"`
	// Better is each metric's direction from the metric table (1: higher is better, -1:
	// lower is, 0: neither): a change is coloured by whether it is better, not by its sign.
	Better map[string]int `json:"better"`
	// Verdicts and VerdictNote are drawn by verdicts.js.
	Verdicts    []verdictRow `json:"verdicts,omitempty"`
	VerdictNote string       `json:"verdict_note,omitempty"`
	// Tables are the kinds' tables compare lined up across runs (replayed statement
	// fingerprints), each titled.
	Tables []ownTable `json:"tables,omitempty"`
	// Throughput is the metric whose verdict servers.js puts first in each cell.
	Throughput string `json:"throughput"`
	// Differences are, per later run, what differed around the numbers, most likely to move
	// them first (compare.RankedDifferences), as a table with the count of hidden ones.
	Differences []differencesData `json:"differences,omitempty"`
	// Servers and Evidence are drawn by servers.js, cell by cell.
	Servers  *serversData         `json:"servers,omitempty"`
	Evidence []comparisonEvidence `json:"evidence,omitempty"`
	// Reproductions lead the page (reproduce.js): each later run's verdict on the effects
	// the first run states.
	Reproductions []reproductionData `json:"reproductions,omitempty"`
	// Gate is the CI gate's outcome when one judged the comparison, drawn by verdicts.js.
	Gate *gateData `json:"gate,omitempty"`
}

type differencesData struct {
	Title  string     `json:"title"`
	Table  *dataTable `json:"table,omitempty"`
	Hidden string     `json:"hidden,omitempty"`
}

// differencesOf lays out the comparison's ranked differences, a table per later run.
func differencesOf(c *compare.Comparison) []differencesData {
	var out []differencesData
	for _, rd := range c.Differences {
		d := differencesData{Title: fmt.Sprintf("What differed, run %d vs run 1, most likely to move the numbers first", rd.Run)}
		if len(rd.Ranked) > 0 {
			d.Table = &dataTable{Header: []string{"rank", "group", results.ColTarget, "setting or fact", "run 1", fmt.Sprintf("run %d", rd.Run)}}
			for _, x := range rd.Ranked {
				target := x.Target
				if target == "" {
					target = "(client)"
				}
				d.Table.Rows = append(d.Table.Rows, []string{strconv.Itoa(x.Rank), x.Group, target, x.Name, x.A, x.B})
			}
		}
		if rd.Hidden > 0 {
			d.Hidden = compare.HiddenText(rd.Hidden) + "."
		}
		out = append(out, d)
	}
	return out
}

type comparisonCell struct {
	Key    string                `json:"key"`
	Values map[string][]*float64 `json:"values"` // nil: the run has no such cell
	// Repeats is, per metric and run, how many repeats the value is the median of.
	Repeats map[string][]int `json:"repeats"`
}

// RenderComparison writes a comparison of runs as one self-contained page: per metric, a
// table with the change against the first run and a chart across cells.
func RenderComparison(w io.Writer, c *compare.Comparison, version string) error {
	return RenderComparisonGate(w, c, nil, version)
}

// RenderComparisonGate is RenderComparison with the CI gate's outcome g (nil: none) at the
// top, above the verdicts.
func RenderComparisonGate(w io.Writer, c *compare.Comparison, g *gate.Result, version string) error {
	cd := comparisonData{Metrics: c.Metrics, Notes: c.Notes, Better: map[string]int{}, Verdicts: comparisonVerdicts(c), VerdictNote: compare.VerdictNote,
		Throughput: results.Throughput(),
		Servers:    acrossServers(c), Evidence: comparisonEvidenceOf(c), Reproductions: reproductionsOf(c), Differences: differencesOf(c), Gate: gateOf(g)}
	for _, m := range c.Metrics {
		cd.Better[m] = int(c.Describe(m).Better)
	}
	for _, r := range c.Runs {
		cd.Runs = append(cd.Runs, r.Dir+" ("+r.Info.Plan+", "+r.Info.Host+")")
	}
	for _, cell := range c.Cells {
		cc := comparisonCell{Key: cell.Key, Values: map[string][]*float64{}, Repeats: map[string][]int{}}
		for m, sts := range cell.Stats {
			for _, st := range sts {
				cc.Repeats[m] = append(cc.Repeats[m], st.N)
			}
		}
		for m, vals := range cell.Values {
			for _, v := range vals {
				if math.IsNaN(v) {
					cc.Values[m] = append(cc.Values[m], nil)
				} else {
					v := v
					cc.Values[m] = append(cc.Values[m], &v)
				}
			}
		}
		cd.Cells = append(cd.Cells, cc)
	}
	for _, t := range c.Tables {
		cd.Tables = append(cd.Tables, comparedTable(c, t))
	}
	data, err := json.Marshal(map[string]any{"compare": cd})
	if err != nil {
		return err
	}
	return page.Execute(w, map[string]string{
		"Title":    gohtml.EscapeString("quadrant: comparison"),
		"Version":  gohtml.EscapeString(version),
		"UPlotCSS": uplotCSS,
		"UPlotJS":  uplotJS,
		"ReportJS": reportJS + "\n" + verdictsJS + "\n" + serversJS + "\n" + reproduceJS,
		"Data":     string(data),
	})
}

// comparedTable is a kind's table lined up across runs, titled with what it compares: the
// id and text of each row, and per run its value, count and change against run 1.
func comparedTable(c *compare.Comparison, t compare.TableChange) ownTable {
	decl := t.Table.Compare
	d := dataTable{Header: []string{"cell", decl.RowHead()}}
	for i := range c.Runs {
		d.Header = append(d.Header, fmt.Sprintf("run %d %s", i+1, decl.Value))
		if decl.Count != "" {
			d.Header = append(d.Header, fmt.Sprintf("run %d %s", i+1, decl.Count))
		}
		if i > 0 {
			d.Header = append(d.Header, fmt.Sprintf("run %d Δ%% %s", i+1, t.Table.ComparedName()))
		}
	}
	if decl.Text != "" {
		d.Header = append(d.Header, decl.TextHead())
	}
	for _, r := range t.Rows {
		row := []string{r.Cell, r.ID}
		for i := range c.Runs {
			row = append(row, cellText(r.Value[i]))
			if decl.Count != "" {
				row = append(row, cellText(r.Count[i]))
			}
			if i > 0 {
				row = append(row, cellText(r.Change[i]))
			}
		}
		if decl.Text != "" {
			row = append(row, r.Text)
		}
		d.Rows = append(d.Rows, row)
	}
	title := t.Table.CompareTitle() + " (" + decl.ValueWords() + " per run, change against run 1)"
	return ownTable{Title: title, Class: strings.TrimSuffix(t.Table.File, ".csv"), dataTable: d}
}

func cellText(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return results.FormatFloat(v)
}

// WriteComparison renders c to path.
func WriteComparison(path string, c *compare.Comparison, version string) error {
	return WriteComparisonGate(path, c, nil, version)
}

// WriteComparisonGate renders c with the gate's outcome g to path.
func WriteComparisonGate(path string, c *compare.Comparison, g *gate.Result, version string) error {
	return writeFile(path, func(w io.Writer) error { return RenderComparisonGate(w, c, g, version) })
}
