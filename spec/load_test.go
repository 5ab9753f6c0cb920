package spec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

const basePlan = `version: 1
name: t
targets:
  db: {dsn: "bench:pw@tcp(db1:3307)/sbtest"}
`

func mustLoad(t *testing.T, src string, opts Options) *Plan {
	t.Helper()
	if opts.Env == nil {
		opts.Env = testEnv
	}
	opts = withKinds(opts)
	p, err := LoadBytes("plan.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return p
}

func loadErr(t *testing.T, src string, opts Options) string {
	t.Helper()
	if opts.Env == nil {
		opts.Env = testEnv
	}
	_, err := LoadBytes("plan.yaml", []byte(src), withKinds(opts))
	if err == nil {
		t.Fatalf("plan loaded, want an error")
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error is %T, want Errors", err)
	}
	return err.Error()
}

func cells(p *Plan) []string {
	var out []string
	for _, it := range p.Iterations {
		var parts []string
		for _, av := range it.Matrix {
			parts = append(parts, av.Axis+"="+formatValue(av.Value))
		}
		out = append(out, strings.Join(parts, ",")+"/r"+formatValue(it.Repeat))
	}
	return out
}

func TestMatrixOrderExcludeIncludeRepeat(t *testing.T) {
	p := mustLoad(t, basePlan+`
matrix:
  threads: [8, 64]
  flush: [O_DIRECT, O_DSYNC, fdatasync]
  exclude: [{threads: 8, flush: O_DSYNC}]
  include: [{flush: O_DIRECT, threads: 128}]
repeat: 2
order: sequential
iteration:
  workload: {builtin: oltp_read_write, duration: 1s, threads: "${{ matrix.threads }}"}
`, Options{})
	want := []string{
		"threads=8,flush=O_DIRECT/r1", "threads=8,flush=O_DIRECT/r2",
		"threads=8,flush=fdatasync/r1", "threads=8,flush=fdatasync/r2",
		"threads=64,flush=O_DIRECT/r1", "threads=64,flush=O_DIRECT/r2",
		"threads=64,flush=O_DSYNC/r1", "threads=64,flush=O_DSYNC/r2",
		"threads=64,flush=fdatasync/r1", "threads=64,flush=fdatasync/r2",
		"threads=128,flush=O_DIRECT/r1", "threads=128,flush=O_DIRECT/r2",
	}
	if got := cells(p); !reflect.DeepEqual(got, want) {
		t.Fatalf("iterations:\n got %v\nwant %v", got, want)
	}
	for i, it := range p.Iterations {
		if it.Index != i+1 {
			t.Errorf("iteration %d has index %d", i+1, it.Index)
		}
		th, _ := lookupCell(it.Matrix, "threads")
		if it.Workload.Threads != th {
			t.Errorf("iteration %d: threads %d, matrix says %v", it.Index, it.Workload.Threads, th)
		}
	}
	if p.Iterations[10].Cell != 6 || p.Iterations[11].Repeat != 2 {
		t.Errorf("last iterations: cell %d repeat %d", p.Iterations[10].Cell, p.Iterations[11].Repeat)
	}
}

func TestNoMatrixIsOneIteration(t *testing.T) {
	p := mustLoad(t, basePlan+"iteration:\n  workload: {builtin: oltp_read_only, events: 100}\n", Options{})
	if len(p.Iterations) != 1 || p.Iterations[0].Target != "db" || p.Iterations[0].Workload.Events != 100 {
		t.Fatalf("got %+v", p.Iterations)
	}
	w := p.Iterations[0].Workload
	if w.Threads != 1 || w.ReportInterval != time.Second || w.Action != "run" || !reflect.DeepEqual(w.OnError.Ignore, []int{1213, 1020, 1205}) {
		t.Errorf("defaults not applied: %+v", w)
	}
	if p.Repeat != 1 || p.OnFailure != "continue" || p.Report.Dir != "results" || len(p.Report.Formats) != 3 || p.Watch.Interval != time.Second {
		t.Errorf("plan defaults not applied: repeat %d on_failure %q report %+v", p.Repeat, p.OnFailure, p.Report)
	}
}

func TestExpressionsKeepTypeAndInterpolate(t *testing.T) {
	p := mustLoad(t, basePlan+`
vars:
  n: 4
  ratio: 0.5
  name: "orders"
  dur: 15s
  twice: "${{ vars.n * 2 }}"
  home: "${{ env.HOME }}"
  pw: "${{ env.NOT_SET_ANYWHERE ?? 'dflt' }}"
setup:
  - sql: "CREATE TABLE ${{ vars.name }}_${{ vars.n }} (id INT); SELECT '${{ target.db.host }}:${{ target.db.port }}'"
  - shell: "echo ${{ vars.home }} ${{ vars.pw }}"
iteration:
  globals: {innodb_io_capacity: "${{ vars.twice * 100 }}", innodb_buffer_pool_size: 1G, general_log: "${{ vars.ratio > 0.1 }}"}
  workload:
    builtin: oltp_read_only
    threads: "${{ vars.twice }}"
    duration: "${{ vars.dur }}"
    rate: "${{ vars.ratio }}"
    options: {table_size: "${{ vars.n * 1000 }}"}
`, Options{})
	if v, _ := p.Vars.Lookup("twice"); v != 8 {
		t.Errorf("twice = %#v, want int 8", v)
	}
	if st := *StepBody[*string](&p.Setup[0]); st != "CREATE TABLE orders_4 (id INT); SELECT 'db1:3307'" {
		t.Errorf("sql %q", st)
	}
	if got := *StepBody[*string](&p.Setup[1]); got != "echo /home/dba dflt" {
		t.Errorf("shell %q", got)
	}
	it := p.Iterations[0]
	w := it.Workload
	if w.Threads != 8 || w.Duration != 15*time.Second || w.Rate != 0.5 {
		t.Errorf("workload %+v", w)
	}
	if v, _ := OptionsOf[*Settings](w).Lookup("table_size"); v != 4000 {
		t.Errorf("table_size %#v", v)
	}
	if v, _ := it.Globals.Lookup("innodb_io_capacity"); v != 800 {
		t.Errorf("innodb_io_capacity %#v", v)
	}
	if v, _ := it.Globals.Lookup("innodb_buffer_pool_size"); v != int64(1<<30) {
		t.Errorf("innodb_buffer_pool_size %#v, want bytes", v)
	}
	if v, _ := it.Globals.Lookup("general_log"); v != true {
		t.Errorf("general_log %#v", v)
	}
	if got := []string{it.Globals[0].Name, it.Globals[1].Name, it.Globals[2].Name}; !reflect.DeepEqual(got, []string{"innodb_io_capacity", "innodb_buffer_pool_size", "general_log"}) {
		t.Errorf("globals order %v", got)
	}
}

func TestSetOverrides(t *testing.T) {
	src := basePlan + `
vars: {threads: [1, 2], size: 10, double: "${{ vars.size * 2 }}"}
matrix: {threads: "${{ vars.threads }}"}
iteration:
  workload: {builtin: oltp_read_only, duration: 1s, threads: "${{ matrix.threads }}", options: {table_size: "${{ vars.double }}"}}
`
	p := mustLoad(t, src, Options{Set: []string{"vars.threads=[4, 16, 64]", "size=100"}})
	if len(p.Iterations) != 3 || p.Iterations[2].Workload.Threads != 64 {
		t.Fatalf("iterations %v", cells(p))
	}
	if v, _ := OptionsOf[*Settings](p.Iterations[0].Workload).Lookup("table_size"); v != 200 {
		t.Errorf("a var computed from an overridden one: %#v", v)
	}
	msg := loadErr(t, src, Options{Set: []string{"treads=3"}})
	if !strings.Contains(msg, `--set treads: the plan has no var "treads"; did you mean "threads"?`) {
		t.Errorf("got %q", msg)
	}
}

func TestExtendsMergeKeepsPositions(t *testing.T) {
	fsys := fstest.MapFS{
		"base.yaml": {Data: []byte(basePlan + `
vars: {table_size: 1000, duration: 10s}
watch: {interval: 2s, status: [Com_select]}
iteration:
  workload: {builtin: oltp_read_only, duration: "${{ vars.duration }}", threads: 2}
`)},
		"mid.yaml": {Data: []byte("extends: base.yaml\nvars: {duration: 20s}\nwatch: {status: [Com_update]}\n")},
		"top.yaml": {Data: []byte("extends: mid.yaml\nname: top\niteration:\n  workload: {threds: 4}\n")},
	}
	_, err := Load("top.yaml", withKinds(Options{FS: fsys, Env: testEnv}))
	if err == nil || !strings.Contains(err.Error(), `top.yaml:4:14: unknown key "threds" in workload; did you mean "threads"?`) {
		t.Fatalf("error should point into top.yaml: %v", err)
	}
	fsys["top.yaml"] = &fstest.MapFile{Data: []byte("extends: mid.yaml\nname: top\niteration:\n  workload: {threads: 4}\n")}
	p, err := Load("top.yaml", withKinds(Options{FS: fsys, Env: testEnv}))
	if err != nil {
		t.Fatal(err)
	}
	w := p.Iterations[0].Workload
	if p.Name != "top" || w.Threads != 4 || *Body[*string](w) != "oltp_read_only" || w.Duration != 20*time.Second {
		t.Errorf("merge: name %q workload %+v", p.Name, w)
	}
	if !reflect.DeepEqual(p.Watch.Status, []string{"Com_update"}) || p.Watch.Interval != 2*time.Second {
		t.Errorf("lists replace, maps merge: %+v", p.Watch)
	}
	if got := w.Src.At("builtin").File; got != "base.yaml" {
		t.Errorf("builtin written in %q, want base.yaml", got)
	}
	if got := w.Src.At("threads").File; got != "top.yaml" {
		t.Errorf("threads written in %q, want top.yaml", got)
	}
}

func TestTargetsAndReplicas(t *testing.T) {
	src := `version: 1
name: t
targets:
  primary: {sandbox: {replicas: 2}}
  ext: {dsn: "u:p@unix(/tmp/s.sock)/"}
iteration:
  target: primary
  workload: {builtin: oltp_read_only, duration: 1s}
  during:
    - {at: 1s, sql: "START SLAVE; SELECT ${{ target.primary_replica2.port }}", target: primary_replica2}
`
	p := mustLoad(t, src, Options{})
	if !reflect.DeepEqual(p.Unbound, []string{"primary_replica2"}) {
		t.Errorf("unbound %v", p.Unbound)
	}
	if got := *StepBody[*string](&p.Iterations[0].During[0]); got != "START SLAVE; SELECT <port of primary_replica2>" {
		t.Errorf("unbound port rendered as %q", got)
	}
	p = mustLoad(t, src, Options{Addrs: map[string]Addr{"primary_replica2": {Host: "127.0.0.1", Port: 23306}}})
	if got := *StepBody[*string](&p.Iterations[0].During[0]); got != "START SLAVE; SELECT 23306" || len(p.Unbound) != 0 {
		t.Errorf("bound port rendered as %q (unbound %v)", got, p.Unbound)
	}
	if p.Targets[1].Host != "localhost" || p.Targets[1].Port != 0 {
		t.Errorf("unix socket target %+v", p.Targets[1])
	}
}

func TestRedacted(t *testing.T) {
	env := map[string]string{"BENCH_PASSWORD": "hunter2-secret", "COMMUNITY": "c0mmunity"}
	p := mustLoad(t, `version: 1
name: t
extends: builtin:quickstart
vars: {table_size: 5, pw: "${{ env.BENCH_PASSWORD }}", derived: "x-${{ vars.pw }}"}
targets:
  primary:
    sandbox: null
    dsn: "bench:${{ env.BENCH_PASSWORD }}@tcp(db1:3306)/sbtest"
  other:
    dsn: "root:literal-pw@tcp(db2:3306)/"
    snmp: {address: "db2:161", community: "${{ env.COMMUNITY }}"}
setup:
  - shell: "echo ${{ env.BENCH_PASSWORD }}"
iteration:
  target: primary
`, Options{Env: env, Set: []string{"table_size=7"}})
	out, err := p.Redacted()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, secret := range []string{"hunter2", "literal-pw", "c0mmunity", "BENCH_PASSWORD"} {
		if strings.Contains(s, secret) {
			t.Errorf("redacted plan contains %q:\n%s", secret, s)
		}
	}
	for _, want := range []string{"bench:***@tcp(db1:3306)/sbtest", "root:***@tcp(db2:3306)/", "community: '***'", "table_size: 7", "oltp_read_only",
		`pw: "***"`, `derived: "x-${{ vars.pw }}"`, "duration: 10s"} {
		if !strings.Contains(s, want) {
			t.Errorf("redacted plan lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "extends:") {
		t.Errorf("redacted plan still extends:\n%s", s)
	}
	if got := p.Redact("mysql -phunter2-secret"); got != "mysql -p***" {
		t.Errorf("Redact: %q", got)
	}
	// The redacted plan is itself a plan.
	if _, err := LoadBytes("plan.yaml", out, withKinds(Options{Env: env})); err != nil {
		t.Errorf("redacted plan does not load: %v\n%s", err, s)
	}
}

func TestAssertionsAndWaitCompile(t *testing.T) {
	p := mustLoad(t, basePlan+`
iteration:
  workload: {builtin: oltp_read_only, duration: 1s}
  after:
    - wait: {until: "status.Threads_running < 2 && replica.Seconds_Behind_Master == 0", record_as: settle_s}
  assert: ["tps > 100 && p99_ms < 50", "status.Com_select > 0", "settle_s < 10"]
`, Options{})
	it := p.Iterations[0]
	ok, err := it.Assert[0].EvalBool(map[string]any{"tps": 150.0, "p99_ms": 20.0})
	if err != nil || !ok {
		t.Errorf("assert 0: %v %v", ok, err)
	}
	ok, err = it.Assert[2].EvalBool(map[string]any{"settle_s": 12.0})
	if err != nil || ok {
		t.Errorf("assert 2: %v %v", ok, err)
	}
	w := StepBody[*testWait](&it.After[0])
	ok, err = w.Until.EvalBool(map[string]any{"status": map[string]any{"Threads_running": 1.0}, "replica": map[string]any{"Seconds_Behind_Master": 0.0}})
	if err != nil || !ok {
		t.Errorf("until: %v %v", ok, err)
	}
	if w.Timeout != 10*time.Minute || w.Interval != time.Second || it.After[0].Target != "db" {
		t.Errorf("wait defaults: %+v target %q", w, it.After[0].Target)
	}
}

func TestSuggest(t *testing.T) {
	for _, c := range []struct{ word, want string }{
		{"thread", "threads"}, {"thraeds", "threads"}, {"p99", "p99_ms"}, {"zzz", ""},
	} {
		got := suggest(c.word, []string{"threads", "duration", "p99_ms", "events"})
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, `"`+c.want+`"`) {
			t.Errorf("suggest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

func TestAnchorsMergeKeysAndAliasBomb(t *testing.T) {
	p := mustLoad(t, basePlan+`
x-workload: &wl {builtin: oltp_read_only, duration: 10s, threads: 2}
x-steps: &steps [{sql: "SELECT 1"}, {sleep: 1s}]
iteration:
  workload:
    <<: *wl
    threads: 4
  before: *steps
  after: *steps
`, Options{})
	it := p.Iterations[0]
	if it.Workload.Threads != 4 || *Body[*string](it.Workload) != "oltp_read_only" || len(it.Before) != 2 || len(it.After) != 2 {
		t.Errorf("anchors: %+v", it)
	}
	var b strings.Builder
	b.WriteString(basePlan + "iteration:\n  workload: {builtin: oltp_read_only, duration: 1s}\nvars:\n  l0: &l0 [1,1,1,1,1,1,1,1,1,1]\n")
	for i := 1; i < 8; i++ {
		b.WriteString("  l" + formatValue(i) + ": &l" + formatValue(i) + " [")
		for j := 0; j < 10; j++ {
			b.WriteString("*l" + formatValue(i-1) + ",")
		}
		b.WriteString("]\n")
	}
	if msg := loadErr(t, b.String(), Options{}); !strings.Contains(msg, "too many alias expansions") {
		t.Errorf("alias bomb: %s", msg)
	}
}

// Every question asked of all the steps of a plan is one walk, teardown included.
func TestWalkers(t *testing.T) {
	p, err := LoadBytes("w.yaml", []byte(`version: 1
name: w
targets: {db: {dsn: "u@tcp(127.0.0.1:3306)/x"}}
setup:
  - sql_file: setup.sql
  - workload: {builtin: oltp_read_only, action: prepare, threads: 3}
matrix: {threads: [2, 5]}
iteration:
  before: [{wait: {until: "true", record_as: warm_s}}]
  workload: {builtin: oltp_read_only, threads: "${{ matrix.threads }}", duration: 1s}
teardown:
  - wait: {until: "true", record_as: drain_s}
  - sql_file: setup.sql
`), withKinds(Options{FS: fstest.MapFS{"setup.sql": {Data: []byte("SELECT 1;")}}}))
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	for ps := range p.Steps() {
		phases = append(phases, ps.Phase+"@"+ps.Target)
	}
	if got := strings.Join(phases, " "); got != "setup@db setup@db before@db before@db teardown@db teardown@db" {
		t.Errorf("steps: %s", got)
	}
	if got := strings.Join(p.RecordNames(), " "); got != "warm_s drain_s" {
		t.Errorf("record names: %s", got)
	}
	if p.MaxThreads() != 5 {
		t.Errorf("max threads %d, want 5", p.MaxThreads())
	}
	if files := p.DataFiles(); len(files) != 1 || files[0].File != "setup.sql" {
		t.Errorf("data files %+v", files)
	}
	n := 0
	for range p.Workloads() {
		n++
	}
	if n != 3 {
		t.Errorf("%d workloads, want 3", n)
	}
}
