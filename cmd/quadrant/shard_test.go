package main

// Sharded runs as a DBA runs them on several client machines, here as processes on one:
// three `run --shard k/3` against one server, started apart, then `merge` and `report`.

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

const shardPlan = `
version: 1
name: sharded
targets:
  db: {dsn: "%s"}
%s
iteration:
  workload: {builtin: oltp_point_select, options: {tables: 3, table_size: 1000}, threads: 3, duration: %s}
  assert:
    - "transactions > 0"
    - "tps < 0"
`

// runShards runs plan (named name) as n shards of run id, started together, waits until each
// ends (within wait) and fails the test on a shard that did not end well; it returns the
// results root and the shards' folders, in shard order.
func runShards(t *testing.T, plan, name, id string, n int, wait time.Duration) (string, []string) {
	t.Helper()
	root := t.TempDir()
	var procs []*proc
	for k := range n {
		procs = append(procs, start(t, nil, "run", plan, "--shard", fmt.Sprintf("%d/%d", k, n), "--run-id", id, "--out", root, "--barrier-timeout", "5m"))
	}
	var dirs []string
	for k, p := range procs {
		if code := p.wait(t, wait); code != 0 {
			t.Fatalf("shard %d exit %d:\n%s", k, code, p.out.String())
		}
		dirs = append(dirs, filepath.Join(root, name, id, fmt.Sprintf("shard-%d", k)))
	}
	return root, dirs
}

// shardServer is the server a test's shards share: the processes of a sharded run reach
// one server, as client machines do.
func shardServer(t *testing.T) (string, *sql.DB, *sandbox.Cluster) {
	t.Helper()
	c := sandboxtest.Start(t, sandbox.Options{Name: "shards"})
	dsn := c.Primary.DSN("")
	return dsn, sandboxtest.DB(t, dsn, 0), c
}

