package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// The results folder's copy of a plan's data files goes through the plan's roots: a
// sql_file swapped for a link to a secret after the trust check is not copied (it once
// became a 0644 copy of /etc/shadow), and a file others cannot read, reached through
// --allow-path, is copied 0600.
func TestCopyPlanFilesFollowsNoLinkOutAndKeepsSecretsPrivate(t *testing.T) {
	dir, outside, etc := t.TempDir(), t.TempDir(), t.TempDir()
	secret := filepath.Join(etc, "shadow")
	os.WriteFile(secret, []byte("root:$6$hash-of-the-victim:19000:0:99999:7:::\n"), 0o600)
	os.WriteFile(filepath.Join(outside, "private.sql"), []byte("SELECT 1;\n"), 0o600)
	os.Symlink(filepath.Join(outside, "private.sql"), filepath.Join(dir, "private.sql"))
	data := filepath.Join(dir, "data.sql")
	os.WriteFile(data, []byte("SELECT 1;\n"), 0o644)
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte(plantest.Sandbox("copies", "", `
setup:
  - sql_file: data.sql
  - sql_file: private.sql
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`)), 0o644)
	p, err := spec.Load(plan, spec.Options{Kinds: kinds.Registry(), AllowPaths: []string{outside}})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(data)
	os.Symlink(secret, data) // after the check: the shadow's directory is not allowed
	out := t.TempDir()
	w, err := results.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = copyPlanFiles(p, w)
	if err == nil || !strings.Contains(err.Error(), "data.sql") {
		t.Errorf("want data.sql reported as not copied, got %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "data.sql")); err == nil {
		t.Errorf("the link out was followed: the results hold %q", b)
	}
	fi, err := os.Stat(filepath.Join(out, "private.sql"))
	if err != nil {
		t.Fatalf("private.sql was not copied: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the copy of a 0600 file is %v, want 0600", fi.Mode().Perm())
	}
}

// A data file larger than --copy-limit is refused before anything runs, with its name,
// size and the flag; --copy-limit 0 lifts the limit.
func TestCopyLimitRefusesALargeDataFileBeforeAnythingRuns(t *testing.T) {
	dir := t.TempDir()
	f, _ := os.Create(filepath.Join(dir, "big.sql"))
	f.Truncate(20 << 20) // 20 MB of a sql_file, made here
	f.Close()
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte(plantest.Sandbox("big", "", `
setup:
  - sql_file: big.sql
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`)), 0o644)
	out := filepath.Join(t.TempDir(), "res")
	code, stdout, stderr := runCLI("run", plan, "--out", out, "--copy-limit", "10M")
	text := stdout + stderr
	if code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, text)
	}
	for _, want := range []string{"nothing was run", "big.sql (20.0 MiB, 20971520 bytes)", "--copy-limit"} {
		if !strings.Contains(text, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, text)
		}
	}
	absent(t, out, "a refused run made its results folder")
	p, err := spec.Load(plan, spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkCopies(p, 0); err != nil {
		t.Errorf("--copy-limit 0 still refuses: %v", err)
	}
	if err := checkCopies(p, defaultCopyLimit); err != nil {
		t.Errorf("the default limit refuses 20 MB: %v", err)
	}
}

// A sql_file statement larger than its sandbox's max_allowed_packet (the config's, else
// the server's default) is refused by validate and explain with its file, line and size,
// before a run would read it whole and send it.
func TestValidateRefusesAStatementOverMaxAllowedPacket(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("CREATE TABLE t (b LONGBLOB);\nINSERT INTO t VALUES ('")
	b.WriteString(strings.Repeat("x", 20<<20))
	b.WriteString("');\n")
	os.WriteFile(filepath.Join(dir, "big.sql"), []byte(b.String()), 0o644)
	write := func(name, config string) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(plantest.Sandbox("big", config, `
setup:
  - sql_file: big.sql
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`)), 0o644)
		return path
	}
	small := write("small.yaml", "{config: {max_allowed_packet: 1M}}")
	for _, cmd := range []string{"validate", "explain"} {
		code, stdout, stderr := runCLI(cmd, small)
		if code != 2 {
			t.Fatalf("%s: exit %d, want 2:\n%s%s", cmd, code, stdout, stderr)
		}
		for _, want := range []string{"small.yaml:6:", "sql_file big.sql: line 2: a statement of 20971", "max_allowed_packet (1048576 bytes)", "config sets max_allowed_packet 1M"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: the refusal does not say %q:\n%s", cmd, want, stderr)
			}
		}
	}
	code, _, stderr := runCLI("validate", write("default.yaml", ""))
	if code != 2 || !strings.Contains(stderr, "max_allowed_packet (16777216 bytes)") || !strings.Contains(stderr, "MariaDB's default") {
		t.Errorf("validate against MariaDB's default: exit %d:\n%s", code, stderr)
	}
	if code, _, stderr := runCLI("validate", write("large.yaml", "{config: {max_allowed_packet: 64M}}")); code != 0 {
		t.Errorf("validate with max_allowed_packet 64M: exit %d:\n%s", code, stderr)
	}
}
