package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A host stall, made real: quadrant itself is stopped (SIGSTOP) for 3 s in the middle of a
// measured workload, as a busy or frozen host stops a client. The interval that spans the
// stop is flagged on the console, in run.json and in log.txt, instead of averaging into a
// figure that reads "done".
func TestHostStallIsFlagged(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, plantest.Sandbox("stall", "", plantest.Prepare("oltp_point_select", 1, 1000)+`
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 1000}, duration: 8s}
`))
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	dir := waitRows(t, p, root, "db", 1, 2)
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out.String())
	}
	ri, err := results.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := ri.Iterations[0].Stall
	if st == nil || len(st.Gaps) == 0 || st.Gaps[0].ToS-st.Gaps[0].FromS < 2.5 {
		t.Fatalf("run.json: stall %+v, want a gap of about 3 s", st)
	}
	if out := p.out.String(); !strings.Contains(out, "STALLED: ") || !strings.Contains(out, "no interval of its own for") {
		t.Fatalf("the console does not flag the stalled iteration:\n%s", out)
	}
	// The report says it in its headline, and its over-time charts break across the stop.
	dom := chromiumDOM(t, filepath.Join(dir, results.ReportFile))
	if !strings.Contains(dom, `id="stalls"`) || !strings.Contains(dom, "no interval of its own for") {
		t.Errorf("the report's headline does not name the stalled iteration")
	}
	if !strings.Contains(dom, `data-gaps="1"`) {
		t.Errorf("no over-time chart draws the stop as a gap")
	}
}
