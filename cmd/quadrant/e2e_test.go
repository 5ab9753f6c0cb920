package main

// End-to-end tests of `quadrant run` as a process: the binary is built once, plans run on
// real MariaDB sandboxes, and the process is interrupted and killed the way a DBA would.

import (
	"bytes"
	"database/sql"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

var quadrantBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "quadrant-bin-")
	if err != nil {
		panic(err)
	}
	quadrantBin = filepath.Join(dir, "quadrant")
	if out, err := exec.Command("go", "build", "-o", quadrantBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build quadrant: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// syncBuffer is a process's output, read by the test while the process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a running quadrant.
type proc struct {
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{}
	exit int
}

func start(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{done: make(chan struct{})}
	p.cmd = exec.Command(quadrantBin, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	p.cmd.Stdin = nil
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.exit = p.cmd.ProcessState.ExitCode()
		if ee, ok := err.(*exec.ExitError); ok && !ee.Exited() {
			p.exit = -1
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.exit
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("quadrant did not finish within %s:\n%s", d, p.out.String())
	}
	return 0
}

// findRunDir finds the one run folder under root.
func findRunDir(t *testing.T, root string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(root, "*", "*", results.RunFile))
	if len(matches) != 1 {
		t.Fatalf("want one results folder under %s, found %v", root, matches)
	}
	return filepath.Dir(matches[0])
}

// waitRows waits until a time series has at least n rows of iteration it.
func waitRows(t *testing.T, p *proc, root, target string, it, n int) string {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("quadrant ended early (exit %d):\n%s", p.exit, p.out.String())
		default:
		}
		if m, _ := filepath.Glob(filepath.Join(root, "*", "*", "timeseries", target+".csv")); len(m) == 1 {
			_, rows, _ := results.ReadTable(m[0])
			count := 0
			for _, r := range rows {
				if r[0] == fmt.Sprint(it) {
					count++
				}
			}
			if count >= n {
				return filepath.Dir(filepath.Dir(m[0]))
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no %d rows of iteration %d in timeseries/%s.csv:\n%s", n, it, target, p.out.String())
	return ""
}

func writePlan(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func global(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	if err := db.QueryRow("SELECT @@GLOBAL." + name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

const smallPrepare = `
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 1000}}
`

// A DBA presses Ctrl-C during a long iteration: the workload stops, globals go back,
// the report is written, and quadrant exits 130.
func TestInterruptRestoresGlobalsAndExits130(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "sigint"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	before := global(t, db, "sync_binlog")
	plan := writePlan(t, fmt.Sprintf(`
version: 1
name: interrupt
targets:
  db: {dsn: "%s"}
%s
iteration:
  globals: {sync_binlog: 7, max_connections: 333}
  workload: {builtin: oltp_point_select, options: {table_size: 1000}, threads: 2, duration: 10m}
`, c.Primary.DSN(""), smallPrepare))
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	dir := waitRows(t, p, root, "db", 1, 2)
	if got := global(t, db, "sync_binlog"); got != "7" {
		t.Fatalf("sync_binlog is %s during the run, want 7", got)
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, time.Minute); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, p.out.String())
	}
	if got := global(t, db, "sync_binlog"); got != before {
		t.Fatalf("sync_binlog %s after the interrupt, want %s restored", got, before)
	}
	if got := global(t, db, "max_connections"); got == "333" {
		t.Fatalf("max_connections not restored")
	}
	ri, err := results.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ri.Status != results.StatusInterrupted || ri.Iterations[0].Status != results.StatusInterrupted {
		t.Fatalf("run.json status %s, iteration %s", ri.Status, ri.Iterations[0].Status)
	}
	if _, err := os.Stat(filepath.Join(dir, results.ReportFile)); err != nil {
		t.Fatalf("no report after the interrupt: %v", err)
	}
	_, rows, _ := results.ReadTable(filepath.Join(dir, results.SummaryFile))
	if len(rows) != 1 || !strings.Contains(strings.Join(rows[0], ","), "interrupted") {
		t.Fatalf("summary rows %v, want the interrupted iteration with what it measured", rows)
	}
	// The interval the interrupt cut short is a row of its own, after the last whole second.
	header, ts, err := results.ReadTable(filepath.Join(dir, results.TimeseriesDir, "db.csv"))
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(header, "elapsed_s")
	prev := math.Inf(-1)
	for _, row := range ts {
		e, err := strconv.ParseFloat(row[col], 64)
		if err != nil || e <= prev {
			t.Fatalf("elapsed_s %q after %v: the time series' elapsed_s must increase (%v)", row[col], prev, ts)
		}
		prev = e
	}
}

// kill -9 of quadrant: the sandbox dies with it (parent-death signal), the folder it
// wrote is valid, and `quadrant report` rebuilds the report from it.
func TestKill9LeavesAValidFolder(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, plantest.Sandbox("killed", "", ``)+smallPrepare+`
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 1000}, threads: 1, duration: 10m}
`)
	root := t.TempDir()
	sandboxes := sandboxtest.Dir(t)
	p := start(t, []string{"TMPDIR=" + sandboxes}, "run", plan, "--out", root)
	dir := waitRows(t, p, root, "db", 1, 3)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t, time.Minute)

	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := exec.Command("pgrep", "-f", sandboxes).Output()
		if len(bytes.TrimSpace(out)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server processes survived kill -9 of quadrant: %s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	_, rows, err := results.ReadTable(filepath.Join(dir, "timeseries", "db.csv"))
	if err != nil || len(rows) < 3 {
		t.Fatalf("time series after kill -9: %d rows, %v", len(rows), err)
	}
	r := start(t, nil, "report", dir)
	if code := r.wait(t, time.Minute); code != 0 {
		t.Fatalf("report exit %d:\n%s", code, r.out.String())
	}
	html, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil || !bytes.Contains(html, []byte(`"tps"`)) {
		t.Fatalf("report.html after kill -9: %v", err)
	}
}

// An interrupted run resumes: finished iterations are kept, the interrupted one runs
// again from its start, and a changed plan is refused.
func TestResume(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, `
version: 1
name: resumed
vars: {rows: 1000}
targets:
  db: {sandbox: {}}
`+smallPrepare+`
matrix:
  threads: [1, 2, 3]
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 1000}, threads: "${{ matrix.threads }}", duration: 3s}
`)
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	dir := waitRows(t, p, root, "db", 2, 1)
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, time.Minute); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, p.out.String())
	}

	bad := start(t, nil, "run", plan, "--resume", dir, "--set", "rows=2000")
	if code := bad.wait(t, time.Minute); code != 2 || !strings.Contains(bad.out.String(), "another resolved plan") {
		t.Fatalf("resume with another plan: exit %d:\n%s", code, bad.out.String())
	}

	r := start(t, nil, "run", plan, "--resume", dir)
	if code := r.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("resume exit %d:\n%s", code, r.out.String())
	}
	_, rows, _ := results.ReadTable(filepath.Join(dir, results.SummaryFile))
	var its []string
	for _, row := range rows {
		its = append(its, row[0])
	}
	if strings.Join(its, ",") != "1,2,3" {
		t.Fatalf("summary iterations %v, want 1,2,3", its)
	}
	header, ts, _ := results.ReadTable(filepath.Join(dir, "timeseries", "db.csv"))
	seen := map[string]bool{}
	for _, row := range ts {
		key := row[0] + "@" + row[1]
		if seen[key] {
			t.Fatalf("time series has iteration %s at %ss twice (header %v)", row[0], row[1], header)
		}
		seen[key] = true
	}
	ri, _ := results.ReadRunInfo(dir)
	if ri.Status != results.StatusDone {
		t.Fatalf("run.json status %s after resume", ri.Status)
	}
}

