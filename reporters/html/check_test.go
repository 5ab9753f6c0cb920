package html

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/reporters/verifyfolder"
	"github.com/quadrant-bench/quadrant/results"
)

// hostile is a statement that would break a page that did not escape it.
const hostile = `SELECT '</script><b id="injected">x</b>' AS s, a & b FROM t WHERE c < 5`

func checkFolder(t *testing.T) string {
	t.Helper()
	row := fixture.CheckRow
	diff := row("d1", "SELECT SUM(price) FROM orders WHERE customer = ?", 12)
	diff.Results, diff.Differences = results.VerifyDifferent, "row checksum differs, rows 2 → 2"
	diff.Example = hostile
	errs := row("e1", "SELECT nope FROM t", 2)
	errs.Results, errs.Errors, errs.Differences = results.VerifyDifferent, map[int]int64{1054: 2}, "error ok → 1054"
	slowPlan := fixture.Timed(row("sp", "SELECT * FROM orders WHERE customer = ? ORDER BY placed", 30), results.VerifySlower, 1.5, 12.25, 716.7, 610.5, 802)
	slowPlan.Plan, slowPlan.Differences = results.VerifyDifferent, "orders: ref on idx_customer → ALL; filesort"
	plan := row("p1", "SELECT id FROM t WHERE k = ?", 5)
	plan.Plan = results.VerifyDifferent
	rows := []results.QueryRow{row("f1", "SELECT 1", 100), plan, slowPlan, errs, row("f2", "SELECT a FROM t", 3), diff}
	s := func(v string) *string { return &v }
	details := []results.QueryDetail{
		{FingerprintID: "d1", Target: "new", BasePlan: []string{"orders: ref on idx_customer, rows ~12"}, Plan: []string{"orders: ref on idx_customer, rows ~12"},
			Statement: hostile, Columns: []string{"customer", "total"},
			BaseRows: [][]*string{{s("7"), s("12.50")}, {s("8"), nil}}, Rows: [][]*string{{s("7"), s("12.5000")}, {s("8"), nil}},
			FirstDifference: "row 1, column 2: 12.50 → 12.5000"},
		{FingerprintID: "sp", Target: "new", BasePlan: []string{"orders: ref on idx_customer, rows ~30"}, Plan: []string{"orders: ALL, rows ~90000", "filesort"}},
	}
	dir := filepath.Join(t.TempDir(), "verify-1")
	fixture.Check(t, dir, []string{"base", "new"}, rows, details)
	return dir
}

func TestCheckReportRendersInChromium(t *testing.T) {
	dir := checkFolder(t)
	f, err := verifyfolder.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteCheckReport(f, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	verdict := "1 of 6 fingerprints returns different results, 1 fails only on new, 2 changed plan, 1 of them slower"
	headline := strings.Index(dom, `id="verdict"`)
	if headline < 0 || !strings.Contains(dom[headline:], verdict) || headline > strings.Index(dom, "Fingerprints by risk") {
		t.Fatalf("the page does not start with the verdict %q:\n%.3000s", verdict, dom)
	}
	// ranked: different results, new errors, slower plan, plan changed
	last := 0
	for _, id := range []string{"d1 on new", "e1 on new", "sp on new", "p1 on new"} {
		i := strings.Index(dom, id)
		if i < last {
			t.Fatalf("%q is not ranked after the one before it (at %d, before %d)", id, i, last)
		}
		last = i
	}
	for _, want := range []string{
		"Fingerprints by risk (4)", "#3 plan changed, slower",
		"1.5 → 12.25 ms p95, +716.7% (95% CI +610.5% to +802.0%)",
		// both plans, side by side, the changed lines marked
		"<h4>plan on base</h4>", "<h4>plan on new</h4>", `<span class="">orders: ref on idx_customer, rows ~12</span>`,
		`<span class="changed">orders: ALL, rows ~90000</span>`, `<span class="changed">filesort</span>`,
		// the differing rows, the first difference marked on both sides
		"<h4>rows on base</h4>", "<h4>rows on new</h4>", `<td class="first-diff">12.50</td>`, `<td class="first-diff">12.5000</td>`,
		`<td class="null">NULL</td>`, "first difference: row 1, column 2: 12.50 → 12.5000",
		// the rest, collapsed
		`<details id="same">`, "Same rows, same plan, not slower (2)",
		// a statement is text, never markup
		"&lt;/script&gt;&lt;b id=\"injected\"&gt;x&lt;/b&gt;' AS s, a &amp; b FROM t WHERE c &lt; 5",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(dom, `<b id="injected">`) {
		t.Error("a statement's markup made it into the page")
	}
	if os.Getenv("QUADRANT_SCREENSHOT") != "" {
		screenshot(t, path, os.Getenv("QUADRANT_SCREENSHOT"))
	}
}

// A folder written before query-details.jsonl and the latency columns renders, and says so.
func TestOlderCheckReportRenders(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "old")
	diff := fixture.CheckRow("d1", "SELECT 1 < 2", 1)
	diff.Results = results.VerifyDifferent
	fixture.Check(t, dir, []string{"base", "new"}, []results.QueryRow{diff, fixture.CheckRow("f1", "SELECT 2", 1)}, nil)
	// queries.csv as verify wrote it before the latency columns
	old := []string{results.ColFingerprintID, results.ColFingerprint, results.ColTarget, results.ColCount, results.ColResults, results.ColPlan,
		results.ColBaseErrors, results.ColErrors, results.ColExample, results.ColDifferences}
	out, err := os.Create(filepath.Join(dir, results.QueriesFile))
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	w.Write(old)
	w.Write([]string{"d1", "SELECT 1 < 2", "new", "1", results.VerifyDifferent, results.VerifySame, "", "", "SELECT 1 < 2", "rows 1 → 0"})
	w.Write([]string{"f1", "SELECT 2", "new", "1", results.VerifySame, results.VerifySame, "", "", "SELECT 2", ""})
	w.Flush()
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := verifyfolder.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteCheckReport(f, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	for _, want := range []string{"1 of 2 fingerprints returns different results", "no " + results.QueryDetailsFile, "no latency was measured",
		"#1 different results", "SELECT 1 &lt; 2", "rows 1 → 0",
		"not timed on both sides"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the older folder's page lacks %q", want)
		}
	}
	if regexp.MustCompile(`<h4>(plan|rows) on`).MatchString(dom) {
		t.Error("the page shows plans or rows the folder does not have")
	}
}

// Two targets checked against one base: one verdict each, named, and the ranked rows of both.
func TestCheckPageOfTwoTargets(t *testing.T) {
	a := fixture.CheckRow("d1", "SELECT 1", 1)
	a.Results = results.VerifyDifferent
	b := fixture.CheckRow("d1", "SELECT 1", 1)
	b.Target = "new2"
	dir := filepath.Join(t.TempDir(), "v")
	fixture.Check(t, dir, []string{"base", "new", "new2"}, []results.QueryRow{a, b}, nil)
	f, err := verifyfolder.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := checkPage(f)
	want := []string{"new vs base: 1 of 1 fingerprint returns different results", "new2 vs base: the one fingerprint returns the same results with the same plan"}
	if strings.Join(d.Verdicts, "\n") != strings.Join(want, "\n") || d.Title != "quadrant verify: base → new, new2" {
		t.Errorf("verdicts %q, title %q; want %q", d.Verdicts, d.Title, want)
	}
	if len(d.Ranked) != 1 || len(d.Rest.Rows) != 1 || d.Rest.Rows[0][1] != "new2" {
		t.Errorf("ranked %+v, rest %v", d.Ranked, d.Rest.Rows)
	}
}
