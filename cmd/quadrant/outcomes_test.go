package main

import (
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// quadrant report DIR of a drill plan's folder leads with what the drills lost, one sentence
// per pair of modes, from run.json's description of the step's records (reporters/outcomes).
func TestReportSaysWhatTheDrillsLost(t *testing.T) {
	dir := t.TempDir()
	w, err := results.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	info := &results.RunInfo{Tool: "quadrant", Version: "test", Plan: "drill", Axes: []string{"mode"}, Start: start, Status: results.StatusDone,
		Targets: []results.TargetInfo{{Name: "db", Kind: "sandbox"}}}
	info.AddMetrics([]measure.Metric{{Name: "drill_lost", Kind: measure.Gauge, TotalUnit: measure.Count, Better: measure.Lower, Outcome: true, Loss: "lost acknowledged commits"}})
	lost := map[string][]float64{"async": {12, 40, 0}, "semisync": {0, 0, 0}}
	idx := 0
	for _, mode := range []string{"async", "semisync"} {
		for r, v := range lost[mode] {
			idx++
			it := results.IterationInfo{Index: idx, Repeat: r + 1, Matrix: []results.Field{{Name: "mode", Value: mode}}, Status: results.StatusDone, Start: start}
			info.Iterations = append(info.Iterations, it)
			total := &measure.Total{Start: start, End: start.Add(time.Second)}
			total.Events, total.Latency = 100, measure.NewHistogram()
			total.Summarize()
			if err := w.AppendSummary(&results.SummaryRow{Iteration: idx, Repeat: r + 1, Matrix: it.Matrix, Target: "db", Status: it.Status,
				Duration: time.Second, Total: total, Records: []measure.Value{{Name: "drill_lost", Value: v}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.WriteRunInfo(info); err != nil {
		t.Fatal(err)
	}
	w.Close()
	code, stdout, stderr := runCLI("report", dir)
	if code != 0 {
		t.Fatalf("report: exit %d:\n%s%s", code, stdout, stderr)
	}
	want := "Losses per cell:\n  mode=async lost acknowledged commits in 2 of 3 repeats, 12-40; semisync in 0 of 3 repeats\n"
	if !strings.Contains(stdout, want) {
		t.Errorf("report's console lacks\n%s\nin\n%s", want, stdout)
	}
}