// A plan with a shell step and no --allow-shell runs nothing and exits 2.
func TestShellWithoutAllowShellRunsNothing(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	plan := writePlan(t, plantest.Sandbox("shelly", "", `setup:
  - shell: "touch `)+marker+`"
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`)
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	if code := p.wait(t, time.Minute); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, p.out.String())
	}
	if !strings.Contains(p.out.String(), "touch "+marker) || !strings.Contains(p.out.String(), "--allow-shell") {
		t.Fatalf("the refusal does not list the command and the flag:\n%s", p.out.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the shell step ran")
	}
	if m, _ := filepath.Glob(filepath.Join(root, "*")); len(m) != 0 {
		t.Fatalf("a refused run created %v", m)
	}
}

// A password given through the environment appears in no file of the results and not
// on the console.
func TestPasswordFromEnvNeverWritten(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "secret"})
	const password = "Qz7-very-secret-pw"
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	for _, stmt := range []string{
		"CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY '" + password + "'",
		"GRANT ALL ON *.* TO 'bench'@'127.0.0.1'",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	plan := writePlan(t, fmt.Sprintf(`
version: 1
name: secret
targets:
  db: {dsn: "bench:${{ env.BENCH_PW }}@tcp(127.0.0.1:%d)/"}
%s
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 1000}, duration: 2s}
`, c.Primary.Port(), smallPrepare))
	root := t.TempDir()
	p := start(t, []string{"BENCH_PW=" + password}, "run", plan, "--out", root)
	if code := p.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out.String())
	}
	if strings.Contains(p.out.String(), password) {
		t.Fatalf("the password is on the console:\n%s", p.out.String())
	}
	dir := findRunDir(t, root)
	files := 0
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		files++
		data, _ := os.ReadFile(path)
		if bytes.Contains(data, []byte(password)) {
			t.Errorf("%s contains the password", path)
		}
		return nil
	})
	if files < 6 {
		t.Fatalf("only %d files in the results folder", files)
	}
	planYAML, _ := os.ReadFile(filepath.Join(dir, results.PlanFile))
	if !bytes.Contains(planYAML, []byte("bench:***@tcp")) {
		t.Fatalf("plan.yaml does not show the redacted DSN:\n%s", planYAML)
	}
}

