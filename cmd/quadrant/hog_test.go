package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
)

// A no-change gate run with a CPU hog started halfway through: the baseline and the gated
// run are the same plan on the same server, two cells whose repeats alternate; once the
// gated run is in its fourth iteration of six, busy loops in child processes (two per CPU)
// compete with it until it ends. The gate (the default rules, tps < -2.5%, p95_ms > +5%)
// passes or says it cannot tell, never fails, and no verdict claims a change: the host's load,
// recorded per iteration, explains it. Nothing is timed; the hog is killed at the end.
func TestGateWithACPUHogHalfwayDoesNotFail(t *testing.T) {
	target := pointSelectServer(t)
	plan := writePlan(t, pointSelectPlan("matrix:\n  threads: [1, 2]\nrepeat: 3\n", `"${{ matrix.threads }}"`))
	base := t.TempDir()
	if p := start(t, nil, "run", plan, "--target", target, "--out", base); p.wait(t, 5*time.Minute) != 0 {
		t.Fatalf("the baseline:\n%s", p.out.String())
	}
	baseline := findRunDir(t, base)
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--target", target, "--out", root, "--baseline", baseline)
	waitRows(t, p, root, "db", 4, 1)
	stop := hog(t, 2*runtime.NumCPU())
	code := p.wait(t, 5*time.Minute)
	stop()
	out := p.out.String()
	if code != exitOK && code != exitInconclusive || strings.Contains(out, "FAILED:") {
		t.Fatalf("the gated run with a hog halfway: exit %d, want 0 or 4 and no failed check:\n%s", code, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "gate: ") || strings.HasPrefix(l, "INCONCLUSIVE: ") || strings.HasPrefix(l, "CONFOUNDED: ") {
			t.Log(l)
		}
	}
	dir := findRunDir(t, root)
	md, err := os.ReadFile(filepath.Join(dir, results.GateMarkdown))
	if err != nil || strings.Contains(string(md), "| failed |") {
		t.Errorf("%s (%v) lists a failed check:\n%s", results.GateMarkdown, err, md)
	}
	var runs []*results.Run
	for _, d := range []string{baseline, dir} {
		r, err := results.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range r.Info.Iterations {
			t.Logf("%s iteration %d: load %+v", filepath.Base(filepath.Dir(d)), it.Index, it.HostLoad)
			if it.HostLoad == nil || it.HostLoad.CPUs < 1 || it.HostLoad.Runnable <= 0 {
				t.Errorf("%s iteration %d: no host load in run.json: %+v", d, it.Index, it.HostLoad)
			}
		}
		runs = append(runs, r)
	}
	for _, cell := range compare.Compare(runs, []string{"tps", "p95_ms"}).Cells {
		for m, vs := range cell.Verdicts {
			if v := vs[1]; v.Significant() {
				t.Errorf("%s %s: %s, a change claimed with a hog halfway", cell.Key, m, v.Text)
			} else {
				t.Logf("%s %s: %s", cell.Key, m, v.Text)
			}
		}
	}
}

// A no-change rerun of a run of two repeats on a busy host (this one's: other jobs share its
// two CPUs) says inconclusive or within noise, never a change: two values give no interval
// to trust. The gated run warns of the two repeats first, saying what to do.
func TestRerunOfTwoRepeatsClaimsNoChange(t *testing.T) {
	target := pointSelectServer(t)
	plan := writePlan(t, pointSelectPlan("repeat: 2\n", "2"))
	root := t.TempDir()
	if p := start(t, nil, "run", plan, "--target", target, "--out", root); p.wait(t, 5*time.Minute) != 0 {
		t.Fatalf("the published run:\n%s", p.out.String())
	}
	published := findRunDir(t, root)
	out := t.TempDir()
	p := start(t, nil, "rerun", published, "--target", target, "--out", out, "--fail-on", "tps < -2.5%, p95_ms > +5%")
	code := p.wait(t, 5*time.Minute)
	text := p.out.String()
	if code != exitOK && code != exitInconclusive || strings.Contains(text, "FAILED:") || !strings.Contains(text, "the gate compares it with the baseline, and repeat: 2") {
		t.Fatalf("rerun of two repeats: exit %d, want 0 or 4, no failed check, and a warning of the repeats:\n%s", code, text)
	}
	var runs []*results.Run
	for _, d := range []string{published, findRunDir(t, out)} {
		r, err := results.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	for _, cell := range compare.Compare(runs, nil).Cells {
		for m, vs := range cell.Verdicts {
			if v := vs[1]; v.Significant() || v.Kind != compare.WithinNoise && v.Kind != compare.Inconclusive && v.Kind != compare.Confounded && v.Kind != compare.NotComparable {
				t.Errorf("%s %s: %s (%s), want inconclusive or within noise", cell.Key, m, v.Text, v.Kind)
			}
		}
	}
}

// pointSelectServer is a sandbox with a table of 1000 rows, and the --target that points a
// plan's target db at it.
func pointSelectServer(t *testing.T) string {
	t.Helper()
	c := sandboxtest.Start(t, sandbox.Options{Name: "hog"})
	db, err := c.Primary.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE DATABASE hog", "CREATE TABLE hog.t (id INT PRIMARY KEY, v INT)",
		"INSERT INTO hog.t SELECT seq, seq FROM hog.seq_1_to_1000"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("db=root:%s@tcp(127.0.0.1:%d)/hog", c.Password(), c.Primary.Port())
}

// pointSelectPlan reads rows of pointSelectServer's table by key for 2 s, keys (matrix,
// repeat) first.
func pointSelectPlan(keys, threads string) string {
	return `version: 1
name: hog
targets:
  db: {dsn: "u@tcp(db1.example:3306)/hog"}
` + keys + `iteration:
  workload:
    transactions:
      - name: get
        statements: [{sql: "SELECT v FROM hog.t WHERE id = ?", args: ["rand_int(1, 1000)"]}]
    threads: ` + threads + `
    duration: 2s
`
}

// hog starts n busy loops in child processes; stop kills them (and t's cleanup, if the test
// ends first).
func hog(t *testing.T, n int) (stop func()) {
	t.Helper()
	var cmds []*exec.Cmd
	for range n {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		for _, cmd := range cmds {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}