func TestShardsTogether(t *testing.T) {
	dsn, db, _ := shardServer(t)
	text := fmt.Sprintf(shardPlan, dsn, `
setup:
  - workload: {builtin: oltp_point_select, action: prepare, threads: 3, options: {tables: 3, table_size: 1000}}
  - sql: "CREATE TABLE sbtest.during_log (v INT)"
`, "3s")
	// Steps are the leader's: the during step inserts one row, not three.
	text = strings.Replace(text, "  assert:", "  during:\n    - {at: 1s, sql: \"INSERT INTO sbtest.during_log VALUES (1)\"}\n  assert:", 1)
	plan := writePlan(t, text)
	root := t.TempDir()
	var procs []*proc
	for k := range 3 {
		if k > 0 {
			time.Sleep(1500 * time.Millisecond) // started apart, as machines are
		}
		procs = append(procs, start(t, nil, "run", plan, "--shard", fmt.Sprintf("%d/3", k), "--run-id", "r1", "--out", root, "--barrier-timeout", "2m"))
	}
	var dirs []string
	for k, p := range procs {
		if code := p.wait(t, 3*time.Minute); code != 0 {
			t.Fatalf("shard %d exit %d:\n%s", k, code, p.out.String())
		}
		dirs = append(dirs, filepath.Join(root, "sharded", "r1", fmt.Sprintf("shard-%d", k)))
	}
	// prepare was split: each shard created the tables it owns, all three exist and are full.
	for n := 1; n <= 3; n++ {
		var rows int
		if err := db.QueryRow(fmt.Sprintf("SELECT COUNT(*) FROM sbtest.sbtest%d", n)).Scan(&rows); err != nil || rows != 1000 {
			t.Fatalf("sbtest%d: %d rows, %v", n, rows, err)
		}
		owner := dirs[(n-1)%3]
		if log, _ := os.ReadFile(filepath.Join(owner, results.LogFile)); !strings.Contains(string(log), fmt.Sprintf("prepared sbtest%d ", n)) {
			t.Errorf("shard folder %s did not prepare sbtest%d:\n%s", owner, n, log)
		}
	}
	// They began measuring together: the recorded wake-ups at the start barrier, in
	// the server's clock, are within 50 ms. These are recorded facts, but a sleep
	// overshoots on a loaded machine: with more runnable work than cores the slack
	// grows to 250 ms (and the test says so).
	slack := 50 * time.Millisecond
	if load, err := loadAvg(); err == nil && load > float64(runtime.NumCPU()) {
		slack = 250 * time.Millisecond
		t.Logf("load average %.1f on %d cores: allowing %s between shards' starts", load, runtime.NumCPU(), slack)
	}
	var first, last time.Time
	var total float64
	for k, d := range dirs {
		ri, err := results.ReadRunInfo(d)
		if err != nil {
			t.Fatal(err)
		}
		if ri.Shard == nil || ri.Shard.Index != k || ri.Shard.Count != 3 || ri.Shard.RunID != "r1" {
			t.Fatalf("shard %d: run.json shard %+v", k, ri.Shard)
		}
		var woke time.Time
		for _, m := range ri.Shard.Meetings {
			if m.Point == "iteration 1 start" {
				woke = m.Woke
				t.Logf("shard %d: woke %s (late %.3f ms, offset %.3f ms, rtt %.3f ms, waited %.0f ms)", k, m.Woke.Format(time.RFC3339Nano), m.LateMs, m.OffsetMs, m.RTTMs, m.WaitedMs)
			}
		}
		if woke.IsZero() {
			t.Fatalf("shard %d: no start meeting in run.json: %+v", k, ri.Shard.Meetings)
		}
		if first.IsZero() || woke.Before(first) {
			first = woke
		}
		if woke.After(last) {
			last = woke
		}
		if ri.Iterations[0].Status != results.StatusDone || len(ri.Iterations[0].Failed) > 0 {
			t.Errorf("shard %d evaluated assertions or failed: %+v", k, ri.Iterations[0])
		}
		sum, err := results.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := sum.Summary.Float(0, "transactions")
		if !ok || v <= 0 {
			t.Fatalf("shard %d: transactions %v", k, sum.Summary.Value(0, "transactions"))
		}
		total += v
		hasStatus := false
		for _, h := range sum.Timeseries["db"].Header {
			hasStatus = hasStatus || strings.HasPrefix(h, "status.")
		}
		if hasStatus != (k == 0) {
			t.Errorf("shard %d: status columns %v; only the leader watches", k, hasStatus)
		}
	}
	if spread := last.Sub(first); spread > slack {
		t.Errorf("shards began %s apart, want within %s", spread, slack)
	}
	var during int
	if err := db.QueryRow("SELECT COUNT(*) FROM sbtest.during_log").Scan(&during); err != nil || during != 1 {
		t.Errorf("the during step ran %d times (%v), want once, by the leader", during, err)
	}
	var left int
	if err := db.QueryRow("SELECT COUNT(*) FROM quadrant.quadrant_barrier WHERE run_id = 'r1'").Scan(&left); err != nil || left != 0 {
		t.Errorf("%d barrier rows left (%v)", left, err)
	}

	out := filepath.Join(t.TempDir(), "merged")
	m := start(t, nil, "merge", dirs[0], dirs[1], dirs[2], "--out", out)
	if code := m.wait(t, time.Minute); code != exitAssert {
		t.Fatalf("merge exit %d, want 1 (tps < 0 is false on the merged numbers):\n%s", code, m.out.String())
	}
	mr, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := mr.Summary.Float(0, "transactions")
	if got != total {
		t.Errorf("merged transactions %v, shards' sum %v", got, total)
	}
	it := mr.Info.Iterations[0]
	if it.Status != results.StatusFailed || len(it.Failed) != 1 || !strings.Contains(it.Failed[0], "tps < 0") {
		t.Errorf("merged iteration %+v: want failed on tps < 0 only", it)
	}
	hasStatus := false
	for _, h := range mr.Timeseries["db"].Header {
		hasStatus = hasStatus || strings.HasPrefix(h, "status.")
	}
	if !hasStatus || len(mr.Timeseries["db"].Rows) < 3 {
		t.Errorf("merged time series: %d rows, status columns %v", len(mr.Timeseries["db"].Rows), hasStatus)
	}
	if p99, ok := mr.Summary.Float(0, "p99_ms"); !ok || p99 <= 0 {
		t.Errorf("merged p99_ms %q", mr.Summary.Value(0, "p99_ms"))
	}
	rep := start(t, nil, "report", out)
	if code := rep.wait(t, time.Minute); code != 0 {
		t.Fatalf("report on the merged folder: exit %d:\n%s", code, rep.out.String())
	}
	if _, err := os.Stat(filepath.Join(out, results.ReportFile)); err != nil {
		t.Fatal(err)
	}
	cmp := start(t, nil, "compare", dirs[0], out)
	if code := cmp.wait(t, time.Minute); code != 0 || !strings.Contains(cmp.out.String(), "tps") {
		t.Fatalf("compare a shard with the merged folder: exit %d:\n%s", code, cmp.out.String())
	}

	// pack + merge from archives gives the same numbers.
	var archives []string
	for k, d := range dirs {
		a := filepath.Join(t.TempDir(), fmt.Sprintf("shard-%d.tgz", k))
		f, err := os.Create(a)
		if err != nil {
			t.Fatal(err)
		}
		if code := run([]string{"pack", d}, f, os.Stderr); code != 0 {
			t.Fatalf("pack exit %d", code)
		}
		f.Close()
		archives = append(archives, a)
	}
	out2 := filepath.Join(t.TempDir(), "merged")
	m2 := start(t, nil, append([]string{"merge"}, append(archives, "--out", out2)...)...)
	m2.wait(t, time.Minute)
	mr2, err := results.Load(out2)
	if err != nil {
		t.Fatalf("merge of archives: %v\n%s", err, m2.out.String())
	}
	if v, _ := mr2.Summary.Float(0, "transactions"); v != total {
		t.Errorf("merged from archives: transactions %v, want %v", v, total)
	}
}

