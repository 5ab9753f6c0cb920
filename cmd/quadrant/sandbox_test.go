package main

import (
	"bytes"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// `sandbox up --help` is up's usage once: its synopsis and text, then its options, without
// the other subcommands' (whose synopses repeated what the options say).
func TestSandboxUpHelpOnce(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"sandbox", "up", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	if strings.Count(text, "quadrant sandbox up [") != 1 || strings.Contains(text, "sandbox down [--all]") || strings.Contains(text, "sandbox list [--all]") {
		t.Errorf("up --help shows other subcommands' usage:\n%s", text)
	}
	for _, want := range []string{"-detach", "-print-env", "when \"up --detach\" returns 0 the servers are ready"} {
		if !strings.Contains(text, want) {
			t.Errorf("up --help lacks %q:\n%s", want, text)
		}
	}
}

// `sandbox up --detach` returns once the servers answer, with the same lines; the sandbox
// lives on after it returned until `sandbox down` stops its owner.
func TestSandboxUpDetach(t *testing.T) {
	sandboxtest.SkipShort(t)
	tmp := sandboxtest.Dir(t)
	env := []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}
	up := start(t, env, "sandbox", "up", "--name", "det", "--detach", "--print-env")
	if code := up.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("sandbox up --detach: exit %d:\n%s", code, up.out.String())
	}
	vars := map[string]string{}
	for _, l := range strings.Split(up.out.String(), "\n") {
		if kv, ok := strings.CutPrefix(l, "export "); ok {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = strings.Trim(v, "'")
		}
	}
	dsn := vars["QUADRANT_SANDBOX_DSN"]
	if dsn == "" || !strings.Contains(up.out.String(), "sandbox det is up (owner pid") {
		t.Fatalf("up --detach printed:\n%s", up.out.String())
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			start(t, env, "sandbox", "down", "det").wait(t, 3*time.Minute)
		}
	})
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(0)
	if err := db.Ping(); err != nil {
		t.Fatalf("the DSN up --detach printed does not connect once it returned: %v", err)
	}
	list := start(t, env, "sandbox", "list")
	if list.wait(t, time.Minute) != 0 || !strings.Contains(list.out.String(), "det ") {
		t.Fatalf("sandbox list does not show the detached sandbox:\n%s", list.out.String())
	}
	down := start(t, env, "sandbox", "down", "det")
	if code := down.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("sandbox down: exit %d:\n%s", code, down.out.String())
	}
	stopped = true
	if err := db.Ping(); err == nil {
		t.Errorf("the sandbox still answers after sandbox down")
	}
	if _, err := os.Stat(tmp + "/quadrant-" + strconv.Itoa(os.Geteuid()) + "/sandboxes/det.json"); err == nil {
		t.Errorf("sandbox down left the state file")
	}
}
