package html

import (
	_ "embed"
	"encoding/json"
	gohtml "html"
	"io"
	"path/filepath"
	"strconv"

	"github.com/quadrant-bench/quadrant/reporters/verifyfolder"
	"github.com/quadrant-bench/quadrant/results"
)

// checkJS draws a verify folder's page and the comparison of two; kept apart from
// report.js, which draws nothing when the data is a check's.
//
//go:embed assets/check.js
var checkJS string

// checkData is a verify folder as check.js draws it: everything ranked, worded and
// formatted here (the page lays it out and decides nothing), so the tests of the ranking
// and the sentences are Go tests.
type checkData struct {
	Title string `json:"title"`
	// Verdicts are one sentence per compared target, prefixed with it when there are several.
	Verdicts []string    `json:"verdicts"`
	Meta     [][2]string `json:"meta"`
	Targets  dataTable   `json:"targets"`
	Notes    []string    `json:"notes,omitempty"`
	// Ranked are the fingerprints that differ in some way, riskiest first; Rest the others as
	// a table, collapsed.
	Ranked []checkItem `json:"ranked"`
	Rest   dataTable   `json:"rest"`
}

type checkItem struct {
	Class   string `json:"class"`
	ClassID int    `json:"class_id"`
	Title   string `json:"title"`
	// Facts are label, value pairs: counts, results, plan, latency, errors, differences.
	Facts   [][2]string  `json:"facts"`
	Example string       `json:"example"`
	Detail  *checkDetail `json:"detail,omitempty"`
}

type checkDetail struct {
	BaseName string      `json:"base_name"`
	Name     string      `json:"name"`
	BasePlan []string    `json:"base_plan"`
	Plan     []string    `json:"plan"`
	Columns  []string    `json:"columns"`
	BaseRows [][]*string `json:"base_rows"`
	Rows     [][]*string `json:"rows"`
	// Statement is the sample whose rows are shown, when it is not the example.
	Statement string `json:"statement,omitempty"`
	// FirstDifference is verify's own words; Row and Col the cell marked (Col -1: the row).
	FirstDifference string `json:"first_difference,omitempty"`
	Marked          bool   `json:"marked"`
	Row             int    `json:"row"`
	Col             int    `json:"col"`
}

func checkPage(f *verifyfolder.Folder) checkData {
	base := f.Base()
	targets := f.Compared()
	d := checkData{Title: "quadrant verify: " + base, Notes: f.Notes}
	for i, t := range targets {
		if i == 0 {
			d.Title += " → "
		} else {
			d.Title += ", "
		}
		d.Title += t
		v := verifyfolder.Verdict(f.Rows, t)
		if len(targets) > 1 {
			v = t + " vs " + base + ": " + v // the target's name as written, never capitalised
		} else {
			v = upperFirst(v)
		}
		d.Verdicts = append(d.Verdicts, v)
	}
	end := "(not finished)"
	if f.Info.End != nil {
		end = f.Info.End.Format("2006-01-02 15:04:05 MST")
	}
	d.Meta = [][2]string{{"folder", f.Dir}, {"traffic", f.Info.PlanFile}, {results.ColStatus, f.Info.Status},
		{"started", f.Info.Start.Format("2006-01-02 15:04:05 MST")}, {"ended", end}, {"host", f.Info.Host}, {"quadrant", f.Info.Version}}
	if f.Info.Error != "" {
		d.Meta = append(d.Meta, [2]string{"error", f.Info.Error})
	}
	d.Targets.Header = []string{results.ColTarget, "role", "server", "address"}
	for i, t := range f.Info.Targets {
		role := "checked"
		if i == 0 {
			role = "base"
		}
		d.Targets.Rows = append(d.Targets.Rows, []string{t.Name, role, t.ServerVersion, t.Address})
	}
	d.Rest.Header = []string{results.ColFingerprintID, results.ColTarget, results.ColCount, results.ColResults, results.ColPlan,
		results.ColLatency, results.ColBaseErrors, results.ColErrors, results.ColFingerprint}
	for _, r := range verifyfolder.Rank(f.Rows) {
		if r.Class == verifyfolder.Fine {
			d.Rest.Rows = append(d.Rest.Rows, []string{r.FingerprintID, r.Target, strconv.FormatInt(r.Count, 10), r.Results, r.Plan,
				r.Latency, results.ErrorCodes(r.BaseErrors), results.ErrorCodes(r.Errors), r.Fingerprint})
			continue
		}
		d.Ranked = append(d.Ranked, checkItemOf(f, r, base))
	}
	return d
}

