package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// explain of a sql_file step shows the file's size, how many statements it holds and its
// first few, each cut short, whatever the file's size: a user's 89 MB dump once printed 36 MB.
// The count is the splitter's (a ';' inside a string or a DELIMITER block is no statement end).
func TestExplainSQLFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	dump, err := os.Create(filepath.Join(dir, "dump.sql"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(dump)
	fmt.Fprintf(w, "CREATE TABLE t (id INT PRIMARY KEY, v TEXT);\n")
	long := strings.Repeat("x;y ", 2000) // 8 kB, with semicolons inside the string
	const rows = 3000
	for i := range rows {
		fmt.Fprintf(w, "INSERT INTO t VALUES (%d, '%s');\n", i, long)
	}
	fmt.Fprintf(w, "DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END//\nDELIMITER ;\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, _ := dump.Stat()
	dump.Close()
	if fi.Size() < 20<<20 {
		t.Fatalf("the generated dump is %d bytes; the test wants more than 20 MiB", fi.Size())
	}
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte(`version: 1
name: dump
targets: {db: {sandbox: {}}}
setup:
  - sql_file: dump.sql
iteration:
  workload: {builtin: oltp_read_only, duration: 5s}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", plan)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if len(out) > 4<<10 {
		t.Errorf("explain printed %d bytes for a %d-byte sql_file", len(out), fi.Size())
	}
	want := fmt.Sprintf("(%s, %d statement(s))", spec.ByteSize(fi.Size()), 1+rows+1)
	if !strings.Contains(out, want) {
		t.Errorf("explain lacks %q:\n%s", want, out)
	}
	var shown []string
	for _, line := range strings.Split(out, "\n") {
		if s := strings.TrimSpace(line); strings.HasPrefix(s, "CREATE TABLE") || strings.HasPrefix(s, "INSERT") {
			shown = append(shown, s)
		}
	}
	if len(shown) != shownStatements || !strings.HasPrefix(shown[1], "INSERT INTO t VALUES (0, 'x;y x;y") {
		t.Errorf("statements shown: %q, want the first %d", shown, shownStatements)
	}
	for _, s := range shown {
		if len([]rune(s)) > shownChars+1 {
			t.Errorf("a statement shown is %d characters long, want at most %d: %q", len([]rune(s)), shownChars+1, s)
		}
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 89 << 20: "89.0 MiB", 3 << 40: "3.0 TiB", 5000 << 40: "5000.0 TiB"} {
		if got := spec.ByteSize(n); got != want {
			t.Errorf("spec.ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// explain says what restore: setup copies after setup and puts back before each iteration but
// the first, replicas included, and the steps that bring a dsn target back.
func TestExplainShowsRestore(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte(plantest.Sandbox("restore", "{replicas: 1}", `  prod: {dsn: "u:pw@tcp(db1:3306)/app"}
setup:
  - shell: "mysqldump --databases app > app-dump.sql"
matrix:
  flush: [1, 2]
iteration:
  target: db
  restore:
    steps:
      - {target: prod, sql_file: app-dump.sql}
  workload: {builtin: oltp_read_write, duration: 5s}
`)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", plan)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	first, second, ok := strings.Cut(out, "Iteration 2/2")
	if !ok {
		t.Fatalf("no second iteration:\n%s", out)
	}
	for _, want := range []string{
		"after setup, for restore: sandbox db is stopped (its 1 replica(s) too, caught up first), its datadir copied",
		"restore: none before the first iteration",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("explain lacks %q before iteration 2:\n%s", want, out)
		}
	}
	for _, want := range []string{
		"sandbox db and its 1 replica(s): stop, put back the copy of the datadir taken after setup, start",
		"prod: by the restore steps",
		"sql_file on prod: " + filepath.Join(dir, "app-dump.sql"),
	} {
		if !strings.Contains(second, want) {
			t.Errorf("explain lacks %q in iteration 2:\n%s", want, out)
		}
	}
}

// explain says which iterations leave a step out (when: false) and shows it where it runs.
func TestExplainSaysWhenAStepIsSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "when.yaml")
	if err := os.WriteFile(path, []byte(`version: 1
name: w
targets:
  db: {sandbox: {}}
matrix:
  cell: [a, b]
iteration:
  before:
    - sql: "SELECT 42"
      when: "${{ matrix.cell == 'b' }}"
  workload: {builtin: oltp_point_select, threads: 1, duration: 2s}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", path)
	if code != exitOK {
		t.Fatalf("explain: exit %d %s", code, errOut)
	}
	a, b, _ := strings.Cut(out, "Iteration 2/2")
	if !strings.Contains(a, "sql: skipped in this iteration (when: false)") || strings.Contains(a, "SELECT 42") {
		t.Errorf("iteration 1 should show the step skipped:\n%s", a)
	}
	if !strings.Contains(b, "SELECT 42") || strings.Contains(b, "skipped") {
		t.Errorf("iteration 2 should show the step:\n%s", b)
	}
}
