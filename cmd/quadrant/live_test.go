package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// scrape GETs the metrics page as Prometheus would; nil when nothing answers yet.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the metrics page does not parse as the Prometheus text format: %v", err)
	}
	return fams
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// byIteration sums a counter family per iteration label, keeping metrics whose labels
// include want.
func byIteration(fams map[string]*dto.MetricFamily, name string, want map[string]string) map[string]float64 {
	out := map[string]float64{}
	f := fams[name]
	if f == nil {
		return out
	}
next:
	for _, m := range f.GetMetric() {
		for k, v := range want {
			if label(m, k) != v {
				continue next
			}
		}
		out[label(m, "iteration")] += m.GetCounter().GetValue()
	}
	return out
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A run served live: a scrape during the run sees it going, and at the end the counters
// are the summary's (warmup left out in both).
func TestLiveMetricsMatchTheSummary(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, plantest.Sandbox("live", "", `setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 500}}
matrix:
  threads: [1, 2]
iteration:
  workload: {builtin: oltp_read_only, options: {table_size: 500}, threads: "${{ matrix.threads }}", warmup: 1s, duration: 3s}
watch:
  status: [Com_select, Threads_connected]
`))
	addr := freePort(t)
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root, "--metrics-addr", addr, "--metrics-hold", "10m")

	// during the run
	var during map[string]*dto.MetricFamily
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) && !strings.Contains(p.out.String(), "report: ") {
		if f := scrape(t, addr); f != nil && len(byIteration(f, "quadrant_transactions_total", nil)) > 0 {
			during = f
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if during == nil {
		t.Fatalf("no transactions on the metrics page while the run went:\n%s", p.out.String())
	}

	// after it, while the final values are held
	for time.Now().Before(deadline) && !strings.Contains(p.out.String(), "serving the final values") {
		select {
		case <-p.done:
			t.Fatalf("quadrant ended (exit %d) instead of holding the metrics:\n%s", p.exit, p.out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	final := scrape(t, addr)
	dir := findRunDir(t, root)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct{ family, column string }{{"quadrant_transactions_total", "transactions"}, {"quadrant_errors_total", "errors"}}
	for _, c := range checks {
		got := byIteration(final, c.family, map[string]string{"plan": "live", "target": "db"})
		for i := range run.Summary.Rows {
			want, _ := run.Summary.Float(i, c.column)
			it := run.Summary.Value(i, "iteration")
			if got[it] != want {
				t.Errorf("iteration %s: %s = %v, summary.csv %s = %v", it, c.family, got[it], c.column, want)
			}
		}
	}
	reads := byIteration(final, "quadrant_statements_total", map[string]string{"kind": "read"})
	for i := range run.Summary.Rows {
		want, _ := run.Summary.Float(i, "reads")
		if it := run.Summary.Value(i, "iteration"); reads[it] != want || want == 0 {
			t.Errorf("iteration %s: reads %v, summary.csv %v", it, reads[it], want)
		}
	}
	if h := final["quadrant_latency_seconds"]; h == nil || h.GetType() != dto.MetricType_HISTOGRAM {
		t.Error("no latency histogram")
	} else {
		tx := byIteration(final, "quadrant_transactions_total", nil)
		for _, m := range h.GetMetric() {
			if n := float64(m.GetHistogram().GetSampleCount()); n != tx[label(m, "iteration")] {
				t.Errorf("iteration %s: %v latencies for %v transactions", label(m, "iteration"), n, tx[label(m, "iteration")])
			}
		}
	}
	cols := map[string]bool{}
	for _, m := range final["quadrant_watched"].GetMetric() {
		cols[label(m, "column")] = true
		if label(m, "cell") == "" {
			t.Errorf("watched value without a cell: %v", m)
		}
	}
	if !cols["status.Com_select"] || !cols["status.Threads_connected"] {
		t.Errorf("watched columns served: %v", cols)
	}

	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("Ctrl-C during the hold: exit %d, want the run's 0:\n%s", code, p.out.String())
	}
}

func TestMetricsAddrOnlyOnLoopbackUnlessForced(t *testing.T) {
	for _, a := range []string{"127.0.0.1:9464", "[::1]:9464", "localhost:9464"} {
		if err := checkMetricsAddr(a, false); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	for _, a := range []string{":9464", "0.0.0.0:9464", "192.0.2.7:9464"} {
		err := checkMetricsAddr(a, false)
		if err == nil || !strings.Contains(err.Error(), "--metrics-allow-remote") {
			t.Errorf("%s: %v, want a refusal naming --metrics-allow-remote", a, err)
		}
		if err := checkMetricsAddr(a, true); err != nil {
			t.Errorf("%s forced: %v", a, err)
		}
	}
}

// gather is what a scrape of m would get, by family name.
func gather(t *testing.T, m *liveMetrics) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// A stages plan served live: quadrant_errors_total is there, at 0, from the workload's
// first interval (rate() is 0, not no data); the current stage and its level are gauges;
// and the cell label of a plan without a matrix says so rather than being empty.
func TestLiveMetricsOfAStagesPlan(t *testing.T) {
	m := newLiveMetrics("knee")
	stages := []spec.Stage{{Duration: 2 * time.Second, Threads: 8}, {Duration: 2 * time.Second, Threads: 64}}
	tick := func(elapsed time.Duration, stage, threads int, errs map[int]int64) {
		iv := interval(elapsed, 100, time.Millisecond)
		iv.Warmup, iv.Stage, iv.Threads, iv.ErrorsByCode = elapsed <= 0, stage, threads, errs
		m.Interval(executor.Progress{Interval: iv, Measured: true, Iteration: 1, Of: 1, Target: "db", Stages: stages})
	}
	gauge := func(fams map[string]*dto.MetricFamily, name string) float64 {
		t.Helper()
		f := fams[name]
		if f == nil || len(f.GetMetric()) != 1 {
			t.Fatalf("%s: %v, want one series", name, f)
		}
		return f.GetMetric()[0].GetGauge().GetValue()
	}

	tick(0, 0, 8, nil) // warmup
	fams := gather(t, m)
	errs := fams["quadrant_errors_total"]
	if errs == nil || len(errs.GetMetric()) != 1 || errs.GetMetric()[0].GetCounter().GetValue() != 0 || label(errs.GetMetric()[0], "code") != "0" {
		t.Fatalf("quadrant_errors_total in warmup: %v, want one series at 0", errs)
	}
	if got := byIteration(fams, "quadrant_transactions_total", nil)["1"]; got != 0 {
		t.Errorf("warmup counted %v transactions", got)
	}
	if gauge(fams, "quadrant_stage") != 0 || gauge(fams, "quadrant_stage_threads") != 8 {
		t.Errorf("warmup: stage %v threads %v, want 0 and the first stage's 8", gauge(fams, "quadrant_stage"), gauge(fams, "quadrant_stage_threads"))
	}

	tick(time.Second, 1, 8, nil)
	tick(3*time.Second, 2, 64, map[int]int64{1213: 2})
	fams = gather(t, m)
	if gauge(fams, "quadrant_stage") != 2 || gauge(fams, "quadrant_stage_threads") != 64 || gauge(fams, "quadrant_stage_rate") != 0 {
		t.Errorf("stage 2: stage %v threads %v rate %v", gauge(fams, "quadrant_stage"), gauge(fams, "quadrant_stage_threads"), gauge(fams, "quadrant_stage_rate"))
	}
	codes := map[string]float64{}
	for _, s := range fams["quadrant_errors_total"].GetMetric() {
		codes[label(s, "code")] = s.GetCounter().GetValue()
	}
	if len(codes) != 2 || codes["0"] != 0 || codes["1213"] != 2 {
		t.Errorf("errors by code %v, want 0: 0 and 1213: 2", codes)
	}
	for name, f := range fams {
		for _, s := range f.GetMetric() {
			if c := label(s, "cell"); c != "(no matrix)" {
				t.Errorf("%s has cell %q, want (no matrix)", name, c)
			}
		}
	}
}