func checkItemOf(f *verifyfolder.Folder, r verifyfolder.Ranked, base string) checkItem {
	it := checkItem{Class: r.Class.String(), ClassID: int(r.Class), Title: r.FingerprintID + " on " + r.Target + ": " + r.Fingerprint,
		Example: r.Example}
	add := func(label, v string) {
		if v != "" {
			it.Facts = append(it.Facts, [2]string{label, v})
		}
	}
	add(results.ColCount, strconv.FormatInt(r.Count, 10)+" captured")
	add(results.ColResults, r.Results)
	add(results.ColPlan, r.Plan)
	lat := r.Latency
	if lat == results.VerifyNoLatency {
		lat = "not timed on both sides"
	}
	if l := verifyfolder.Latency(r.QueryRow); l != "" {
		lat += ": " + l
	}
	add(results.ColLatency, lat)
	add(results.ColBaseErrors, results.ErrorCodes(r.BaseErrors))
	add(results.ColErrors, results.ErrorCodes(r.Errors))
	add(results.ColDifferences, r.Differences)
	qd, ok := f.Details[verifyfolder.Key(r.FingerprintID, r.Target)]
	if !ok {
		return it
	}
	cd := &checkDetail{BaseName: base, Name: r.Target, BasePlan: qd.BasePlan, Plan: qd.Plan, Columns: qd.Columns,
		BaseRows: qd.BaseRows, Rows: qd.Rows, FirstDifference: qd.FirstDifference}
	if qd.Statement != r.Example {
		cd.Statement = qd.Statement
	}
	cd.Row, cd.Col, cd.Marked = verifyfolder.FirstDifference(qd)
	it.Detail = cd
	return it
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// RenderCheck writes the page of a verify folder: the verdict, then the fingerprints that
// differ riskiest first with both plans and the differing rows side by side, then the rest.
func RenderCheck(w io.Writer, f *verifyfolder.Folder, version string) error {
	d := checkPage(f)
	return renderCheckData(w, d.Title, version, map[string]any{"check": d})
}

func renderCheckData(w io.Writer, title, version string, data any) error {
	b, err := json.Marshal(data) // escapes <, > and &: a statement cannot close the <script>
	if err != nil {
		return err
	}
	return page.Execute(w, map[string]string{
		"Title":    gohtml.EscapeString(title),
		"Version":  gohtml.EscapeString(version),
		"UPlotCSS": uplotCSS,
		"UPlotJS":  uplotJS,
		"ReportJS": reportJS + "\n" + checkJS + "\n" + acrossJS,
		"Data":     string(b),
	})
}

// WriteCheckReport (re)builds the page of a verify folder: report.html, or CheckPage in the
// folder of a plan run with a verify: step (whose report.html is the run's).
func WriteCheckReport(f *verifyfolder.Folder, version string) (string, error) {
	name := results.ReportFile
	if !verifyfolder.Is(f.Dir) {
		name = results.CheckPage
	}
	path := filepath.Join(f.Dir, name)
	return path, writeFile(path, func(w io.Writer) error { return RenderCheck(w, f, version) })
}

// checkComparisonData is two checks compared, as check.js draws it.
type checkComparisonData struct {
	Checks    []checkSummary `json:"checks"`
	Changes   dataTable      `json:"changes"`
	Kinds     []string       `json:"kinds"` // per row of Changes, for its colour
	Unchanged int            `json:"unchanged"`
}

type checkSummary struct {
	Label     string   `json:"label"`
	Headlines []string `json:"headlines"`
}

// RenderCheckComparison writes the comparison of two verify folders as one page.
func RenderCheckComparison(w io.Writer, c *verifyfolder.Comparison, version string) error {
	d := checkComparisonData{Unchanged: c.Unchanged}
	for i, f := range c.Checks {
		d.Checks = append(d.Checks, checkSummary{Label: "check " + strconv.Itoa(i+1) + ": " + f.Dir + " (" + f.Info.Start.Format("2006-01-02 15:04") + ")",
			Headlines: verifyfolder.Headline(f)})
	}
	d.Changes.Header = []string{"change", results.ColFingerprintID, results.ColTarget, "check 1", "check 2", results.ColFingerprint}
	for _, ch := range c.Changes {
		d.Changes.Rows = append(d.Changes.Rows, []string{ch.Kind, ch.FingerprintID, ch.Target, verifyfolder.State(ch.Before), verifyfolder.State(ch.After), ch.Statement()})
		d.Kinds = append(d.Kinds, ch.Direction())
	}
	return renderCheckData(w, "quadrant: comparison of two checks", version, map[string]any{"check_compare": d})
}

// WriteCheckComparison renders c to path.
func WriteCheckComparison(path string, c *verifyfolder.Comparison, version string) error {
	return writeFile(path, func(w io.Writer) error { return RenderCheckComparison(w, c, version) })
}
