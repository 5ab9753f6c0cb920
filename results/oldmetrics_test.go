package results

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// writeOldFolder writes a folder as quadrant wrote it before run.json described a kind's
// own metrics: the tpmC, tpmTotal and efficiency columns (from the metric table then, here
// a test's own metrics of those names; value: NaN, the empty cell every other workload had)
// and a run.json with no metrics, or those describe gives.
func writeOldFolder(t *testing.T, value func(sec float64) float64, describe []measure.Metric) string {
	t.Helper()
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	col := func(name string, kind measure.Kind, unit string) measure.Metric {
		return measure.Metric{Name: name, Kind: kind, IntervalUnit: unit, TotalUnit: unit,
			Interval: func(iv *measure.Interval) float64 { return value(iv.Seconds()) },
			Total:    func(tt *measure.Total) float64 { return value(tt.Seconds()) }}
	}
	own := &measure.Own{Metrics: []measure.Metric{col("tpmC", measure.Rate, measure.PerMinute), col("tpmTotal", measure.Rate, measure.PerMinute), col("efficiency", measure.Gauge, measure.Percent)}}
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	total := &measure.Total{Start: t0, End: t0.Add(3 * time.Second), Threads: 4}
	for s := 1; s <= 3; s++ {
		iv := &measure.Interval{Index: s, Start: t0.Add(time.Duration(s-1) * time.Second), End: t0.Add(time.Duration(s) * time.Second), Elapsed: time.Duration(s) * time.Second, Threads: 4}
		iv.Own, iv.Events = own, 100
		total.Merge(&iv.Stats)
		if err := w.AppendTimeseries("db", &TimeseriesRow{Iteration: 1, Interval: iv, ReportInterval: time.Second, Workload: true}); err != nil {
			t.Fatal(err)
		}
	}
	total.Own = own
	if err := w.AppendSummary(&SummaryRow{Iteration: 1, Repeat: 1, Target: "db", Status: StatusDone, Duration: 3 * time.Second, Total: total}); err != nil {
		t.Fatal(err)
	}
	info := &RunInfo{Tool: "quadrant", Version: "0.9", Plan: "old", Start: t0, Status: StatusDone,
		Iterations: []IterationInfo{{Index: 1, Repeat: 1, Status: StatusDone, Start: t0}}}
	info.AddMetrics(describe)
	if err := w.WriteRunInfo(info); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A tpcc folder written before run.json described tpmC, tpmTotal and efficiency reads as a
// new one, by Load and Open alike: each column is its metric, with its description, unit
// and direction, and tpmC leads the headline (what report and compare lead with). An old
// folder of another workload (their cells empty, as every workload had them) gets the
// descriptions but no headline; a folder whose run.json describes its metrics keeps its own.
func TestOldFolderDescribesTheMetricsOfItsTime(t *testing.T) {
	tpcc := writeOldFolder(t, func(sec float64) float64 { return 600 }, nil)
	for name, read := range map[string]func(string) (*Run, error){"Load": Load, "Open": Open} {
		r, err := read(tpcc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			csv        CSV
			name, unit string
			doc        string
		}{
			{SummaryCSV, "tpmC", measure.PerMinute, "NewOrder transactions per minute"},
			{TimeseriesCSV, "tpmC", measure.PerMinute, "NewOrder transactions per minute"},
			{SummaryCSV, "tpmTotal", measure.PerMinute, "all five types"},
			{TimeseriesCSV, "efficiency", measure.Percent, "12.86 x warehouses"},
		} {
			d := r.Describe(c.csv, c.name)
			if d.Role != RoleMetric || d.Unit != c.unit || d.Better != measure.Higher || d.Metric == nil || !strings.Contains(d.Metric.Doc, c.doc) {
				t.Errorf("%s: %s of %s is %+v, want a metric in %s, higher better, described %q", name, c.name, c.csv, d, c.unit, c.doc)
			}
		}
		if h := r.Headline(); len(h) == 0 || h[0] != "tpmC" {
			t.Errorf("%s: headline %v, want tpmC first", name, h)
		}
	}

	oltp, err := Load(writeOldFolder(t, func(float64) float64 { return math.NaN() }, nil))
	if err != nil {
		t.Fatal(err)
	}
	if d := oltp.Describe(SummaryCSV, "tpmC"); d.Role != RoleMetric || d.Unit != measure.PerMinute {
		t.Errorf("an old oltp folder's empty tpmC column is %+v", d)
	}
	if h := oltp.Headline(); slices.Contains(h, "tpmC") {
		t.Errorf("an old folder without a tpmC value leads with it: %v", h)
	}

	own := measure.Metric{Name: "tpmC", Doc: "a kind's own tpmC", Kind: measure.Rate, IntervalUnit: measure.PerSecond, TotalUnit: measure.PerSecond, Better: measure.Higher,
		Interval: func(*measure.Interval) float64 { return 1 }, Total: func(*measure.Total) float64 { return 1 }}
	described, err := Load(writeOldFolder(t, func(float64) float64 { return 1 }, []measure.Metric{own}))
	if err != nil {
		t.Fatal(err)
	}
	if d := described.Describe(SummaryCSV, "tpmC"); d.Unit != measure.PerSecond || d.Metric == nil || d.Metric.Doc != own.Doc {
		t.Errorf("run.json's own description was replaced: %+v", d)
	}
	if d := described.Describe(SummaryCSV, "efficiency"); d.Role == RoleMetric {
		t.Errorf("a folder that describes its metrics got an old description: efficiency is %+v", d)
	}
}