// The plan `make demo` runs works on a fresh sandbox (prepare makes the database) and
// ends with a report, at a short duration.
func TestQuickstartExampleRuns(t *testing.T) {
	sandboxtest.SkipShort(t)
	root := t.TempDir()
	p := start(t, nil, "run", "../../examples/quickstart.yaml", "--set", "duration=2s", "--set", "table_size=2000", "--out", root)
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out.String())
	}
	dir := findRunDir(t, root)
	_, rows, _ := results.ReadTable(filepath.Join(dir, results.SummaryFile))
	if len(rows) != 2 {
		t.Fatalf("summary rows %v, want the two thread counts", rows)
	}
	for _, f := range []string{results.ReportFile, "summary.json", "timeseries/primary.csv", "histograms/primary/iteration-0002.hlog"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("quickstart results lack %s", f)
		}
	}
	if !strings.Contains(p.out.String(), "report: "+filepath.Join(dir, results.ReportFile)) {
		t.Errorf("the run does not say where the report is:\n%s", p.out.String())
	}
}

// Every shipped example and template runs to the end on a sandbox, at small sizes:
// they are what a DBA copies first.
func TestExamplesRun(t *testing.T) {
	sandboxtest.SkipShort(t)
	binlogDir := sandboxtest.Dir(t) // the server's user writes binary logs under it
	for _, c := range []struct {
		name  string
		args  []string
		check func(t *testing.T, run *results.Run) // what the experiment must show, beyond finishing
	}{
		{"binlog", []string{"--set", "table_size=1000", "--set", "duration=1s"}, nil},
		{"flush-method", []string{"--set", "table_size=1000", "--set", "threads=[2]", "--set", "duration=1s", "--set", "warmup=0s"}, nil},
		{"logging-overhead", []string{"--set", "table_size=1000", "--set", "threads=2", "--set", "duration=1s", "--allow-shell"}, nil},
		{"replica-catchup", []string{"--set", "table_size=1000", "--set", "backlog=2s", "--set", "threads=[2]"}, checkReplicaCatchup},
		{"cold-vs-warm", []string{"--set", "table_size=5000", "--set", "threads=2", "--set", "duration=2s", "--set", "buffer_pool=64M",
			"--set", "tables=2", "--set", "repeat=1", "--allow-shell"}, checkColdVsWarm},
		{"semisync-replay", nil, nil},
		{"tpcc", []string{"--set", "threads=[2]", "--set", "duration=2s", "--set", "warmup=0s"}, nil},
		{"knee", []string{"--set", "table_size=1000", "--set", "stage=1s"}, checkKnee},
		{"skewed-access", []string{"--set", "table_size=1000", "--set", "duration=1s", "--set", "threads=2"}, checkSkewedAccess},
		// The templates the examples do not extend.
		{"builtin:sysbench-oltp", []string{"--set", "table_size=1000", "--set", "tables=1", "--set", "threads=[2]", "--set", "duration=1s", "--set", "warmup=0s"}, nil},
		{"builtin:semisync-replay", []string{"--set", "rows=300", "--set", "rtt=[0ms, 20ms]"}, checkSemisyncRTT},
		{"nfs-replica-attach", []string{"--set", "table_size=1000", "--set", "duration=4s", "--set", "attach_at=2s",
			"--set", "binlog_dirs=[" + binlogDir + "/a, " + binlogDir + "/b]", "--allow-shell", "--allow-path", binlogDir}, checkReplicaAttach},
		// The example replaces the template's setup: the template's own runs here too.
		{"builtin:replica-attach", []string{"--set", "table_size=1000", "--set", "threads=2", "--set", "duration=4s", "--set", "attach_at=2s"}, checkReplicaAttach},
		{"builtin:galera-cost", []string{"--set", "rows=100", "--set", "duration=2s", "--set", "warmup=0s", "--set", "threads=[3]", "--set", "repeat=1",
			"--set", "drill_duration=60s", "--set", "drill_at=2s", "--set", "down=1s"}, checkGaleraCost},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			path := "../../examples/" + c.name + ".yaml"
			if tmpl, ok := strings.CutPrefix(c.name, "builtin:"); ok {
				path = "../../templates/" + tmpl + ".yaml"
			}
			args := append([]string{"run", path, "--out", root}, c.args...)
			p := start(t, nil, args...)
			if code := p.wait(t, 5*time.Minute); code != 0 {
				dir := findRunDir(t, root)
				log, _ := os.ReadFile(filepath.Join(dir, results.LogFile))
				t.Fatalf("exit %d:\n%s\nlog.txt:\n%s", code, p.out.String(), log)
			}
			run, err := results.Load(findRunDir(t, root))
			if err != nil {
				t.Fatalf("results: %v", err)
			}
			if run.Info.Status != results.StatusDone {
				t.Fatalf("run.json: status %s, want %s", run.Info.Status, results.StatusDone)
			}
			if c.check != nil {
				c.check(t, run)
			}
		})
	}
}

