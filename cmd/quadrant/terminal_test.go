package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// A DBA loading a large table in a real terminal sees a live progress line (rows, percent)
// before the table is done; tmux is the terminal, its screen is read as a person would.
func TestTerminalShowsTheDataLoadAsItGoes(t *testing.T) {
	sandboxtest.SkipShort(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (scripts/setup.sh --test installs it)")
	}
	plan := writePlan(t, `
version: 1
name: bigload
targets: {db: {sandbox: {config: {innodb_flush_log_at_trx_commit: 2}}}}
setup:
  - workload: {builtin: oltp_read_only, action: prepare, threads: 1, options: {tables: 1, table_size: 600000}}
iteration:
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], duration: 1s}
`)
	out := t.TempDir()
	session := "quadrant-" + filepath.Base(out)
	done := filepath.Join(out, "exit-code")
	script := quadrantBin + " run " + plan + " --out " + out + "; echo $? > " + done + "; sleep 30"
	if b, err := exec.Command("tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "20", script).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, b)
	}
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", session).Run() })
	live := regexp.MustCompile(`setup: workload \(.*\): [0-9,]+/600,000 rows \(\d+%\)`)
	var seen, screen string
	deadline := time.Now().Add(4 * time.Minute)
	for time.Now().Before(deadline) {
		b, _ := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
		screen = string(b)
		if _, err := os.Stat(done); err == nil {
			break
		}
		if m := live.FindString(screen); m != "" && !strings.Contains(m, "(100%)") && seen == "" {
			seen = m
		}
		time.Sleep(200 * time.Millisecond)
	}
	code, _ := os.ReadFile(done)
	if strings.TrimSpace(string(code)) != "0" {
		t.Fatalf("quadrant exited %q; screen:\n%s", code, screen)
	}
	if seen == "" {
		t.Fatalf("no live progress line of the load before it finished; last screen:\n%s", screen)
	}
	t.Logf("seen on the terminal: %s", seen)
}
