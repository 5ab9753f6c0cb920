package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// On the user's own server, what the account lacks and the status names the server does
// not have come in one message, each name with the server's closest (Innodb_os_log_fsyncs,
// which MariaDB 10.8+ dropped, is close to no name and still gets one); explain with
// --target says the same and exits 2, as the run does; and a run that stops there says the
// folder it announced is removed.
func TestPreflightSaysEverythingOnce(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "onemsg"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.Primary.Exec(ctx, "CREATE DATABASE app", "CREATE USER app@'%' IDENTIFIED BY 'apppw'", "GRANT ALL ON app.* TO app@'%'"); err != nil {
		t.Fatal(err)
	}
	dsn := fmt.Sprintf("app:apppw@tcp(127.0.0.1:%d)/app", c.Primary.Port())
	plan := writePlan(t, `version: 1
name: onemsg
targets:
  db: {sandbox: {}}
watch:
  status: [Com_selct, Innodb_os_log_fsyncs, Threads_running]
iteration:
  globals: {max_connections: 300}
  workload: {builtin: oltp_point_select, options: {table_size: 100}, duration: 1s}
`)
	want := []string{"SUPER", `"Com_selct" (did you mean "Com_select"?)`}
	closest := regexp.MustCompile(`"Innodb_os_log_fsyncs" \([^)]*closest is "\w+"\)`)

	p := start(t, nil, "explain", plan, "--target", "db="+dsn)
	code := p.wait(t, time.Minute)
	text := p.out.String()
	if code != 2 || !strings.Contains(text, "the run would stop before setup") || !closest.MatchString(text) {
		t.Fatalf("explain --target: exit %d, want 2 saying the run would stop, with the closest names:\n%s", code, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("explain does not say %q:\n%s", w, text)
		}
	}

	root := t.TempDir()
	p = start(t, nil, "run", plan, "--target", "db="+dsn, "--out", root)
	code = p.wait(t, 2*time.Minute)
	text = p.out.String()
	if code != 2 || !closest.MatchString(text) {
		t.Fatalf("run: exit %d, want 2 with every name and its closest:\n%s", code, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the run's refusal does not say %q (both in one message):\n%s", w, text)
		}
	}
	m := regexp.MustCompile(`results: (\S+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the run did not say its folder:\n%s", text)
	}
	if _, err := os.Stat(m[1]); err == nil || !strings.Contains(text, m[1]+" is removed") {
		t.Errorf("the run announced %s and did not say it removed it (or kept it):\n%s", m[1], text)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "*", "*")); len(left) > 0 {
		t.Errorf("a run that measured nothing left %v", left)
	}

	// The trust check's refusal comes first, before any server is touched; what the servers
	// the user named would refuse next is in the same message.
	withShell := writePlan(t, strings.Replace(readFile(t, plan), "iteration:\n", "setup:\n  - shell: \"true\"\niteration:\n", 1))
	p = start(t, nil, "run", withShell, "--target", "db="+dsn, "--out", root)
	code = p.wait(t, 2*time.Minute)
	text = p.out.String()
	if code != 2 || !strings.Contains(text, "--allow-shell") || !closest.MatchString(text) {
		t.Fatalf("run refused by the trust check: exit %d, want 2 with the server's findings too:\n%s", code, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the trust check's refusal does not say %q too:\n%s", w, text)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
