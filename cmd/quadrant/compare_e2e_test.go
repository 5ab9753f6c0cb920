package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
)

// rerunOut runs `quadrant rerun` of dir into a new root and returns its output and folder.
func rerunOut(t *testing.T, dir string, args ...string) (string, string) {
	t.Helper()
	root := t.TempDir()
	p := start(t, nil, append([]string{"rerun", dir, "--out", root}, args...)...)
	if code := p.wait(t, 5*time.Minute); code != 0 {
		t.Fatalf("rerun exit %d:\n%s", code, p.out.String())
	}
	return p.out.String(), findRunDir(t, root)
}

// settingsLine is the settings of target db the comparison's ranked differences list (not
// its storage, machines or load, which the host's state moves), one per line.
func settingsLine(out string) string {
	i := strings.Index(out, "What differed, run 2 vs run 1")
	if i < 0 {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(out[i:], "\n")[1:] {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		if strings.Contains(l, "target db: ") && !strings.Contains(l, " storage ") && !strings.Contains(l, " machine ") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return strings.Join(lines, "\n")
}

// A rerun of an unchanged folder is the same plan on a server with the same settings; the
// comparison says so and lists no per-instance paths or ids. With --set it names that one change.
func TestRerunEndsWithTheComparison(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, `
version: 1
name: same
vars: {bp: 64M}
targets:
  db: {sandbox: {config: {innodb_buffer_pool_size: "${{ vars.bp }}"}}}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 500}}
matrix:
  threads: [1, 2]
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 500}, threads: "${{ matrix.threads }}", duration: 1s}
`)
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	if code := p.wait(t, 5*time.Minute); code != 0 {
		t.Fatalf("run exit %d:\n%s", code, p.out.String())
	}
	published := findRunDir(t, root)

	out, rerun := rerunOut(t, published)
	if !strings.Contains(out, "ran again the plan of "+published) || strings.Contains(out, "different plan") {
		t.Errorf("the rerun of an unchanged folder is not reported as the same plan:\n%s", out)
	}
	if l := settingsLine(out); l != "" {
		t.Errorf("two sandboxes of one plan differ in settings: %s", l)
	}
	for _, want := range []string{"threads=1 @db", "verdict (run 2 vs run 1)", "comparison: " + filepath.Join(rerun, results.ComparisonPage)} {
		if !strings.Contains(out, want) {
			t.Errorf("rerun output lacks %q:\n%s", want, out)
		}
	}
	text, err := os.ReadFile(filepath.Join(rerun, results.ComparisonText))
	if err != nil || !strings.Contains(string(text), "ran again the plan of") {
		t.Errorf("comparison.txt in the new folder: %v\n%s", err, text)
	}
	dom := chromiumDOM(t, filepath.Join(rerun, results.ComparisonPage))
	if !strings.Contains(dom, `id="verdicts"`) {
		t.Errorf("comparison.html has no verdicts table")
	}

	out, _ = rerunOut(t, published, "--set", "bp=32M")
	if !strings.Contains(out, "(its command line: --set bp=32M): vars.bp: 64M -> 32M.") {
		t.Errorf("the --set is not named as the one change:\n%s", out)
	}
	if l := settingsLine(out); strings.Count(l, " -> ") != 1 || !strings.HasPrefix(l, "buffer pool and logs") || !strings.Contains(l, "target db: innodb_buffer_pool_size 67108864 -> 33554432") {
		t.Errorf("settings that differ should be the buffer pool alone: %s", l)
	}
}

// Two cells with repeat: 5. A folder against itself is within noise in every cell; a
// slowdown injected on one side (each transaction sleeps 5 ms) is "slower" with a 95%
// interval that excludes 0.
func TestVerdictsOverRepeats(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, `
version: 1
name: noise
vars: {pause: 0}
targets:
  db: {sandbox: {}}
matrix:
  threads: [1, 2]
repeat: 5
order: interleaved
iteration:
  workload:
    transactions:
      - name: nap
        statements: [{sql: "DO SLEEP(?)", args: ["vars.pause"]}]
    threads: "${{ matrix.threads }}"
    duration: 1s
`)
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	if code := p.wait(t, 5*time.Minute); code != 0 {
		t.Fatalf("run exit %d:\n%s", code, p.out.String())
	}
	base := findRunDir(t, root)
	ri, err := results.ReadRunInfo(base)
	if err != nil {
		t.Fatal(err)
	}
	if ri.Order == nil || ri.Order.Kind != "interleaved" {
		t.Errorf("run.json order: %+v", ri.Order)
	}
	for i, it := range ri.Iterations {
		// A B A B: the cell alternates, and the repeat counts each cell's runs in time
		if want := fmt.Sprintf("threads=%d", 1+i%2); len(it.Matrix) != 1 || "threads="+it.Matrix[0].Value != want || it.Repeat != 1+i/2 {
			t.Errorf("iteration %d: %v repeat %d, want %s repeat %d", it.Index, it.Matrix, it.Repeat, want, 1+i/2)
		}
	}

	self := start(t, nil, "compare", base, base)
	if code := self.wait(t, time.Minute); code != 0 {
		t.Fatalf("compare exit %d:\n%s", code, self.out.String())
	}
	rows := verdictLines(self.out.String())
	if want := 2 * len(compare.DefaultMetrics); len(rows) != want {
		t.Fatalf("want %d verdict lines (2 cells), got %d:\n%s", want, len(rows), self.out.String())
	}
	for _, l := range rows {
		if !strings.Contains(l, "within noise") && !strings.Contains(l, "the same (0 in both)") {
			t.Errorf("a folder against itself: %s", l)
		}
		if !strings.Contains(l, "n=5 cv ") {
			t.Errorf("no repeat count in %s", l)
		}
	}

	out, _ := rerunOut(t, base, "--set", "pause=0.005")
	for _, cell := range []string{"threads=1 @db", "threads=2 @db"} {
		for _, m := range []string{"tps", "lat_avg_ms"} {
			l := lineOf(out, cell, m)
			if !strings.Contains(l, "slower by ") || !strings.Contains(l, "(95% CI ") {
				t.Errorf("%s %s with a 5 ms sleep: %q\n%s", cell, m, l, out)
			}
		}
	}
}

