package verifyfolder

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

// rows has one fingerprint of every class, shuffled, and a second fine one captured more often.
func rows() []results.QueryRow {
	row := fixture.CheckRow
	fine := row("f1", "SELECT a FROM t WHERE id = ?", 5)
	plan := row("p1", "SELECT b FROM t WHERE k = ?", 50)
	plan.Plan = results.VerifyDifferent
	slowPlan := fixture.Timed(row("sp", "SELECT c FROM t ORDER BY d", 3), results.VerifySlower, 1, 9, 800, 700, 900)
	slowPlan.Plan = results.VerifyDifferent
	slow := fixture.Timed(row("s1", "SELECT COUNT(*) FROM t", 40), results.VerifySlower, 2, 3, 50, 20, 80)
	slowBig := fixture.Timed(row("s2", "SELECT MAX(a) FROM t", 40), results.VerifySlower, 2, 6, 200, 150, 250)
	errs := row("e1", "SELECT nope FROM t", 2)
	errs.Results, errs.Errors = results.VerifyDifferent, map[int]int64{1054: 2}
	diff := row("d1", "SELECT SUM(price) FROM orders", 1)
	diff.Results = results.VerifyDifferent
	// failing alike on both sides is not a risk of moving
	alike := row("a1", "SELECT * FROM gone", 9)
	alike.Results, alike.BaseErrors, alike.Errors = results.VerifyError, map[int]int64{1146: 1}, map[int]int64{1146: 1}
	faster := fixture.Timed(row("x1", "SELECT 1", 100), results.VerifyFaster, 2, 1, -50, -60, -40)
	return []results.QueryRow{fine, slow, plan, faster, errs, alike, slowBig, slowPlan, diff}
}

func TestRankPutsTheRiskiestFirst(t *testing.T) {
	var got []string
	for _, r := range Rank(rows()) {
		got = append(got, r.FingerprintID+":"+r.Class.String())
	}
	want := []string{"d1:different results", "e1:errors only on the checked server", "sp:plan changed, slower",
		// the same count: the larger slowdown first
		"s2:slower", "s1:slower", "p1:plan changed",
		// the rest by count
		"x1:same", "a1:same", "f1:same"}
	if !slices.Equal(got, want) {
		t.Errorf("ranked\n%v\nwant\n%v", got, want)
	}
}

func TestVerdictSentence(t *testing.T) {
	same := fixture.CheckRow("f1", "SELECT 1", 1)
	for _, c := range []struct {
		rows []results.QueryRow
		want string
	}{
		{rows(), "1 of 9 fingerprints returns different results, 1 fails only on new, 2 changed plan, 1 of them slower, 2 more slower with the same plan, 1 faster"},
		{[]results.QueryRow{same, same}, "all 2 fingerprints return the same results with the same plan"},
		{[]results.QueryRow{same}, "the one fingerprint returns the same results with the same plan"},
		{rows()[1:3], "none of 2 fingerprints returns different results, 1 changed plan, 1 more slower with the same plan"},
		{nil, "no fingerprint was checked on new"},
	} {
		if got := Verdict(c.rows, "new"); got != c.want {
			t.Errorf("verdict\n%s\nwant\n%s", got, c.want)
		}
	}
	// rows of another compared target do not count
	other := rows()
	for i := range other {
		other[i].Target = "new2"
	}
	if got := Verdict(append(other, same), "new"); got != "the one fingerprint returns the same results with the same plan" {
		t.Errorf("verdict of new counts new2's rows: %s", got)
	}
}

func TestFirstDifferenceIsTheCellShown(t *testing.T) {
	s := func(v string) *string { return &v }
	d := results.QueryDetail{BaseRows: [][]*string{{s("1"), s("a")}, {s("2"), s("12.50")}}, Rows: [][]*string{{s("1"), s("a")}, {s("2"), s("12.5000")}}}
	if r, c, ok := FirstDifference(d); !ok || r != 1 || c != 1 {
		t.Errorf("first difference at %d,%d (%v), want row 1 column 1", r, c, ok)
	}
	d.Rows[1][1] = nil // NULL differs from a value
	if r, c, ok := FirstDifference(d); !ok || r != 1 || c != 1 {
		t.Errorf("NULL: first difference at %d,%d (%v), want row 1 column 1", r, c, ok)
	}
	d.Rows = d.Rows[:1] // a row on one side only
	if r, c, ok := FirstDifference(d); !ok || r != 1 || c != -1 {
		t.Errorf("missing row: first difference at %d,%d (%v), want row 1, no column", r, c, ok)
	}
	if _, _, ok := FirstDifference(results.QueryDetail{BaseRows: d.Rows, Rows: d.Rows}); ok {
		t.Error("equal rows differ")
	}
}

