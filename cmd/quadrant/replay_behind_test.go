package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// behindCapture is a capture of two sessions. Session 7's statements were captured 10 ms
// apart, but each sleeps 300 ms: replayed at timing: original, the 5th starts more than a
// second after it is due, whatever the host. Session 8's statements read a table the target
// has not, which the capture ran without error.
func behindCapture(t *testing.T, dir string) {
	t.Helper()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).UnixMicro()
	lines := []string{`{"qcap":1,"created":"2026-12-01T10:00:00Z","timed":true}`}
	for i := range 5 {
		lines = append(lines, fmt.Sprintf(`{"session":7,"start_us":%d,"duration_us":300000,"rows_sent":1,"error":0,"text":"SELECT SLEEP(0.3)"}`, base+int64(i)*10000))
	}
	for i := range 5 {
		lines = append(lines, fmt.Sprintf(`{"session":8,"start_us":%d,"duration_us":100,"rows_sent":0,"error":0,"text":"SELECT * FROM mysql.no_such_table WHERE id = %d"}`, base+int64(i)*1000, i))
	}
	if err := os.WriteFile(filepath.Join(dir, "tiny.qcap"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A replay that truly falls behind its schedule says so while it runs (a warning on the
// console), at the iteration's end (its console line, run.json) and in the report's
// headline, not only in replay.csv's lag columns. The same run's statements that fail on
// the target though the capture ran them without error are logged with their captured
// session, their position in it and the capture's line: the first three of a fingerprint,
// then how many.
func TestReplayBehindItsScheduleIsSaidAndFailuresNamed(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, plantest.Sandbox("behind", "", `
iteration:
  workload: {replay: {file: tiny.qcap, timing: original}}
`))
	behindCapture(t, filepath.Dir(plan))
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out.String())
	}
	out := p.out.String()
	for _, want := range []string{"warning: iteration 1: falling behind its schedule at ", "BEHIND SCHEDULE: fell behind its schedule: events started "} {
		if !strings.Contains(out, want) {
			t.Errorf("the console does not say %q:\n%s", want, out)
		}
	}
	dir := findRunDir(t, root)
	ri, err := results.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b := ri.Iterations[0].Behind; b == nil || b.LagP99Ms < 800 || b.LagMaxMs < 800 || b.LimitMs != 100 {
		t.Errorf("run.json: behind %+v, want a lag p99 and max over 800 ms against a limit of 100 ms", b)
	}
	log, err := os.ReadFile(filepath.Join(dir, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		want := fmt.Sprintf("replay tiny.qcap:%d: captured session 8, statement %d: error 1146 where the capture succeeded", 6+i, i)
		if !strings.Contains(string(log), want) {
			t.Errorf("log.txt does not name the failing statement: %q:\n%s", want, log)
		}
	}
	if strings.Contains(string(log), "statement 4: error 1146") {
		t.Errorf("log.txt names more than three failures of one fingerprint:\n%s", log)
	}
	if !strings.Contains(string(log), "5 statements failed unlike the capture, 3 of them logged above") {
		t.Errorf("log.txt does not count the failures past the first three:\n%s", log)
	}
	dom := chromiumDOM(t, filepath.Join(dir, results.ReportFile))
	if !strings.Contains(dom, `id="behind"`) || !strings.Contains(dom, "iteration 1: fell behind its schedule: events started") {
		t.Errorf("the report's headline does not say the replay fell behind its schedule")
	}
}