func verdictLines(out string) []string {
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " @db ") {
			rows = append(rows, l)
		}
	}
	return rows
}

func lineOf(out, cell, metric string) string {
	for _, l := range verdictLines(out) {
		if f := strings.Fields(l); len(f) > 2 && strings.HasPrefix(l, cell) && f[2] == metric {
			return l
		}
	}
	return ""
}

// chromiumDOM renders a page headless, off the network, and returns the DOM after its
// scripts ran (as reporters/html's tests do).
func chromiumDOM(t *testing.T, page string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs Chromium (skipped under -short)")
	}
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is needed to test the HTML pages: apt-get install chromium (make test installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	abs, _ := filepath.Abs(page)
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=5000", "--dump-dom", "file://"+abs)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return out.String()
}

// A colleague's folder whose target is their server (a DSN) is rerun only on one's own:
// without --target the rerun stops before anything, naming the target and the flag, and
// leaves no folder. A rerun whose server cannot be reached compares nothing.
func TestRerunOfAColleaguesServerNeedsTarget(t *testing.T) {
	published := t.TempDir()
	os.WriteFile(filepath.Join(published, results.PlanFile), []byte(`version: 1
name: theirs
targets:
  primary: {dsn: "bench:***@tcp(db1.example:3306)/sbtest"}
  scratch: {sandbox: {}}
iteration:
  target: primary
  workload: {builtin: oltp_point_select, options: {table_size: 100}, duration: 1s}
`), 0o644)
	os.WriteFile(filepath.Join(published, results.RunFile), []byte(`{"tool": "quadrant", "plan": "theirs", "status": "done"}`), 0o644)

	root := t.TempDir()
	p := start(t, nil, "rerun", published, "--out", root)
	code := p.wait(t, time.Minute)
	out := p.out.String()
	if code != exitInvalid || !strings.Contains(out, "target primary is the colleague's server (a DSN: bench:***@tcp(db1.example:3306)/sbtest): give yours with --target primary=DSN") {
		t.Errorf("rerun without --target: exit %d, want 2 naming the target and --target:\n%s", code, out)
	}
	if strings.Contains(out, "scratch") || strings.Contains(out, "not comparable") || strings.Contains(out, "cannot connect") {
		t.Errorf("rerun without --target asked for the sandbox, compared or connected:\n%s", out)
	}
	if entries, _ := os.ReadDir(root); len(entries) > 0 {
		t.Errorf("rerun without --target left %v under %s", entries, root)
	}

	// Pointed at a server that is not there: the run fails at its start, and there is
	// nothing to compare.
	p = start(t, nil, "rerun", published, "--out", root, "--target", "primary=root:x@tcp(127.0.0.1:1)/")
	code = p.wait(t, 2*time.Minute)
	out = p.out.String()
	if code != exitFailed || !strings.Contains(out, "nothing was measured") || strings.Contains(out, "not comparable") || strings.Contains(out, "Compared with") {
		t.Errorf("rerun on an unreachable server: exit %d, want 3 and no comparison:\n%s", code, out)
	}
	// It measured nothing: no folder is left to clutter results/.
	if entries, _ := os.ReadDir(root); len(entries) > 0 {
		t.Errorf("a rerun that measured nothing left %v under %s", entries, root)
	}
}
