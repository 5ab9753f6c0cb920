package main

import (
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// quadrant report DIR of a real 2-axis run with repeats prints, on the console, one effect
// sentence per axis value pair and combination of the other axis, each with its interval:
// the sentences reporters/axiseffects computes (whose agreement with compare of the same cells
// is TestComputeMatchesCompareByHand's).
func TestReportPrintsEachAxisEffect(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MariaDB server binary (skipped under -short)")
	}
	plan := writePlan(t, plantest.Sandbox("effects", "", plantest.Prepare("oltp_point_select", 1, 1000)+`
matrix:
  threads: [1, 2]
  mode: [plain, same]
repeat: 2
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 1000}, threads: "${{ matrix.threads }}", duration: 1s}
`))
	root := t.TempDir()
	if p := start(t, nil, "run", plan, "--out", root); p.wait(t, 3*time.Minute) != 0 {
		t.Fatalf("run:\n%s", p.out.String())
	}
	dir := findRunDir(t, root)
	code, stdout, stderr := runCLI("report", dir)
	if code != 0 {
		t.Fatalf("report: exit %d:\n%s%s", code, stdout, stderr)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := axiseffects.Compute(run)
	// threads 2 vs 1 at mode=plain and at mode=same; mode same vs plain at threads=1 and 2.
	if len(lines) != 4 {
		t.Fatalf("%d effect lines, want 4: %v", len(lines), lines)
	}
	for _, l := range lines {
		if s := l.Sentence(); !strings.Contains(stdout, s) || !strings.Contains(s, "CI") && !strings.Contains(s, "within noise") {
			t.Errorf("the console lacks %q, or it has no interval:\n%s", s, stdout)
		}
	}
}