// checkKnee: the thread ramp's five stages each have a summary row at their level.
func checkKnee(t *testing.T, run *results.Run) {
	t.Helper()
	if len(run.Summary.Rows) != 1 || len(run.Stages.Rows) != 5 {
		t.Fatalf("%d iteration rows and %d stage rows, want 1 and 5", len(run.Summary.Rows), len(run.Stages.Rows))
	}
	for i := range run.Stages.Rows {
		if v, ok := run.Stages.Float(i, "transactions"); !ok || v <= 0 || run.Stages.Value(i, "stage") != strconv.Itoa(i+1) {
			t.Fatalf("stage row %d: %v", i, run.Stages.Rows[i])
		}
	}
}

// checkSkewedAccess: both access patterns ran with their per-statement columns.
func checkSkewedAccess(t *testing.T, run *results.Run) {
	t.Helper()
	S := run.Summary
	if len(S.Rows) != 2 || S.Value(0, "rand_type") != "uniform" || S.Value(1, "rand_type") != "zipfian" {
		t.Fatalf("summary rows %v", S.Rows)
	}
	for i := range S.Rows {
		if v, ok := S.Float(i, "stmt.index_update.p99_ms"); !ok || v <= 0 {
			t.Fatalf("row %d: stmt.index_update.p99_ms %q", i, S.Value(i, "stmt.index_update.p99_ms"))
		}
	}
}

