package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results"
)

// writeCheck writes a verify folder as quadrant verify does, with target base and new, one
// queries.csv row per fingerprint: the same everywhere but for different, whose results differ.
func writeCheck(t *testing.T, dir string, different ...string) {
	t.Helper()
	w, err := results.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if err := w.WriteRunInfo(&results.RunInfo{Tool: "quadrant", Plan: "verify", PlanFile: "traffic.qcap", Start: start, Status: results.StatusDone,
		Targets: []results.TargetInfo{{Name: "base", Kind: "dsn"}, {Name: "new", Kind: "dsn"}}}); err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	var rows []results.QueryRow
	for _, id := range []string{"fixed0000001", "broken000002", "same00000003"} {
		r := results.QueryRow{FingerprintID: id, Fingerprint: "SELECT a FROM t WHERE b < ? AND c = '" + id + "'", Target: "new", Count: 3,
			Results: results.VerifySame, Plan: results.VerifySame, Latency: results.VerifyNoLatency, BaseP95: nan, P95: nan, Change: nan, ChangeLo: nan, ChangeHi: nan}
		for _, d := range different {
			if d == id {
				r.Results, r.Differences = results.VerifyDifferent, "row checksum differs, rows 3 → 3"
			}
		}
		rows = append(rows, r)
	}
	if err := w.AppendQueries(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// Two checks of one server, before and after a fix: compare says per fingerprint what
// changed, in text and as a page; `quadrant report` draws each check's own page.
func TestCompareTwoVerifyFolders(t *testing.T) {
	before, after := filepath.Join(t.TempDir(), "verify-before"), filepath.Join(t.TempDir(), "verify-after")
	writeCheck(t, before, "fixed0000001")
	writeCheck(t, after, "broken000002")
	page := filepath.Join(t.TempDir(), "checks.html")
	var out, errOut bytes.Buffer
	if code := runCompare([]string{before, after, "--out", page}, &out, &errOut); code != exitOK {
		t.Fatalf("compare exit %d: %s", code, errOut.String())
	}
	text := out.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`check 1: .*verify-before`),
		regexp.MustCompile(`new vs base: 1 of 3 fingerprints returns different results`),
		regexp.MustCompile(`(?m)^newly different +broken000002 +new +same, plan same +different, plan same`),
		regexp.MustCompile(`(?m)^fixed +fixed0000001 +new +different, plan same +same, plan same`),
		regexp.MustCompile(`2 changed, 1 the same in both checks`),
	} {
		if !want.MatchString(text) {
			t.Errorf("compare output lacks %s:\n%s", want.String(), text)
		}
	}
	dom := chromiumDOM(t, page)
	if m := regexp.MustCompile(`data-errors="(\d+)"`).FindStringSubmatch(dom); m == nil || m[1] != "0" {
		t.Fatalf("the comparison page's script failed or did not run:\n%.2000s", dom)
	}
	for _, want := range []string{`<tr class="change-worse"><td>newly different</td><td>broken000002</td>`,
		`<tr class="change-better"><td>fixed</td><td>fixed0000001</td>`, "b &lt; ?"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the comparison page lacks %q", want)
		}
	}

	out.Reset()
	if code := runReport([]string{after}, &out, &errOut); code != exitOK || strings.TrimSpace(out.String()) != filepath.Join(after, results.ReportFile) {
		t.Fatalf("report of a verify folder: exit %d, wrote %q: %s", code, out.String(), errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(after, results.ReportFile))
	if err != nil || !strings.Contains(string(b), "1 of 3 fingerprints returns different results") {
		t.Errorf("report.html of a verify folder lacks its verdict: %v", err)
	}
}

// A verify folder compared with a run is an error naming both; so are three verify folders.
func TestCompareVerifyFolderWithRunIsAnError(t *testing.T) {
	check := filepath.Join(t.TempDir(), "verify-1")
	writeCheck(t, check)
	run := t.TempDir()
	os.WriteFile(filepath.Join(run, results.RunFile), []byte(`{"tool": "quadrant", "plan": "p", "status": "done"}`), 0o644)
	var out, errOut bytes.Buffer
	code := runCompare([]string{run, check}, &out, &errOut)
	want := check + " is a verify folder (it has queries.csv) and " + run + " is not: both must be verify folders, or both runs"
	if code != exitInvalid || !strings.Contains(errOut.String(), want) {
		t.Errorf("compare of a run and a verify folder: exit %d, %q; want 2 and %q", code, errOut.String(), want)
	}
	errOut.Reset()
	if code := runCompare([]string{check, check, check}, &out, &errOut); code != exitInvalid || !strings.Contains(errOut.String(), "give two verify folders, not 3") {
		t.Errorf("compare of three verify folders: exit %d, %q", code, errOut.String())
	}
}
