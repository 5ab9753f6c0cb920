package main

// Faults around the run itself: the results filesystem fills up, the results folder
// cannot be written at all.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
)

// A results folder that cannot be created is found before any server is touched.
func TestUnwritableResultsFolderExits2(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	plan := writePlan(t, `
version: 1
name: unwritable
targets: {db: {dsn: "u@tcp(127.0.0.1:1)/x"}}
iteration:
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], duration: 1s}
`)
	code, out, errOut := runCLI("run", plan, "--out", filepath.Join(file, "results"))
	if code != exitInvalid || !strings.Contains(errOut, "nothing was run") || !strings.Contains(errOut, "--out") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// The filesystem under the results folder fills up mid-run: the workload stops with a
// message that says so, teardown runs and globals go back, every CSV stays valid up to
// its last complete row, and `quadrant report` works on the folder once there is room.
func TestDiskFullStopsTheRunCleanly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs for the results folder")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })

	c := sandboxtest.Start(t, sandbox.Options{Name: "diskfull"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	before := global(t, db, "max_connections")
	plan := writePlan(t, fmt.Sprintf(`
version: 1
name: diskfull
targets:
  db: {dsn: "%s"}
iteration:
  globals: {max_connections: 77}
  workload:
    transactions: [{name: one, statements: [{sql: "SELECT 1"}]}]
    duration: 2m
teardown:
  - sql: "SELECT 1"
`, c.Primary.DSN("")))
	p := start(t, nil, "run", plan, "--out", mnt)
	dir := waitRows(t, p, mnt, "db", 1, 2)
	// Fill what is left; the next rows cannot be written.
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
				t.Fatalf("filling the tmpfs: %v", err)
			}
			break
		}
	}
	f.Close()
	code := p.wait(t, time.Minute)
	out := p.out.String()
	if code != exitFailed {
		t.Fatalf("exit %d, want %d:\n%s", code, exitFailed, out)
	}
	if !strings.Contains(out, "no space left on the filesystem mounted at "+mnt+" while writing") {
		t.Fatalf("the message does not say the disk is full:\n%s", out)
	}
	if got := global(t, db, "max_connections"); got != before {
		t.Fatalf("max_connections %s after the run, want %s restored", got, before)
	}
	for _, name := range []string{results.SummaryFile, filepath.Join(results.TimeseriesDir, "db.csv")} {
		header, rows, err := results.ReadTable(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, r := range rows {
			if len(r) != len(header) {
				t.Fatalf("%s row %d has %d cells for %d columns", name, i+1, len(r), len(header))
			}
		}
		if name != results.SummaryFile && len(rows) < 2 {
			t.Fatalf("%s kept %d rows, want the 2 measured before the disk filled", name, len(rows))
		}
	}
	os.Remove(filler)
	if code, _, errOut := runCLI("report", dir); code != exitOK {
		t.Fatalf("report after freeing space: exit %d: %s", code, errOut)
	}
}

// Two `quadrant sandbox up --name X` started at the same instant: exactly one starts, the
// other says the name is taken. Twenty times.
func TestSandboxUpSameNameAtOnceOneWins(t *testing.T) {
	sandboxtest.SkipShort(t)
	tmp := sandboxtest.Dir(t)
	env := []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}
	for round := 1; round <= 20; round++ {
		a := start(t, env, "sandbox", "up", "--name", "race", "--dir", tmp)
		b := start(t, env, "sandbox", "up", "--name", "race", "--dir", tmp)
		// The loser exits 2 at once; the winner stays up until it is told to stop.
		var loser, winner *proc
		select {
		case <-a.done:
			loser, winner = a, b
		case <-b.done:
			loser, winner = b, a
		case <-time.After(2 * time.Minute):
			t.Fatalf("round %d: neither ended:\n%s\n%s", round, a.out.String(), b.out.String())
		}
		if loser.exit != exitInvalid || !strings.Contains(loser.out.String(), "already up or starting") {
			t.Fatalf("round %d: the loser exited %d:\n%s", round, loser.exit, loser.out.String())
		}
		select {
		case <-winner.done:
			t.Fatalf("round %d: the winner ended too (exit %d):\n%s", round, winner.exit, winner.out.String())
		default:
		}
		// The winner holds the name from its first moment; whether its servers come up is
		// another test's business, so it is stopped wherever it is: exit 0, 130 while starting,
		// or killed by the signal itself (-1) before it listens for it.
		winner.cmd.Process.Signal(syscall.SIGTERM)
		if code := winner.wait(t, 2*time.Minute); code != 0 && code != 130 && code != -1 {
			t.Fatalf("round %d: the winner stopped with exit %d:\n%s", round, code, winner.out.String())
		}
	}
}

// Two runs with sandboxes started at the same instant get their own ports and directories.
func TestTwoRunsWithSandboxesAtOnce(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, `
version: 1
name: twin
targets: {db: {sandbox: {}}}
iteration:
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], duration: 2s}
`)
	roots := []string{t.TempDir(), t.TempDir()}
	var procs []*proc
	for _, root := range roots {
		procs = append(procs, start(t, nil, "run", plan, "--out", root))
	}
	addrs := map[string]bool{}
	for i, p := range procs {
		if code := p.wait(t, 3*time.Minute); code != 0 {
			t.Fatalf("run %d exited %d:\n%s", i+1, code, p.out.String())
		}
		ri, err := results.ReadRunInfo(findRunDir(t, roots[i]))
		if err != nil {
			t.Fatal(err)
		}
		addrs[ri.Targets[0].Address] = true
	}
	if len(addrs) != 2 {
		t.Fatalf("both runs' sandboxes had the same address: %v", addrs)
	}
}
