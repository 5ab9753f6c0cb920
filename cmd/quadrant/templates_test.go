package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
)

// Every experiment of issue 11's list has a template, and an example that extends it.
func TestTemplatesOfTheExperiments(t *testing.T) {
	code, out, _ := runCLI("templates")
	if code != exitOK {
		t.Fatalf("templates: exit %d", code)
	}
	for name, example := range map[string]string{
		"tpcc": "tpcc", "replica-catchup": "replica-catchup", "replica-attach": "nfs-replica-attach", "cold-vs-warm": "cold-vs-warm",
	} {
		if !strings.Contains(out, "\n"+name+" ") && !strings.HasPrefix(out, name+" ") {
			t.Errorf("quadrant templates does not list %s:\n%s", name, out)
		}
		src, err := os.ReadFile("../../examples/" + example + ".yaml")
		if err != nil || !strings.Contains(string(src), "\nextends: builtin:"+name+"\n") {
			t.Errorf("examples/%s.yaml does not extend builtin:%s (%v)", example, name, err)
		}
	}
}

// builtin:upgrade-check as it is, on its two sandboxes: the verify step finds the index new
// lacks (the lookup by k changes plan) and the same rows for every fingerprint, and explain
// says what the step does.
func TestUpgradeCheckTemplateRuns(t *testing.T) {
	sandboxtest.SkipShort(t)
	// as a user starts: init writes the plan where its capture goes, not into the repository
	dir := t.TempDir()
	code, src, errOut := runCLI("init", "--template", "upgrade-check")
	if code != exitOK {
		t.Fatalf("init: exit %d %s", code, errOut)
	}
	plan := filepath.Join(dir, "upgrade-check.yaml")
	if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", plan)
	if code != exitOK || !strings.Contains(out, "verify: the reads of "+filepath.Join(dir, "traffic.qcap")+" run on old (the base) and new, at most 20 statements per fingerprint (seed 1)") {
		t.Errorf("explain: exit %d %s\n%s", code, errOut, out)
	}
	root := filepath.Join(dir, "results")
	p := start(t, nil, "run", plan, "--out", root)
	if code := p.wait(t, 5*time.Minute); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, p.out.String())
	}
	rows, err := results.ReadQueries(findRunDir(t, root))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows in queries.csv, want 4 (the capture's four fingerprints): %+v", len(rows), rows)
	}
	// new differs from old by a dropped index and a setting: exactly the lookup by k (plan,
	// slower) and the division (rows) are flagged, each for its reason; the others are the
	// same. Their latency is not asserted: two servers on one loaded host can differ by more
	// than the noise for no fault of theirs, and the verdict rule has its own test.
	for _, r := range rows {
		t.Logf("%s | %d | %s | %s | %s | %s %.3g→%.3g ms", r.Fingerprint, r.Count, r.Results, r.Plan, r.Differences, r.Latency, r.BaseP95, r.P95)
		wantResults, wantPlan := results.VerifySame, results.VerifySame
		switch {
		case strings.Contains(r.Fingerprint, "where k="):
			wantPlan = results.VerifyDifferent
			if !strings.Contains(r.Differences, "sbtest1: ref on k_1 → ALL") {
				t.Errorf("lookup by k: differences %q; want sbtest1: ref on k_1 → ALL", r.Differences)
			}
			if r.Latency != results.VerifySlower {
				t.Errorf("lookup by k: latency %s (%+.0f%%, %.0f..%.0f); want slower: a scan of 10000 rows against an index lookup", r.Latency, r.Change, r.ChangeLo, r.ChangeHi)
			}
		case strings.Contains(r.Fingerprint, "k/?"), strings.Contains(r.Fingerprint, "k / ?"):
			wantResults = results.VerifyDifferent
			if !strings.Contains(r.Differences, "row 1, column 2") {
				t.Errorf("division: differences %q; want the first differing cell, row 1, column 2", r.Differences)
			}
		}
		if r.Results != wantResults || r.Plan != wantPlan {
			t.Errorf("%s: results %s, plan %s; want %s, %s", r.Fingerprint, r.Results, r.Plan, wantResults, wantPlan)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "*", results.CheckPage))
	if len(dirs) != 1 {
		t.Errorf("the run's folder has no %s beside its report.html", results.CheckPage)
	}
}
