package reporters

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

func TestRebuildWritesWhatTheRunAsked(t *testing.T) {
	for _, tc := range []struct {
		opts results.ReportOptions
		want []string
	}{
		{results.ReportOptions{}, []string{"report.html", "summary.json"}},
		{results.ReportOptions{Formats: []string{"csv"}, PerVariable: true},
			[]string{"variables/repl.lag_s.csv", "variables/status.Com_select.csv", "variables/status.Threads_running.csv"}},
		{results.ReportOptions{Formats: []string{"html"}, PerVariable: true},
			[]string{"report.html", "variables/repl.lag_s.html", "variables/status.Com_select.html", "variables/status.Threads_running.html"}},
	} {
		dir := t.TempDir()
		fixture.Folder(t, dir, 1)
		ri, _ := results.ReadRunInfo(dir)
		ri.Report = tc.opts
		results.WriteJSON(filepath.Join(dir, results.RunFile), ri)
		paths, err := Rebuild(dir, "test")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range paths {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, rel)
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s reported but not written", p)
			}
		}
		sort.Strings(got)
		if len(got) != len(tc.want) {
			t.Fatalf("%+v: wrote %v, want %v", tc.opts, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("%+v: wrote %v, want %v", tc.opts, got, tc.want)
			}
		}
	}
}

func TestSummaryJSONKeepsNumbersTyped(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	if _, err := Rebuild(dir, "test"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	var out struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Rows) != 2 || out.Rows[1]["tps"] != 4000.0 || out.Rows[1]["status"] != "failed" {
		t.Fatalf("rows %v", out.Rows)
	}
}

// A folder written by quadrant before package results owned the format (868e43d) still
// rebuilds, and its error.CODE column is no watched variable (it once got a page).
func TestFolderWrittenBeforeTheFormatOwner(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/v1-folder")); err != nil {
		t.Fatal(err)
	}
	paths, err := Rebuild(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		got = append(got, rel)
	}
	sort.Strings(got)
	want := []string{"report.html", "summary.json",
		"variables/status.Com_insert.csv", "variables/status.Com_insert.html", "variables/status.Com_select.csv",
		"variables/status.Com_select.html", "variables/status.Threads_running.csv", "variables/status.Threads_running.html"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("wrote %v\nwant %v", got, want)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := run.Summary.Float(1, "tps"); !ok || v != 11380.3 {
		t.Fatalf("summary tps of iteration 2: %v %v", v, ok)
	}
	h, err := results.ReadHistograms(dir, "primary", 2, "latency")
	if err != nil || h.Count() != 34143 {
		t.Fatalf("histogram of iteration 2: %v, %v", h, err)
	}
	c := compare.Compare([]*results.Run{run, run}, nil)
	if len(c.Cells) != 2 || c.Cells[1].Values["tps"][1] != 11380.3 || c.Cells[1].Values["errors"][0] != 11482 {
		t.Fatalf("compare with itself: %+v", c.Cells)
	}
}
