package main

import (
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A rerun of a folder whose sandbox had a config, on a --target server without it, says
// before it starts what the published run had that the target lacks: each my.cnf option the
// target's variables do not match, and the ranked differences (durability first). Options
// the target matches are not named.
func TestRerunWarnsOfWhatTheTargetLacksBeforeItStarts(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, plantest.Sandbox("published-config",
		`{config: {innodb_flush_log_at_trx_commit: 2, innodb_buffer_pool_size: 64M, log_bin: true, innodb_doublewrite: 1}}`, `setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 50}}
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 50}, duration: 1s}
`))
	first := t.TempDir()
	p := start(t, nil, "run", plan, "--out", first)
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("run exit %d:\n%s", code, p.out.String())
	}
	published := findRunDir(t, first)

	c := sandboxtest.Start(t, sandbox.Options{Name: "plain"})
	r := start(t, nil, "rerun", published, "--target", "db="+c.Primary.DSN(""), "--out", t.TempDir())
	if code := r.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("rerun exit %d:\n%s", code, r.out.String())
	}
	out := r.out.String()
	i := strings.Index(out, "warning: before this rerun starts, target db (MariaDB")
	if i < 0 {
		t.Fatalf("no warning block before the rerun:\n%s", out)
	}
	if j := strings.Index(out, "iteration 1/1"); j < i {
		t.Errorf("the warning is not before the run starts (iteration at %d, warning at %d):\n%s", j, i, out)
	}
	for _, want := range []string{
		"innodb_flush_log_at_trx_commit = 2 in the published sandbox; target db has 1",
		"innodb_buffer_pool_size = 64M in the published sandbox; target db has 134217728",
		"log_bin = true in the published sandbox; target db has OFF",
	} {
		if !strings.Contains(out[i:], want) {
			t.Errorf("the warning lacks %q:\n%s", want, out[i:])
		}
	}
	for _, want := range [][2]string{{"durability and flushing", "target db: innodb_flush_log_at_trx_commit 2 -> 1"},
		{"binary logging", "target db: log_bin ON -> OFF"}} {
		if !lineWith(out[i:], want[0], want[1]) {
			t.Errorf("the ranked part lacks %s: %s:\n%s", want[0], want[1], out[i:])
		}
	}
	if strings.Index(out[i:], "innodb_flush_log_at_trx_commit 2 -> 1") > strings.Index(out[i:], "log_bin ON -> OFF") {
		t.Errorf("durability is not ranked before binary logging:\n%s", out[i:])
	}
	block := out[i:]
	if end := strings.Index(block, "candidate causes"); end > 0 {
		block = block[:end]
	}
	if strings.Contains(block, "innodb_doublewrite") || strings.Contains(block, c.Password()) {
		t.Errorf("the warning names an option the target matches, or the password:\n%s", block)
	}
}

// lineWith reports whether one line of out starts (after its indent) with group and holds text.
func lineWith(out, group, text string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), group) && strings.Contains(l, text) {
			return true
		}
	}
	return false
}