// The flow a cluster runs: the manifests quadrant kube prints, decoded strictly into
// the Kubernetes types, their container args run as local processes with
// JOB_COMPLETION_INDEX set as the Job controller sets it (and $(VAR) expanded as the
// kubelet does), the ConfigMap's files where the volume would put them, the Secret's
// keys as environment; then merge.
func TestShardsKubeManifests(t *testing.T) {
	dsn, _, c := shardServer(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sql"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sql", "setup.sql"), []byte("CREATE DATABASE IF NOT EXISTS sbtest;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	planDSN := strings.Replace(dsn, c.Password(), "${{ env.DB_PASSWORD }}", 1)
	planFile := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(planFile, []byte(fmt.Sprintf(shardPlan, planDSN, "setup:\n  - sql_file: sql/setup.sql\n"+
		"  - workload: {builtin: oltp_point_select, action: prepare, threads: 3, options: {tables: 3, table_size: 1000}}\n", "2s")), 0o644); err != nil {
		t.Fatal(err)
	}
	var manifests strings.Builder
	var errOut strings.Builder
	if code := run([]string{"kube", planFile, "--shards", "3", "--image", "quadrant:test", "--secret", "db-creds", "--results-pvc", "results", "--run-id", "k1", "--barrier-timeout", "2m", "--deadline", "30m"}, &manifests, &errOut); code != 0 {
		t.Fatalf("kube exit %d: %s", code, errOut.String())
	}
	docs := strings.Split(manifests.String(), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("want 2 manifests, got %d:\n%s", len(docs), manifests.String())
	}
	var cm corev1.ConfigMap
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &cm); err != nil {
		t.Fatalf("ConfigMap: %v\n%s", err, docs[0])
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &job); err != nil {
		t.Fatalf("Job: %v\n%s", err, docs[1])
	}
	js := job.Spec
	pod := js.Template.Spec
	switch {
	case job.Kind != "Job" || job.APIVersion != "batch/v1" || cm.Kind != "ConfigMap":
		t.Fatalf("kinds %s %s / %s", job.APIVersion, job.Kind, cm.Kind)
	case js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion:
		t.Errorf("completionMode %v", js.CompletionMode)
	case js.Completions == nil || *js.Completions != 3 || js.Parallelism == nil || *js.Parallelism != 3:
		t.Errorf("completions %v parallelism %v", js.Completions, js.Parallelism)
	case js.BackoffLimitPerIndex == nil || *js.BackoffLimitPerIndex != 0:
		t.Errorf("backoffLimitPerIndex %v", js.BackoffLimitPerIndex)
	case js.PodReplacementPolicy == nil || *js.PodReplacementPolicy != batchv1.Failed:
		t.Errorf("podReplacementPolicy %v", js.PodReplacementPolicy)
	case js.ActiveDeadlineSeconds == nil || *js.ActiveDeadlineSeconds < 3:
		t.Errorf("activeDeadlineSeconds %v", js.ActiveDeadlineSeconds)
	case pod.RestartPolicy != corev1.RestartPolicyNever:
		t.Errorf("restartPolicy %s", pod.RestartPolicy)
	case pod.Affinity == nil || pod.Affinity.PodAntiAffinity == nil || len(pod.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
		pod.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname":
		t.Errorf("anti-affinity %+v", pod.Affinity)
	case len(pod.Containers) != 1 || len(pod.Containers[0].EnvFrom) != 1 || pod.Containers[0].EnvFrom[0].SecretRef.Name != "db-creds":
		t.Errorf("containers %+v", pod.Containers)
	}
	if strings.Contains(manifests.String(), c.Password()) {
		t.Fatal("the manifests hold the password")
	}
	// The ConfigMap's files, where the plan volume mounts them.
	planDir, resultsDir := filepath.Join(t.TempDir(), "plan"), t.TempDir()
	mounts := map[string]string{}
	for _, m := range pod.Containers[0].VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	for _, v := range pod.Volumes {
		if v.ConfigMap == nil {
			continue
		}
		for _, item := range v.ConfigMap.Items {
			p := filepath.Join(planDir, item.Path)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(cm.Data[item.Key]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var procs []*proc
	for k := range 3 {
		env := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(k), "DB_PASSWORD": c.Password()}
		var args []string
		for _, a := range pod.Containers[0].Args {
			a = os.Expand(strings.NewReplacer("$(", "${", ")", "}").Replace(a), func(v string) string { return env[v] })
			a = strings.ReplaceAll(a, mounts["plan"], planDir)
			a = strings.ReplaceAll(a, mounts["results"], resultsDir)
			args = append(args, a)
		}
		procs = append(procs, start(t, []string{"JOB_COMPLETION_INDEX=" + env["JOB_COMPLETION_INDEX"], "DB_PASSWORD=" + env["DB_PASSWORD"]}, args...))
	}
	var dirs []string
	var total float64
	for k, p := range procs {
		if code := p.wait(t, 3*time.Minute); code != 0 {
			t.Fatalf("pod %d: exit %d:\n%s", k, code, p.out.String())
		}
		d := filepath.Join(resultsDir, "sharded", "k1", fmt.Sprintf("shard-%d", k))
		r, err := results.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := r.Summary.Float(0, "transactions")
		total += v
		dirs = append(dirs, d)
	}
	out := filepath.Join(t.TempDir(), "merged")
	m := start(t, nil, append([]string{"merge"}, append(dirs, "--out", out)...)...)
	if code := m.wait(t, time.Minute); code != exitAssert {
		t.Fatalf("merge exit %d, want 1 (tps < 0):\n%s", code, m.out.String())
	}
	mr, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := mr.Summary.Float(0, "transactions"); v != total || v <= 0 {
		t.Errorf("merged transactions %v, want %v", v, total)
	}
}

// tpcc's prepare split: the leader's tables and items, each shard's warehouses, the
// leader's indexes after all are in; then a short run over both.
func TestShardsTpcc(t *testing.T) {
	dsn, db, _ := shardServer(t)
	plan := writePlan(t, fmt.Sprintf(`
version: 1
name: shardedtpcc
targets:
  db: {dsn: "%s"}
setup:
  - workload: {builtin: tpcc, action: prepare, threads: 2, options: {warehouses: 2}}
iteration:
  workload: {builtin: tpcc, options: {warehouses: 2}, threads: 2, duration: 2s}
`, dsn))
	root, dirs := runShards(t, plan, "shardedtpcc", "t1", 2, 10*time.Minute)
	var n, idx int
	if err := db.QueryRow("SELECT COUNT(*) FROM tpcc.warehouse").Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d warehouses (%v)", n, err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = 'tpcc' AND index_name = 'idx_customer'").Scan(&idx); err != nil || idx == 0 {
		t.Fatalf("no idx_customer after the load (%v)", err)
	}
	log, _ := os.ReadFile(filepath.Join(root, "shardedtpcc", "t1", "shard-1", results.LogFile))
	if !strings.Contains(string(log), "warehouse 2 loaded") || strings.Contains(string(log), "warehouse 1 loaded") || !strings.Contains(string(log), "shard 1/2 loaded its 1 warehouse") {
		t.Errorf("shard 1 did not load warehouse 2 alone:\n%s", log)
	}
	// The merge recomputes each transaction's percentiles from the shards' tx.NAME
	// histograms: the same figures as the two .hlog files added up by hand.
	out := filepath.Join(t.TempDir(), "merged")
	if code := start(t, nil, "merge", dirs[0], dirs[1], "--out", out).wait(t, time.Minute); code != 0 {
		t.Fatalf("merge exit %d", code)
	}
	mr, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	// tpcc's own metrics are the folders' to describe (run.json): the merge, which knows no
	// kind, sums tpmC over the shards and the merged folder leads with it.
	if c := mr.Describe(results.SummaryCSV, "tpmC"); c.Role != results.RoleMetric || c.Merge != results.MergeSum || c.Better != measure.Higher {
		t.Errorf("merged tpmC is described as %+v, want a metric summed over the shards", c)
	}
	if h := mr.Headline(); len(h) == 0 || h[0] != "tpmC" {
		t.Errorf("merged headline %v, want tpmC first", h)
	}
	index := mr.Info.Iterations[0].Index
	byTag := map[string]*measure.Histogram{}
	for _, d := range dirs {
		lines, err := results.ReadHistogramIntervals(results.HistogramPath(d, "db", index))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if byTag[l.Tag] == nil {
				byTag[l.Tag] = measure.NewHistogram()
			}
			byTag[l.Tag].Merge(l.H)
		}
	}
	checked := 0
	for _, h := range mr.Summary.Header {
		name, ok := strings.CutSuffix(h, ".p95_ms")
		if !ok || !strings.HasPrefix(name, "tx.") {
			continue
		}
		x := byTag[results.HistogramTag("tx", strings.TrimPrefix(name, "tx."))]
		if x == nil || x.Count() == 0 {
			continue
		}
		want := results.FormatFloat(measure.Ms(x.Percentile(95)))
		if got := mr.Summary.Value(0, h); got != want {
			t.Errorf("merged %s = %q, want %s from the shards' histograms", h, got, want)
		}
		checked++
	}
	if checked == 0 {
		t.Errorf("no tx.NAME.p95_ms checked in the merged summary %v", mr.Summary.Header)
	}
}

// A load shape split over two shards: each stage's threads halved and the merged folder
// has the stage rows, their transactions adding up to the iteration's.
func TestShardsStages(t *testing.T) {
	dsn, _, _ := shardServer(t)
	plan := writePlan(t, fmt.Sprintf(`
version: 1
name: shardedstages
targets:
  db: {dsn: "%s"}
iteration:
  workload:
    transactions: [{name: one, statements: [{sql: "SELECT 1"}]}]
    report_interval: 1s
    stages:
      - {duration: 1s, threads: 2}
      - {duration: 1s, threads: 4}
`, dsn))
	_, dirs := runShards(t, plan, "shardedstages", "s1", 2, 5*time.Minute)
	for k, d := range dirs {
		r, err := results.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		ts := r.Timeseries["db"]
		var threads []string
		for i := range ts.Rows {
			threads = append(threads, ts.Value(i, "threads"))
		}
		if len(threads) != 2 || threads[0] != "1" || threads[1] != "2" {
			t.Errorf("shard %d ran threads %v per interval, want [1 2] (half of each stage)", k, threads)
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	if code := start(t, nil, "merge", dirs[0], dirs[1], "--out", out).wait(t, time.Minute); code != 0 {
		t.Fatalf("merge exit %d", code)
	}
	mr, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	ts := mr.Timeseries["db"]
	for i, want := range []string{"2", "4"} {
		if i >= len(ts.Rows) || ts.Value(i, "threads") != want || ts.Value(i, "stage") != strconv.Itoa(i+1) {
			t.Errorf("merged interval %d: threads %q stage %q, want %s in stage %d", i, ts.Value(i, "threads"), ts.Value(i, "stage"), want, i+1)
		}
		// each interval's latency from the shards' lines of that interval
		if p, ok := ts.Float(i, "p99_ms"); !ok || p <= 0 || ts.Value(i, "tx.one.p95_ms") == "" {
			t.Errorf("merged interval %d: p99_ms %q, tx.one.p95_ms %q", i, ts.Value(i, "p99_ms"), ts.Value(i, "tx.one.p95_ms"))
		}
	}
	if mr.Stages == nil || len(mr.Stages.Rows) != 2 {
		t.Fatalf("merged stage rows: %+v", mr.Stages)
	}
	total, _ := mr.Summary.Float(0, "transactions")
	var sum float64
	for i := range mr.Stages.Rows {
		v, ok := mr.Stages.Float(i, "transactions")
		if !ok || v <= 0 {
			t.Errorf("stage %s: transactions %q", mr.Stages.Value(i, "stage"), mr.Stages.Value(i, "transactions"))
		}
		if p, ok := mr.Stages.Float(i, "p99_ms"); !ok || p <= 0 {
			t.Errorf("stage %s: p99_ms %q", mr.Stages.Value(i, "stage"), mr.Stages.Value(i, "p99_ms"))
		}
		sum += v
	}
	if sum != total || total <= 0 {
		t.Errorf("the stages' transactions add up to %v, the iteration's are %v", sum, total)
	}

	// rerun: a shard's folder is a part of a run and is refused; the merged folder
	// reruns unsharded, saying so, and is compared with the new folder.
	again := t.TempDir()
	p := start(t, nil, "rerun", dirs[1], "--out", again)
	if code := p.wait(t, time.Minute); code != exitInvalid || !strings.Contains(p.out.String(), "is shard 1/2 of run s1") || !strings.Contains(p.out.String(), "quadrant merge") {
		t.Errorf("rerun of a shard's folder: exit %d, want 2 naming the merge:\n%s", code, p.out.String())
	}
	p = start(t, nil, "rerun", out, "--target", "db="+dsn, "--out", again)
	if code := p.wait(t, 5*time.Minute); code != 0 || !strings.Contains(p.out.String(), "the merge of 2 shards of run s1") || !strings.Contains(p.out.String(), "Compared with") {
		t.Errorf("rerun of the merged folder: exit %d:\n%s", code, p.out.String())
	}
}

// Captured traffic split by session: two shards replay a general log of four sessions,
// each session on one shard, and the merge counts every captured statement once.
func TestShardsReplay(t *testing.T) {
	dsn, _, _ := shardServer(t)
	dir := t.TempDir()
	// sessions 10..13; 10 statements in 4 shapes
	general := "/usr/sbin/mariadbd, Version: 10.11. started with:\nTcp port: 3306  Unix socket: /tmp/x.sock\nTime\t\t    Id Command\tArgument\n" +
		"261130 22:45:30\t    10 Query\tSELECT 1\n" +
		"\t\t    11 Query\tSELECT 1, 2\n" +
		"\t\t    12 Query\tDO 1\n" +
		"\t\t    10 Query\tSELECT 1\n" +
		"\t\t    13 Query\tSELECT 'a' AS x\n" +
		"\t\t    11 Query\tSELECT 1, 2\n" +
		"\t\t    10 Query\tSELECT 1\n" +
		"\t\t    12 Query\tSELECT 1\n" +
		"\t\t    13 Query\tDO 1\n" +
		"\t\t    13 Query\tSELECT 'a' AS x\n"
	if err := os.WriteFile(filepath.Join(dir, "g.log"), []byte(general), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte(fmt.Sprintf(`
version: 1
name: shardedreplay
targets:
  db: {dsn: "%s"}
iteration:
  workload: {replay: {file: g.log}}
`, dsn)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, dirs := runShards(t, plan, "shardedreplay", "p1", 2, 5*time.Minute)
	for k, d := range dirs {
		r, err := results.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := r.Table("replay.csv").Float(0, "sessions_replayed"); v != 2 {
			t.Errorf("shard %d replayed %v sessions, want 2 of the 4", k, v)
		}
		met := false
		for _, m := range r.Info.Shard.Meetings {
			met = met || strings.HasSuffix(m.Point, " start")
		}
		if !met {
			t.Errorf("shard %d did not meet the others at the iteration's start: %+v", k, r.Info.Shard.Meetings)
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	if code := start(t, nil, "merge", dirs[0], dirs[1], "--out", out).wait(t, time.Minute); code != 0 {
		t.Fatalf("merge exit %d", code)
	}
	mr, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for col, want := range map[string]float64{"sessions_captured": 4, "sessions_replayed": 4, "statements_captured": 10, "statements_replayed": 10, "errors": 0} {
		if v, ok := mr.Table("replay.csv").Float(0, col); !ok || v != want {
			t.Errorf("merged replay.csv %s = %q, want %v", col, mr.Table("replay.csv").Value(0, col), want)
		}
	}
	fp := mr.Table("fingerprints.csv")
	want := map[string]float64{"SELECT 1": 4, "SELECT 1, 2": 2, "DO 1": 2, "SELECT 'a' AS x": 2}
	var sum float64
	for i := range fp.Rows {
		count, _ := fp.Float(i, "count")
		captured, _ := fp.Float(i, "captured_count")
		id := fp.Value(i, "fingerprint_id")
		if count != captured {
			t.Errorf("fingerprint %s (%s): replayed %v, captured %v", id, fp.Value(i, "fingerprint"), count, captured)
		}
		if tx, _ := mr.Summary.Float(0, "tx."+id+".count"); tx != count {
			t.Errorf("summary tx.%s.count %v, fingerprints.csv %v", id, tx, count)
		}
		if fp.Value(i, "p95_ms") == "" || mr.Summary.Value(0, "tx."+id+".p95_ms") == "" {
			t.Errorf("fingerprint %s: no merged p95 (%q, %q)", id, fp.Value(i, "p95_ms"), mr.Summary.Value(0, "tx."+id+".p95_ms"))
		}
		sum += count
	}
	if len(fp.Rows) != len(want) || sum != 10 {
		t.Errorf("merged fingerprints.csv: %d rows, %v statements; want %d fingerprints and 10", len(fp.Rows), sum, len(want))
	}
}

var missingShard2 = regexp.MustCompile(`missing: (\d+/3, )*2/3`)

func TestShardsNeverArrives(t *testing.T) {
	dsn, _, _ := shardServer(t)
	plan := writePlan(t, fmt.Sprintf(shardPlan, dsn, "", "2s"))
	root := t.TempDir()
	var procs []*proc
	for k := range 2 { // shard 2 of 3 is never started
		procs = append(procs, start(t, nil, "run", plan, "--shard", fmt.Sprintf("%d/3", k), "--run-id", "r2", "--out", root, "--barrier-timeout", "10s")) // long enough for shard 1 to start on a loaded host
	}
	for k, p := range procs {
		code := p.wait(t, 2*time.Minute)
		// Shard 2 is missing; on a busy host shard 1 may start later than the 10 s too, and
		// then both are named (seen under make test-busy): the message must name shard 2.
		if code != exitFailed || !missingShard2.MatchString(p.out.String()) || strings.Contains(p.out.String(), "goroutine ") {
			t.Errorf("shard %d: exit %d, want 3 naming the missing shard:\n%s", k, code, p.out.String())
		}
	}
}

func TestShardsKilledMidRun(t *testing.T) {
	dsn, _, _ := shardServer(t)
	plan := writePlan(t, fmt.Sprintf(shardPlan, dsn, `
setup:
  - workload: {builtin: oltp_point_select, action: prepare, threads: 3, options: {tables: 3, table_size: 1000}}
`, "4s"))
	root := t.TempDir()
	var procs []*proc
	for k := range 3 {
		procs = append(procs, start(t, nil, "run", plan, "--shard", fmt.Sprintf("%d/3", k), "--run-id", "r3", "--out", root, "--barrier-timeout", "5s"))
	}
	victim := filepath.Join(root, "sharded", "r3", "shard-2", "timeseries", "db.csv")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, rows, _ := results.ReadTable(victim); len(rows) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("shard 2 wrote no rows:\n%s", procs[2].out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	procs[2].cmd.Process.Kill()
	procs[2].wait(t, time.Minute)
	for k, p := range procs[:2] {
		if code := p.wait(t, 2*time.Minute); code != exitFailed {
			t.Errorf("shard %d: exit %d, want 3 (shard 2 never reached the end):\n%s", k, code, p.out.String())
		}
	}
	var dirs []string
	for k := range 3 {
		dirs = append(dirs, filepath.Join(root, "sharded", "r3", fmt.Sprintf("shard-%d", k)))
	}
	out := filepath.Join(t.TempDir(), "merged")
	m := start(t, nil, append([]string{"merge"}, append(dirs, "--out", out)...)...)
	if code := m.wait(t, time.Minute); code != exitFailed {
		t.Fatalf("merge exit %d, want 3 (an iteration failed):\n%s", code, m.out.String())
	}
	mr, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	it := mr.Info.Iterations[0]
	if it.Status != results.StatusFailed || !strings.Contains(it.Error, "shard 2/3") {
		t.Errorf("merged iteration %+v: want failed naming shard 2/3", it)
	}
	// Nothing else lost: the survivors' transactions are all in the merged summary,
	// the killed shard's rows in the merged time series.
	var survivors float64
	for _, d := range dirs[:2] {
		r, err := results.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := r.Summary.Float(0, "transactions")
		survivors += v
	}
	if v, _ := mr.Summary.Float(0, "transactions"); v != survivors || v <= 0 {
		t.Errorf("merged transactions %v, want the survivors' %v", v, survivors)
	}
	killed, err := results.Load(dirs[2])
	if err != nil {
		t.Fatal(err)
	}
	rows := mr.Timeseries["db"]
	tps0, _ := rows.Float(0, "tps")
	leader, _ := results.Load(dirs[0])
	l0, _ := leader.Timeseries["db"].Float(0, "tps")
	k0, _ := killed.Timeseries["db"].Float(0, "tps")
	if tps0 < l0+k0-0.001 {
		t.Errorf("merged first interval tps %v misses the killed shard's %v (leader %v)", tps0, k0, l0)
	}
}

func loadAvg() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(strings.Fields(string(b))[0], 64)
}

// What cannot be split is refused before anything runs, at its line: sysbench's output,
// a replayed file, a sandbox, fewer threads than shards; --shard without --run-id too.
func TestShardValidation(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.sql"), []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// captured traffic splits by session: no error for it
	general := "/usr/sbin/mariadbd, Version: 10.11. started with:\nTcp port: 3306  Unix socket: /tmp/x.sock\nTime\t\t    Id Command\tArgument\n261130 22:45:30\t     6 Query\tSELECT 1\n\t\t     7 Query\tSELECT 2\n"
	if err := os.WriteFile(filepath.Join(dir, "g.log"), []byte(general), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte(plantest.Sandbox("nosplit", "", `setup:
  - workload: {replay: {file: r.sql}}
  - workload: {replay: {file: g.log}}
matrix:
  kind: [a, b]
iteration:
  workload: {sysbench: {script: oltp_read_only}, threads: 2, duration: 1s}
`)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	if code := run([]string{"validate", plan}, &out, &errOut); code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	if code := run([]string{"validate", "--shards", "3", plan}, &out, &errOut); code != exitInvalid {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, want := range []string{"plan.yaml:4:", "target db is a sandbox", "plan.yaml:6:", "r.sql is a SQL file, which cannot be split into 3 shards", "plan.yaml:11:", "a sysbench: workload cannot be sharded", "builtin:"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("missing %q in:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "g.log") || strings.Contains(errOut.String(), "plan.yaml:7:") {
		t.Errorf("the general log is refused, but it splits by session:\n%s", errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"run", plan, "--shard", "1/3"}, &out, &errOut); code != exitInvalid || !strings.Contains(errOut.String(), "--run-id") {
		t.Errorf("--shard without --run-id: exit %d: %s", code, errOut.String())
	}
}