// The colleague flow: a published run is rerun against another server with --target
// (its data file travels in the results folder), then compared with the original.
func TestRerunOnAnotherServerThenCompare(t *testing.T) {
	sandboxtest.SkipShort(t)
	planDir := t.TempDir()
	os.WriteFile(filepath.Join(planDir, "schema.sql"), []byte("CREATE DATABASE IF NOT EXISTS app;\nCREATE TABLE IF NOT EXISTS app.t (id INT PRIMARY KEY);\n"), 0o644)
	plan := filepath.Join(planDir, "plan.yaml")
	os.WriteFile(plan, []byte(plantest.Sandbox("published", "", `setup:
  - sql_file: schema.sql
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 500}}
matrix:
  threads: [1, 2]
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 500}, threads: "${{ matrix.threads }}", duration: 1s}
`)), 0o644)
	first := t.TempDir()
	p := start(t, nil, "run", plan, "--out", first)
	if code := p.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("run exit %d:\n%s", code, p.out.String())
	}
	published := findRunDir(t, first)
	if _, err := os.Stat(filepath.Join(published, "schema.sql")); err != nil {
		t.Fatalf("the data file did not travel with the results: %v", err)
	}

	// "Their" server: a sandbox of the test's own, reached by DSN.
	c := sandboxtest.Start(t, sandbox.Options{Name: "theirs"})
	second := t.TempDir()
	r := start(t, nil, "rerun", published, "--target", "db="+c.Primary.DSN(""), "--out", second)
	if code := r.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("rerun exit %d:\n%s", code, r.out.String())
	}
	rerun := findRunDir(t, second)
	ri, _ := results.ReadRunInfo(rerun)
	if ri.Targets[0].Kind != "dsn" || !strings.Contains(ri.Targets[0].Address, fmt.Sprint(c.Primary.Port())) {
		t.Fatalf("the rerun did not run on the given server: %+v", ri.Targets[0])
	}
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'app'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("schema.sql did not run on their server: %d tables, %v", n, err)
	}

	html := filepath.Join(t.TempDir(), "cmp.html")
	cmp := start(t, nil, "compare", published, rerun, "--out", html)
	if code := cmp.wait(t, time.Minute); code != 0 {
		t.Fatalf("compare exit %d:\n%s", code, cmp.out.String())
	}
	out := cmp.out.String()
	// The sandbox's password is in the DSN given to --target: the comparison names the
	// override with the password hidden.
	for _, want := range []string{"threads=1 @db", "threads=2 @db", "verdict (run 2 vs run 1)", "ran a different plan", "--target db=root:***@tcp", "targets.db.dsn: added", "comparison: " + html} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, c.Password()) {
		t.Errorf("compare printed the sandbox's password:\n%s", out)
	}
	if _, err := os.Stat(html); err != nil {
		t.Errorf("no comparison page: %v", err)
	}
}

// Exit codes: 1 when an assertion is false; with on_failure: stop the rest is skipped.
func TestAssertionFailureExits1AndOnFailureStop(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, plantest.Sandbox("asserted", "", `setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 100}}
matrix:
  threads: [1, 2]
on_failure: stop
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 100}, threads: "${{ matrix.threads }}", duration: 1s}
  assert: ["p99_ms > 60000"]
`))
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	if code := p.wait(t, 2*time.Minute); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, p.out.String())
	}
	ri, _ := results.ReadRunInfo(findRunDir(t, root))
	if ri.Iterations[0].Status != results.StatusFailed || ri.Iterations[1].Status != results.StatusSkipped {
		t.Fatalf("iterations %s, %s; want failed, skipped", ri.Iterations[0].Status, ri.Iterations[1].Status)
	}
}

