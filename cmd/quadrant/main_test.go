package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/templates"
)

func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func noStackTrace(t *testing.T, s string) {
	t.Helper()
	for _, bad := range []string{"goroutine ", "panic", "runtime/"} {
		if strings.Contains(s, bad) {
			t.Errorf("output contains %q:\n%s", bad, s)
		}
	}
}

func TestValidateBadPlansExit2(t *testing.T) {
	files, _ := filepath.Glob("../../spec/testdata/bad/*.yaml")
	if len(files) < 30 {
		t.Fatalf("found %d bad plans", len(files))
	}
	for _, f := range files {
		code, out, errOut := runCLI("validate", f)
		if code != exitInvalid {
			t.Errorf("%s: exit %d, want 2", f, code)
		}
		if !regexp.MustCompile(`:\d+:\d+: `).MatchString(errOut) {
			t.Errorf("%s: no line:column in %q", f, errOut)
		}
		noStackTrace(t, out+errOut)
	}
}

func TestValidateExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	code, out, errOut := runCLI(append([]string{"validate"}, files...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if strings.Count(out, ": ok (") != len(files) {
		t.Errorf("output:\n%s", out)
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands() {
		code, out, errOut := runCLI(c.name, "--help")
		if code != exitOK || !strings.Contains(out, "Usage: quadrant "+c.name) || errOut != "" {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q", c.name, code, out, errOut)
		}
	}
	code, out, _ := runCLI("--help")
	if code != exitOK || !strings.Contains(out, "validate") || !strings.Contains(out, "explain") {
		t.Errorf("--help: %d %q", code, out)
	}
	if code, _, errOut := runCLI("frobnicate"); code != exitInvalid || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: %d %q", code, errOut)
	}
	if code, _, errOut := runCLI("validate", "--bogus", "x.yaml"); code != exitInvalid || !strings.Contains(errOut, "bogus") {
		t.Errorf("unknown flag: %d %q", code, errOut)
	}
}

func TestPanicBecomesInternalError(t *testing.T) {
	var out, errOut bytes.Buffer
	cmds := []command{{"boom", "", func([]string, io.Writer, io.Writer) int { panic("oops") }}}
	code := dispatch(cmds, []string{"boom"}, &out, &errOut)
	if code != exitFailed || !strings.Contains(errOut.String(), "internal error: oops") {
		t.Errorf("exit %d, %q", code, errOut.String())
	}
	noStackTrace(t, errOut.String())
}

func TestInitPrintsValidPlans(t *testing.T) {
	dir := t.TempDir()
	for _, name := range append(templates.Names(), "") {
		args := []string{"init"}
		if name != "" {
			args = append(args, "--template", name)
		}
		code, out, errOut := runCLI(args...)
		if code != exitOK {
			t.Fatalf("init %s: %d %s", name, code, errOut)
		}
		if !strings.HasPrefix(out, "# yaml-language-server: $schema=https://") {
			t.Errorf("init %s: no schema URL line: %q", name, out[:60])
		}
		f := filepath.Join(dir, "plan-"+name+".yaml")
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut := runCLI("validate", f); code != exitOK {
			t.Errorf("init %s does not validate: %s", name, errOut)
		}
	}
	if code, _, errOut := runCLI("init", "--template", "nope"); code != exitInvalid || !strings.Contains(errOut, "quickstart") {
		t.Errorf("unknown template: %d %q", code, errOut)
	}
}

func TestTemplatesSchemaVersion(t *testing.T) {
	code, out, _ := runCLI("templates")
	if code != exitOK || !strings.Contains(out, "flush-method") || !strings.Contains(out, "innodb_flush_method") {
		t.Errorf("templates: %q", out)
	}
	code, out, _ = runCLI("schema")
	want, _ := os.ReadFile("../../docs/plan.schema.json")
	if code != exitOK || out != string(want) {
		t.Errorf("schema differs from docs/plan.schema.json")
	}
	code, out, _ = runCLI("schema", "--markdown")
	want, _ = os.ReadFile("../../docs/plan-reference.md")
	if code != exitOK || out != string(want) {
		t.Errorf("schema --markdown differs from docs/plan-reference.md")
	}
	code, out, _ = runCLI("version")
	if code != exitOK || !strings.HasPrefix(out, "quadrant ") {
		t.Errorf("version: %q", out)
	}
}

const matrixPlan = `version: 1
name: explain-test
targets:
  primary: {sandbox: {replicas: 1}}
  ext: {dsn: "bench:topsecret@tcp(db1:3306)/sbtest", restart: "sudo systemctl restart mysql"}
setup:
  - sql: "CREATE DATABASE IF NOT EXISTS bench"
matrix:
  threads: [8, 64]
  flush: [O_DIRECT, O_DSYNC, fdatasync]
repeat: 2
order: sequential
iteration:
  target: primary
  server_config: {innodb_flush_method: "${{ matrix.flush }}"}
  globals: {sync_binlog: 1}
  before:
    - sql: "SELECT 'run ${{ iteration.index }}: ${{ matrix.threads }} threads, ${{ matrix.flush }}, repeat ${{ iteration.repeat }}'"
    - shell: "echo ${{ matrix.flush }}"
  workload: {builtin: oltp_read_write, threads: "${{ matrix.threads }}", duration: 30s, warmup: 5s}
  during:
    - {at: 10s, sql: "START SLAVE", target: primary_replica1}
  after:
    - sleep: 2s
  assert: ["tps > 0"]
teardown:
  - drop_caches: true
  - restart: {}
    target: ext
`

func TestExplainMatrixWithRepeat(t *testing.T) {
	f := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(f, []byte(matrixPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", f)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	heads := regexp.MustCompile(`(?m)^Iteration (\d+)/12: threads=(\d+) flush=(\w+), repeat (\d), target primary$`).FindAllStringSubmatch(out, -1)
	if len(heads) != 12 {
		t.Fatalf("want 12 iterations, found %d:\n%s", len(heads), out)
	}
	var want []string
	for _, th := range []string{"8", "64"} {
		for _, fl := range []string{"O_DIRECT", "O_DSYNC", "fdatasync"} {
			for _, r := range []string{"1", "2"} {
				want = append(want, th+" "+fl+" "+r)
			}
		}
	}
	blocks := strings.Split(out, "\nIteration ")[1:]
	for i, h := range heads {
		if h[1] != strconv.Itoa(i+1) || h[2]+" "+h[3]+" "+h[4] != want[i] {
			t.Errorf("iteration %d is %v, want %s", i+1, h[1:], want[i])
			continue
		}
		b := blocks[i]
		for _, s := range []string{
			"SELECT 'run " + h[1] + ": " + h[2] + " threads, " + h[3] + ", repeat " + h[4] + "';",
			"SET GLOBAL sync_binlog = 1",
			"shell: echo " + h[3] + "  [needs --allow-shell]",
			"workload (measured) on primary: builtin oltp_read_write run, " + h[2] + " thread(s), 30s, warmup 5s",
			"at +10s: sql on primary_replica1:\n      START SLAVE;",
			"sleep 2s",
			"assert: tps > 0",
		} {
			if !strings.Contains(b, s) {
				t.Errorf("iteration %s lacks %q:\n%s", h[1], s, b)
			}
		}
		// the server config changes (restart) only on the first repeat of a new flush value
		restarts := strings.Contains(b, "server_config: restart primary with innodb_flush_method="+h[3])
		if restarts != (h[4] == "1") {
			t.Errorf("iteration %s: restart shown %v", h[1], restarts)
		}
	}
	for _, s := range []string{
		"setup:\n    sql on primary:\n      CREATE DATABASE IF NOT EXISTS bench;",
		"drop_caches: sync; echo 3 > /proc/sys/vm/drop_caches (needs root)  [needs --allow-shell]",
		"restart command: sudo systemctl restart mysql  [needs --allow-shell]",
		"Privileged actions (shell, drop_caches, restart commands): 14",
		// 12 x (30s + 5s warmup + 2s sleep) = 7m24s
		"Estimated duration: at most 7m24s (estimate:",
		"bench:***@tcp(db1:3306)/sbtest",
		"order: sequential (a cell's repeats back to back); 6 server restart(s) for server_config\n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("explain lacks %q", s)
		}
	}
	if strings.Contains(out, "topsecret") {
		t.Errorf("explain shows a password")
	}
	if strings.Index(out, "teardown:") < strings.Index(out, "Iteration 12/12") {
		t.Errorf("teardown is not after the last iteration")
	}
}

// Each workload kind checks its own options at validate, at the option's line: a builtin's
// misspelt option, sysbench args quadrant sets itself, warmup with the sysbench binary.
func TestValidateChecksEachKindsOptions(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ plan, want string }{
		"builtin": {`version: 1
name: k
targets: {db: {dsn: "u@tcp(127.0.0.1:3306)/x"}}
iteration:
  workload:
    builtin: oltp_read_only
    options: {tabels: 2}
    duration: 1s
`, `k.yaml:7:23: unknown option "tabels" for builtin oltp_read_only; did you mean "tables"?`},
		"sysbench": {`version: 1
name: k
targets: {db: {dsn: "u@tcp(127.0.0.1:3306)/x"}}
iteration:
  workload:
    sysbench: {script: oltp_read_only, args: {threads: 4}}
    duration: 1s
`, `k.yaml:6:46: sysbench: option "threads" is set by quadrant`},
		"sysbench warmup": {`version: 1
name: k
targets: {db: {dsn: "u@tcp(127.0.0.1:3306)/x"}}
iteration:
  workload:
    sysbench: {script: oltp_read_only}
    duration: 1s
    warmup: 2s
`, `k.yaml:8:13: sysbench: warmup is not supported`},
	} {
		path := filepath.Join(dir, "k.yaml")
		if err := os.WriteFile(path, []byte(c.plan), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI("validate", path)
		if code != exitInvalid || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", name, code, errOut, c.want)
		}
	}
}

// Interleaved repeats, the default, alternate the cells, and explain says what that costs in
// restarts.
func TestExplainInterleavedOrder(t *testing.T) {
	f := filepath.Join(t.TempDir(), "plan.yaml")
	plan := strings.Replace(matrixPlan, "order: sequential\n", "", 1)
	if err := os.WriteFile(f, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", f)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "order: interleaved (one run of every cell, then the next); 12 server restart(s) for server_config (sequential would need 6)"
	if !strings.Contains(out, want) {
		t.Errorf("explain lacks %q:\n%s", want, out)
	}
	heads := regexp.MustCompile(`(?m)^Iteration (\d+)/12: (threads=\d+ flush=\w+), repeat (\d)`).FindAllStringSubmatch(out, -1)
	if len(heads) != 12 || heads[0][2] == heads[1][2] || heads[0][2] != heads[6][2] || heads[6][3] != "2" {
		t.Errorf("not interleaved: %v", heads)
	}
}

// explain takes --target as run does: a plan's sandbox pointed at one's own server.
func TestExplainTakesTarget(t *testing.T) {
	f := filepath.Join(t.TempDir(), "plan.yaml")
	plan := `version: 1
name: e
targets: {db: {sandbox: {}}}
iteration:
  workload: {builtin: oltp_read_only, duration: 5s}
`
	if err := os.WriteFile(f, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", f, "--target", "db=bench:secret@tcp(127.0.0.1:3306)/sbtest")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "127.0.0.1:3306") || strings.Contains(out, "secret") {
		t.Errorf("explain does not show the target's server (or shows its password):\n%s", out)
	}
	if code, _, errOut := runCLI("explain", f, "--target", "db"); code != exitInvalid || !strings.Contains(errOut, "NAME=DSN") {
		t.Errorf("a bad --target: exit %d, %q", code, errOut)
	}
}

// explain shows where each iteration's sandbox data goes, and the move when it changes.
func TestExplainShowsSandboxDirMoves(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := filepath.Join(dir, "plan.yaml")
	plan := "version: 1\nname: e\nmatrix: {storage: [" + a + ", " + b + "]}\nrepeat: 2\n" +
		"targets: {db: {sandbox: {dir: \"${{ matrix.storage }}\"}}}\niteration:\n  workload: {builtin: oltp_read_only, duration: 5s}\n"
	if err := os.WriteFile(f, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", f)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The repeats interleave (a b a b, the default order): one start, then a move each time.
	if strings.Count(out, "sandbox db: data under "+a) != 1 || strings.Count(out, "sandbox db: moves to "+b) != 2 || strings.Count(out, "moves to "+a) != 1 {
		t.Errorf("explain does not show one start on %s, then moves to %s, %s and %s:\n%s", a, b, a, b, out)
	}
	// In order: sequential the data moves once, when the cell changes.
	if err := os.WriteFile(f, []byte(plan+"order: sequential\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out, _ = runCLI("explain", f); strings.Count(out, "sandbox db: data under "+a) != 1 || strings.Count(out, "sandbox db: moves to "+b) != 1 || strings.Contains(out, "moves to "+a) {
		t.Errorf("order: sequential: explain does not show one start on %s and one move to %s:\n%s", a, b, out)
	}
}

// A plan that names what the server lacks (found before setup) exits 2, as an invalid plan does.
func TestPlanErrorExits2(t *testing.T) {
	err := fmt.Errorf("run: %w", &executor.PlanError{Err: errors.New("pre-flight: status.X is not a watched column")})
	if code := exitCode(&executor.Outcome{Status: results.StatusError}, err); code != exitInvalid {
		t.Fatalf("exit %d, want %d", code, exitInvalid)
	}
	if code := exitCode(&executor.Outcome{Status: results.StatusError}, errors.New("cannot connect")); code != exitFailed {
		t.Fatalf("exit %d for a failed run, want %d", code, exitFailed)
	}
}
