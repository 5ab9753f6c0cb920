package main

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A plan reaches its sandbox without ever showing the sandbox's random password: not on the
// console, not in any file of the results folder, not even when a shell step prints it (the
// option file shell steps get) or when a step's failure quotes that output.
func TestSandboxPasswordNeverWritten(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, plantest.Sandbox("sbsecret", "", `setup:
  - shell: 'cat "$QUADRANT_TARGET_DB_CNF"'
  - shell: 'mariadb --defaults-extra-file="$QUADRANT_TARGET_DB_CNF" -e "CREATE DATABASE IF NOT EXISTS sbtest"'
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 1000}}
matrix:
  fail: [0, 1]
iteration:
  before:
    - shell: 'if [ "$QUADRANT_MATRIX_FAIL" = 1 ]; then grep password "$QUADRANT_TARGET_DB_CNF"; exit 3; fi'
  workload: {builtin: oltp_point_select, options: {table_size: 1000}, duration: 2s}
`))
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root, "--allow-shell", "--keep")
	code := p.wait(t, 3*time.Minute)
	out := p.out.String()
	kept := ""
	for _, l := range strings.Split(out, "\n") {
		if d, ok := strings.CutPrefix(l, "sandbox kept in "); ok {
			kept = strings.TrimSpace(d)
		}
	}
	if kept == "" {
		t.Fatalf("exit %d; no sandbox kept:\n%s", code, out)
	}
	t.Cleanup(func() { os.RemoveAll(kept) })
	if code != 3 {
		t.Fatalf("exit %d, want 3 (the second iteration's step fails on purpose):\n%s", code, out)
	}
	password, err := sandbox.ReadPassword(kept)
	if err != nil || len(password) < 16 {
		t.Fatalf("password of the kept sandbox: %q %v", password, err)
	}
	if strings.Contains(out, password) {
		t.Fatalf("the password is on the console:\n%s", out)
	}
	dir := findRunDir(t, root)
	files := 0
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		files++
		if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(password)) {
			t.Errorf("%s contains the sandbox's password", path)
		}
		return nil
	})
	if files < 6 {
		t.Fatalf("only %d files in the results folder", files)
	}
	// The password went through the redaction (the shell output is there, masked), and the
	// target's address is the masked DSN.
	log, _ := os.ReadFile(filepath.Join(dir, results.LogFile))
	if !bytes.Contains(log, []byte("password = ***")) {
		t.Errorf("log.txt lacks the masked shell output:\n%s", log)
	}
	if !bytes.Contains(log, []byte("root:***@tcp(127.0.0.1:")) {
		t.Errorf("log.txt lacks the masked DSN:\n%s", log)
	}
	ri, err := results.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ri.Iterations) != 2 || !strings.Contains(ri.Iterations[1].Error, "password = ***") {
		t.Errorf("run.json: the failed iteration's error does not quote the masked output: %+v", ri.Iterations)
	}
}

// quadrant sandbox up prints a DSN that works (with --print-env, as export lines), list shows it
// masked, another OS user neither sees it without --all nor stops it with --all, and down stops it.
func TestSandboxUpPrintEnvListDown(t *testing.T) {
	sandboxtest.SkipShort(t)
	tmp := sandboxtest.Dir(t)
	os.Chmod(tmp, 0o755) // other users list the state directories under it (--all)
	env := []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}
	up := start(t, env, "sandbox", "up", "--name", "cli", "--print-env")
	state := filepath.Join(tmp, "quadrant-"+strconv.Itoa(os.Geteuid()), "sandboxes", "cli.json")
	deadline := time.Now().Add(3 * time.Minute)
	// The state file is written after the export lines, but they reach this test's buffer
	// through a pipe a moment later: wait for both.
	for !fileExists(state) || !strings.Contains(up.out.String(), "export QUADRANT_SANDBOX_PASSWORD=") {
		select {
		case <-up.done:
			t.Fatalf("sandbox up ended (exit %d):\n%s", up.exit, up.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no state file %s after 3 minutes:\n%s", state, up.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	vars := map[string]string{}
	for _, l := range strings.Split(up.out.String(), "\n") {
		if kv, ok := strings.CutPrefix(l, "export "); ok {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = strings.Trim(v, "'")
		}
	}
	dsn, pw := vars["QUADRANT_SANDBOX_DSN"], vars["QUADRANT_SANDBOX_PASSWORD"]
	if len(pw) < 16 || !strings.Contains(dsn, ":"+pw+"@tcp(127.0.0.1:") || vars["QUADRANT_SANDBOX_CNF"] == "" {
		t.Fatalf("--print-env printed %v", vars)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatalf("the printed DSN does not connect: %v", err)
	}

	list := start(t, env, "sandbox", "list")
	if list.wait(t, time.Minute) != 0 || !strings.Contains(list.out.String(), "cli") || !strings.Contains(list.out.String(), "root:***@tcp") || strings.Contains(list.out.String(), pw) {
		t.Fatalf("sandbox list:\n%s", list.out.String())
	}

	if os.Geteuid() == 0 {
		exe := filepath.Join(tmp, "quadrant")
		data, _ := os.ReadFile(quadrantBin)
		if err := os.WriteFile(exe, data, 0o755); err != nil {
			t.Fatal(err)
		}
		asNobody := func(args ...string) (string, int) {
			cmd := exec.Command("setpriv", append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", exe}, args...)...)
			cmd.Env = []string{"TMPDIR=" + tmp, "HOME=/nonexistent", "PATH=/usr/bin:/bin"}
			out, _ := cmd.CombinedOutput()
			return string(out), cmd.ProcessState.ExitCode()
		}
		if out, _ := asNobody("sandbox", "list"); strings.Contains(out, "cli") {
			t.Errorf("nobody's sandbox list shows root's sandbox:\n%s", out)
		}
		if out, _ := asNobody("sandbox", "list", "--all"); !strings.Contains(out, "OWNER") || !strings.Contains(out, "root") || !strings.Contains(out, "cli") || strings.Contains(out, pw) {
			t.Errorf("nobody's sandbox list --all:\n%s", out)
		}
		// without a name, down means "my only sandbox": a colleague's is never it
		if out, code := asNobody("sandbox", "down"); code != 2 || !strings.Contains(out, "no sandbox of yours is up") {
			t.Errorf("nobody's sandbox down without a name: exit %d:\n%s", code, out)
		}
		if out, code := asNobody("sandbox", "down", "cli"); code == 0 {
			t.Errorf("nobody stopped root's sandbox without --all:\n%s", out)
		}
		if out, code := asNobody("sandbox", "down", "--all", "cli"); code != 3 || !strings.Contains(out, "may not signal") {
			t.Errorf("nobody's sandbox down --all of root's sandbox: exit %d:\n%s", code, out)
		}
		select {
		case <-up.done:
			t.Fatalf("root's sandbox stopped after nobody's attempts:\n%s", up.out.String())
		default:
		}
	}

	down := start(t, env, "sandbox", "down", "cli")
	if code := down.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("sandbox down: exit %d:\n%s", code, down.out.String())
	}
	if code := up.wait(t, time.Minute); code != 0 {
		t.Fatalf("sandbox up after down: exit %d:\n%s", code, up.out.String())
	}
}