// drop_caches as a user who is not root fails its step with what to do; it never pretends.
func TestDropCachesWithoutRootFailsClearly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run quadrant as another user; CI runs as root")
	}
	c := sandboxtest.Start(t, sandbox.Options{Name: "nonroot"})
	plan := writePlan(t, fmt.Sprintf(`
version: 1
name: nonroot
targets:
  db: {dsn: "%s"}
setup:
  - drop_caches: true
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`, c.Primary.DSN("")))
	os.Chmod(filepath.Dir(plan), 0o755)
	root := t.TempDir()
	os.Chmod(root, 0o777)
	os.Chmod(filepath.Dir(root), 0o755)
	exe := filepath.Join(root, "quadrant")
	data, _ := os.ReadFile(quadrantBin)
	os.WriteFile(exe, data, 0o755)
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", exe, "run", plan, "--out", root, "--allow-shell")
	cmd.Env = append(os.Environ(), "HOME="+root)
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("exit %d, want 3 (the run failed):\n%s", code, out)
	}
	if !strings.Contains(string(out), "drop_caches needs root") || !strings.Contains(string(out), "run quadrant as root") {
		t.Fatalf("the failure does not say why and what to do:\n%s", out)
	}
}

// A second Ctrl-C exits at once and still leaves no server and no sandbox directory.
func TestSecondInterruptExitsAtOnceLeavingNoSandbox(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, plantest.Sandbox("twice", "", `setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 100}}
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 100}, duration: 10m}
teardown:
  - sleep: 10m
`))
	root, tmp := t.TempDir(), sandboxtest.Dir(t)
	p := start(t, []string{"TMPDIR=" + tmp}, "run", plan, "--out", root)
	waitRows(t, p, root, "db", 1, 2)
	p.cmd.Process.Signal(syscall.SIGINT) // the teardown's long sleep now holds the run
	time.Sleep(500 * time.Millisecond)
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, 30*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, p.out.String())
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		procs, _ := exec.Command("pgrep", "-f", tmp).Output()
		left, _ := filepath.Glob(filepath.Join(tmp, "quadrant-*"))
		if len(bytes.TrimSpace(procs)) == 0 && len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a second Ctrl-C: processes %q, directories %v", procs, left)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// summaryRows are the summary.csv rows of target, in iteration order.
func summaryRows(run *results.Run, target string) []int {
	var idx []int
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, "target") == target {
			idx = append(idx, i)
		}
	}
	return idx
}

// The template's round trip between primary and replica (sandbox.links) is paid by every
// semi-synchronous commit: at 20 ms its commit p50 is at least 20 ms (a lower bound only);
// run.json has the link of every iteration as configured and as measured.
func checkSemisyncRTT(t *testing.T, run *results.Run) {
	matrix := map[string]map[string]string{}
	set := map[string]float64{} // the round trip each iteration's link was set to (calibration lowers it by the proxy's own cost)
	for _, it := range run.Info.Iterations {
		m := map[string]string{}
		for _, f := range it.Matrix {
			m[f.Name] = f.Value
		}
		matrix[strconv.Itoa(it.Index)] = m
		if len(it.Links) != 1 || it.Links[0].Name() != "primary -> primary_replica1" || it.Links[0].Measured == nil {
			t.Errorf("iteration %d: links %+v, want primary -> primary_replica1, measured", it.Index, it.Links)
			continue
		}
		l := it.Links[0]
		set[strconv.Itoa(it.Index)] = l.Configured.RTTMs
		if l.SetRTTMs > 0 {
			set[strconv.Itoa(it.Index)] = l.SetRTTMs
		}
		want := map[string]float64{"0ms": 0, "20ms": 20}[m["rtt"]]
		if s := set[strconv.Itoa(it.Index)]; l.Configured.RTTMs != want || s < want/2 || l.Measured.RTTMsP50 < s {
			t.Errorf("iteration %d (rtt %s): link configured %+v, set to %v, measured %+v", it.Index, m["rtt"], l.Configured, s, *l.Measured)
		}
	}
	checked := 0
	for _, i := range summaryRows(run, "primary") {
		m := matrix[run.Summary.Value(i, "iteration")]
		if m["rtt"] != "20ms" || m["replication"] != "semisync" {
			continue
		}
		checked++
		// the link never delivers before its time: a commit waits at least the round trip set
		if p50, ok := run.Summary.Float(i, "p50_ms"); !ok || p50 < set[run.Summary.Value(i, "iteration")] {
			t.Errorf("semi-sync at a 20 ms round trip (set to %v): commit p50 %q ms, want at least that", set[run.Summary.Value(i, "iteration")], run.Summary.Value(i, "p50_ms"))
		}
	}
	if checked == 0 {
		t.Errorf("no semi-sync iteration at rtt 20ms among %v", matrix)
	}
}