// A folder written before query-details.jsonl and the latency columns reads, and says what
// it lacks.
func TestLoadOlderFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	diff := fixture.CheckRow("d1", "SELECT 1", 1)
	diff.Results = results.VerifyDifferent
	fixture.Check(t, dir, []string{"base", "new"}, []results.QueryRow{diff}, nil)
	f, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Rows) != 1 || len(f.Details) != 0 || f.Base() != "base" || !slices.Equal(f.Compared(), []string{"new"}) {
		t.Fatalf("loaded %+v", f)
	}
	notes := strings.Join(f.Notes, "\n")
	if !strings.Contains(notes, "no "+results.QueryDetailsFile) || !strings.Contains(notes, "no latency was measured") {
		t.Errorf("notes do not say what the folder lacks:\n%s", notes)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is not a verify folder") {
		t.Errorf("a folder without queries.csv: %v", err)
	}
}

// Two checks of the same server, before and after a fix: one fingerprint fixed, one newly
// different, one newly slower, one unchanged.
func TestCompareTwoChecks(t *testing.T) {
	row := fixture.CheckRow
	fixedBefore := row("fx", "SELECT SUM(price) FROM orders", 10)
	fixedBefore.Results = results.VerifyDifferent
	unchanged := row("un", "SELECT a FROM t", 3)
	broke := row("nd", "SELECT b FROM t WHERE x < ? & y", 4)
	slow := fixture.Timed(row("sl", "SELECT COUNT(*) FROM t", 7), results.VerifySame, 2, 2.1, 5, -3, 12)
	dirA, dirB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	fixture.Check(t, dirA, []string{"base", "new"}, []results.QueryRow{fixedBefore, unchanged, broke, slow}, nil)
	brokeAfter := broke
	brokeAfter.Results, brokeAfter.Differences = results.VerifyDifferent, "row checksum differs, rows 3 → 3"
	slowAfter := fixture.Timed(slow, results.VerifySlower, 2, 5, 150, 120, 180)
	fixture.Check(t, dirB, []string{"base", "new"}, []results.QueryRow{row("fx", "SELECT SUM(price) FROM orders", 10), unchanged, brokeAfter, slowAfter}, nil)
	a, err := Load(dirA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(dirB)
	if err != nil {
		t.Fatal(err)
	}
	c := Compare(a, b)
	var got []string
	for _, ch := range c.Changes {
		got = append(got, ch.FingerprintID+":"+ch.Kind)
	}
	if want := []string{"nd:" + NewlyDifferent, "sl:" + NewlySlower, "fx:" + Fixed}; !slices.Equal(got, want) || c.Unchanged != 1 {
		t.Errorf("changes %v (%d unchanged), want %v and 1", got, c.Unchanged, want)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"check 1: " + dirA, "new vs base: 1 of 4 fingerprints returns different results",
		"newly different  nd", "same, plan same, slower (+150.0%)", "fixed", "3 changed, 1 the same in both checks."} {
		if !strings.Contains(out, want) {
			t.Errorf("compare text lacks %q:\n%s", want, out)
		}
	}

	// Two servers checked against the same base line up by fingerprint alone.
	dirC := filepath.Join(t.TempDir(), "c")
	other := brokeAfter
	other.Target = "new2"
	fixture.Check(t, dirC, []string{"base", "new2"}, []results.QueryRow{other}, nil)
	cf, err := Load(dirC)
	if err != nil {
		t.Fatal(err)
	}
	c = Compare(a, cf)
	if len(c.Changes) != 4 || c.Changes[0].Kind != NewlyDifferent || c.Changes[0].Target != "new → new2" {
		t.Errorf("two servers against one base: %+v", c.Changes)
	}
}

func TestChangeKinds(t *testing.T) {
	row := func(edit func(*results.QueryRow)) *results.QueryRow {
		r := fixture.CheckRow("q1", "SELECT 1", 1)
		if edit != nil {
			edit(&r)
		}
		return &r
	}
	same := row(nil)
	diff := row(func(r *results.QueryRow) { r.Results = results.VerifyDifferent })
	fails := row(func(r *results.QueryRow) { r.Results, r.Errors = results.VerifyDifferent, map[int]int64{1054: 1} })
	slow := row(func(r *results.QueryRow) { *r = fixture.Timed(*r, results.VerifySlower, 1, 3, 200, 150, 250) })
	timedSame := row(func(r *results.QueryRow) { *r = fixture.Timed(*r, results.VerifySame, 1, 1, 0, -5, 5) })
	faster := row(func(r *results.QueryRow) { *r = fixture.Timed(*r, results.VerifyFaster, 2, 1, -50, -60, -40) })
	plan := row(func(r *results.QueryRow) { r.Plan = results.VerifyDifferent })
	for _, c := range []struct {
		name          string
		before, after *results.QueryRow
		want          string
	}{
		{"same", same, same, ""},
		{"newly different", same, diff, NewlyDifferent},
		{"newly failing", plan, fails, NewlyFailing},
		{"still different", diff, fails, StillDifferent},
		{"fixed", fails, same, Fixed},
		{"newly slower", timedSame, slow, NewlySlower},
		{"plan newly", same, plan, PlanNewly},
		{"no longer slower", slow, timedSame, NoLongerSlower},
		{"plan back", plan, same, PlanBack},
		{"faster to same", faster, timedSame, LatencyChanged},
		{"timed only once is no change", same, timedSame, ""},
		{"only before", same, nil, OnlyFirst},
		{"only after", nil, same, OnlySecond},
	} {
		if got := kindOf(c.before, c.after); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