// The marker table ends the wait: every iteration records how long the replica took.
func checkReplicaCatchup(t *testing.T, run *results.Run) {
	rows := summaryRows(run, "primary")
	if len(rows) == 0 {
		t.Fatalf("no summary row of the primary: %v", run.Summary.Rows)
	}
	for _, i := range rows {
		if v, ok := run.Summary.Float(i, "catchup_s"); !ok || v <= 0 {
			t.Errorf("iteration %s: catchup_s %q", run.Summary.Value(i, "iteration"), run.Summary.Value(i, "catchup_s"))
		}
	}
}

// The replica is stopped for the first seconds of each iteration and replicating at its
// end, the primary is measured every second throughout, and the catch-up is timed.
func checkReplicaAttach(t *testing.T, run *results.Run) {
	checkReplicaCatchup(t, run)
	replica, primary := run.Timeseries["primary_replica1"], run.Timeseries["primary"]
	if replica == nil || primary == nil || replica.Col("repl.io_running") < 0 {
		t.Fatalf("time series of %v; the replica's lacks repl.io_running", run.Targets)
	}
	for _, it := range run.Info.Iterations {
		iter := strconv.Itoa(it.Index)
		var running []string
		for i := range replica.Rows {
			if replica.Value(i, "iteration") == iter {
				running = append(running, replica.Value(i, "repl.io_running"))
			}
		}
		if len(running) < 3 || running[0] != "0" || running[len(running)-1] != "1" {
			log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
			t.Errorf("iteration %s: the replica's IO thread per second %v, want stopped (0) first and running (1) at the end\nlog.txt:\n%s", iter, running, log)
		}
		seconds := 0
		for i := range primary.Rows {
			if v, ok := primary.Float(i, "tps"); ok && v > 0 && primary.Value(i, "iteration") == iter {
				seconds++
			}
		}
		if seconds < 3 {
			t.Errorf("iteration %s: %d seconds of primary throughput in its time series, want one a second", iter, seconds)
		}
	}
}

// The cold iteration reads from storage what the warm one finds in the buffer pool.
func checkColdVsWarm(t *testing.T, run *results.Run) {
	reads := map[string]float64{}
	for _, i := range summaryRows(run, "primary") {
		v, ok := run.Summary.Float(i, "status.Innodb_buffer_pool_reads")
		if !ok {
			t.Fatalf("no status.Innodb_buffer_pool_reads in summary.csv: %v", run.Summary.Header)
		}
		reads[run.Summary.Value(i, "cache")] = v
	}
	t.Logf("Innodb_buffer_pool_reads while measured: %v", reads)
	if cold, warm := reads["cold"], reads["warm"]; !(cold > 0) || !(warm < cold) {
		t.Errorf("buffer pool reads from storage: cold %v, warm %v; want the cold iteration to read and the warm one to read less", cold, warm)
	}
}
