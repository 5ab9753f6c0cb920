package html

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/bench/largefolder"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// chromium renders a page headless and returns the DOM after its scripts ran. The flags
// keep Chromium off the network (it would otherwise try to reach Google's hosts).
func chromium(t *testing.T, page string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs Chromium (skipped under -short)")
	}
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is needed to test the HTML report: apt-get install chromium (make test installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=5000", "--window-size=1200,900",
		"--dump-dom", "file://"+page)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return out.String()
}

func bodyAttr(t *testing.T, dom, name string) string {
	t.Helper()
	m := regexp.MustCompile(`<body[^>]*\s` + name + `="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page did not set %s on <body>: its script did not finish\n%.2000s", name, dom)
	}
	return m[1]
}

func TestReportRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteReport(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	// 1 by-iteration chart + primary (tps, p95_ms, status.Com_select, status.Threads_running) + replica (repl.lag_s)
	// + the primary's latency distribution from its histograms + tps and p95_ms along the matrix's one axis
	// + the headline's effect of that axis on tps and p95_ms.
	if n, _ := strconv.Atoi(bodyAttr(t, dom, "data-charts")); n != 11 {
		t.Fatalf("rendered %d charts, want 11", n)
	}
	if n := strings.Count(dom, `class="effect-chart"`); n != 2 {
		t.Errorf("%d effect charts in the headline, want 2 (tps, p95_ms)", n)
	}
	for _, want := range []string{"p99_ms &lt; 5", "#2 threads=4", "sync_binlog", "MariaDB 10.11.19", "uplot", "Target primary: latency (ms) at each percentile"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered page lacks %q", want)
		}
	}
	if os.Getenv("QUADRANT_SCREENSHOT") != "" {
		screenshot(t, path, os.Getenv("QUADRANT_SCREENSHOT"))
	}
}

// A run with a load shape: every over-time chart, the replica's too, draws a mark where
// a stage begins after the first (4 and 7 s; the fixture has no warmup before the first),
// and the summary table keeps one row per iteration.
func TestStageMarksOnEveryTimeChart(t *testing.T) {
	dir := t.TempDir()
	fixture.Staged(t, dir, []int{4, 7, 10})
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Summary.Rows) != 2 || len(run.Stages.Rows) != 6 {
		t.Fatalf("summary: %d iteration rows and %d stage rows, want 2 and 6", len(run.Summary.Rows), len(run.Stages.Rows))
	}
	path, err := WriteReport(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	// 5 over-time charts (primary: tps, p95_ms and 2 watched columns; the replica's lag).
	marks := regexp.MustCompile(`class="chart"[^>]*data-stage-marks="(\d+)"|data-stage-marks="(\d+)"[^>]*class="chart"`).FindAllStringSubmatch(dom, -1)
	if len(marks) != 5 {
		t.Fatalf("%d charts with stage marks, want the 5 over-time charts", len(marks))
	}
	for _, m := range marks {
		if m[1]+m[2] != "2" {
			t.Fatalf("a chart drew %s stage marks, want 2 (4 and 7 s)", m[1]+m[2])
		}
	}
	if !strings.Contains(dom, "stage starts at 4, 7 s") {
		t.Error("the charts do not say where the stages start")
	}
	// Staged has no events: no chart draws event marks.
	if regexp.MustCompile(`<div[^>]*data-event-marks=`).MatchString(dom) {
		t.Error("a run without events has event marks")
	}
	// Without stages, no chart has marks.
	plain := t.TempDir()
	fixture.Folder(t, plain, 1)
	run, err = results.Load(plain)
	if err != nil {
		t.Fatal(err)
	}
	if path, err = WriteReport(run, "test"); err != nil {
		t.Fatal(err)
	}
	if dom := chromium(t, path); regexp.MustCompile(`<div[^>]*data-stage-marks=`).MatchString(dom) || !strings.Contains(dom, `class="chart"`) {
		t.Error("a run without stages has stage marks")
	}
}

// Events a step marked in an iteration (a failover drill's fault and promotion) reach the
// page and every over-time chart draws them, their names in the legend under it.
func TestEventMarksOnEveryTimeChart(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Info.Iterations[0].Events; len(got) != len(fixture.FolderEvents) {
		t.Fatalf("run.json kept %v, want %v", got, fixture.FolderEvents)
	}
	path, err := WriteReport(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	charts := regexp.MustCompile(`<div[^>]*class="chart"[^>]*>`).FindAllString(dom, -1)
	withEvents := 0
	for _, c := range charts {
		n := regexp.MustCompile(`data-event-marks="(\d+)"`).FindStringSubmatch(c)
		if n == nil {
			continue
		}
		withEvents++
		if n[1] != "2" {
			t.Errorf("a chart drew %s event marks, want 2: %s", n[1], c)
		}
		if !strings.Contains(c, `data-event-kinds="fault | promoted"`) {
			t.Errorf("a chart's event legend lacks the events' names: %s", c)
		}
	}
	// 5 over-time charts: primary's tps, p95_ms and 2 watched columns, the replica's lag.
	if withEvents != 5 {
		t.Errorf("%d charts with event marks, want the 5 over-time charts", withEvents)
	}
}

func TestVariablePagesRender(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := WriteVariablePages(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"status.Com_select.html", "status.Threads_running.html", "repl.lag_s.html"}
	if len(paths) != len(want) {
		t.Fatalf("pages %v, want %v", paths, want)
	}
	for i, p := range paths {
		if filepath.Base(p) != want[i] {
			t.Fatalf("page %d is %s, want %s", i, p, want[i])
		}
	}
	dom := rendered(t, paths[0])
	if n := bodyAttr(t, dom, "data-charts"); n != "1" {
		t.Fatalf("variable page rendered %s charts, want 1", n)
	}
}

func screenshot(t *testing.T, page, out string) {
	cmd := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=5000", "--window-size=1200,2400", "--screenshot="+out, "file://"+page)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Logf("screenshot: %v %s", err, b)
	}
}

func TestComparisonRendersInChromium(t *testing.T) {
	var runs []*results.Run
	for _, scale := range []float64{1, 0.8} {
		dir := filepath.Join(t.TempDir(), "run")
		fixture.Folder(t, dir, scale)
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	// Both runs replayed one statement fingerprint; its p95 went from 2 to 3 ms. The folders
	// are of before run.json declared tables: results declares fingerprints.csv as of then.
	for i, p95 := range []string{"2", "3"} {
		text := "iteration,target,fingerprint_id,count,p95_ms,fingerprint\n" + runs[i].Summary.Value(0, "iteration") + "," +
			runs[i].Summary.Value(0, "target") + ",q0123456789ab,10," + p95 + ",select c from t where id=?\n"
		if err := os.WriteFile(filepath.Join(runs[i].Dir, fingerprintsCSV), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := results.Load(runs[i].Dir)
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = r
	}
	c := compare.Compare(runs, []string{"tps", "p95_ms"})
	path := filepath.Join(t.TempDir(), "compare.html")
	if err := WriteComparison(path, c, "test"); err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	// tps and p95_ms by cell, and for the first cell its latency and the two metrics over time, runs overlaid.
	if n := bodyAttr(t, dom, "data-charts"); n != "5" {
		t.Fatalf("comparison rendered %s charts, want 5", n)
	}
	if !strings.Contains(dom, "-20.0") {
		t.Errorf("comparison lacks the -20.0%% tps change")
	}
	if !strings.Contains(dom, "Statement fingerprints (replayed p95 per run, change against run 1)") || !strings.Contains(dom, "<td>50</td>") || !strings.Contains(dom, "select c from t where id=?") {
		t.Errorf("comparison lacks the fingerprint q0123456789ab with its +50%% p95")
	}
	if !strings.Contains(dom, `id="verdicts"`) || !strings.Contains(dom, c.Cells[0].Verdicts["tps"][1].Text) {
		t.Errorf("comparison lacks the verdicts table with %q", c.Cells[0].Verdicts["tps"][1].Text)
	}
}

func TestLatencySpectraComeFromTheHistograms(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	sp := latencySpectra(run)["primary"]
	// Iteration 2 (4 threads) recorded 40µs..40ms uniformly in every interval.
	got := sp.Iterations["2"]
	if len(got) != len(spectrumPercentiles) {
		t.Fatalf("spectrum %v", sp)
	}
	for i, p := range spectrumPercentiles {
		want := 40 * p / 100
		if got[i] < want*0.99 || got[i] > want*1.01 {
			t.Errorf("p%v = %v ms, want about %v", p, got[i], want)
		}
	}
	if _, ok := latencySpectra(run)["primary_replica1"]; ok {
		t.Error("the replica ran no workload and has no histograms")
	}
}

// A long run with many watched columns: the page renders every default chart without a
// script error, and says that its lines are downsampled and that the CSV has every sample.
func TestLargeReportIsDownsampledAndRenders(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "large")
	// 2 targets x 12 iterations x ~56 columns of 1800 samples: 2.4 million values, over
	// the page's budget.
	if err := largefolder.Write(dir, largefolder.Options{Duration: 30 * time.Minute, Columns: 40, NoHistograms: true}); err != nil {
		t.Fatal(err)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	dom := reportDOM(t, run)
	// 1 by-iteration chart + per target tps, p95_ms and the first 4 watched columns + tps and p95_ms along the
	// matrix's 2 axes + the headline's effects of tps and p95_ms along those 2 axes.
	if n, _ := strconv.Atoi(bodyAttr(t, dom, "data-charts")); n != 21 {
		t.Fatalf("rendered %d charts, want 21", n)
	}
	for _, want := range []string{"Downsampled for display", "timeseries/primary.csv has every sample",
		"timeseries/replica1.csv has every sample", "status.Com_select (downsampled"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered page lacks %q", want)
		}
	}
	// The small fixture is drawn from every sample and says nothing of the kind.
	small := t.TempDir()
	fixture.Folder(t, small, 1)
	run, err = results.Open(small)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(&buf, run, "test", ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"buckets":1`) || !strings.Contains(buf.String(), `"buckets":0`) {
		t.Error("the small fixture's series are downsampled")
	}
}

// A change is coloured by what it means for the metric: tps down is worse whichever run is
// first, and up is better; p95_ms, whose better direction is down, gets the table's -1.
func TestComparisonColoursByBetterNotBySign(t *testing.T) {
	load := func(scale float64) *results.Run {
		dir := filepath.Join(t.TempDir(), "run")
		fixture.Folder(t, dir, scale)
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	full, slow := load(1), load(0.8)
	for _, c := range []struct {
		runs []*results.Run
		want string
	}{
		{[]*results.Run{full, slow}, `<td class="worse">-20.0</td>`},
		{[]*results.Run{slow, full}, `<td class="better">25.0</td>`},
	} {
		cmp := compare.Compare(c.runs, []string{"tps", "p95_ms"})
		cmp.Cells[0].Stats["tps"][1].N = 3 // as if the second run had three repeats of the first cell
		var buf bytes.Buffer
		if err := RenderComparison(&buf, cmp, "test"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), `"better":{"p95_ms":-1,"tps":1}`) {
			t.Fatalf("page data lacks the metrics' directions")
		}
		path := filepath.Join(t.TempDir(), "compare.html")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		dom := chromium(t, path)
		if !strings.Contains(dom, " (median of 3 repeats)</td>") || strings.Contains(dom, "median of 1 ") {
			t.Errorf("the value of three repeats does not say it is their median")
		}
		if !strings.Contains(dom, c.want) {
			i := strings.Index(dom, "Δ%")
			t.Errorf("comparison lacks %s:\n%.3000s", c.want, dom[max(i, 0):])
		}
	}
}

// A failed run's report says first what failed, and where each sandbox's data was.
func TestFailedRunReportSaysWhatFailedAtTheTop(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	run.Info.Status = results.StatusFailed
	run.Info.Iterations[0].Storage = []results.Storage{{Target: "primary", DataDir: "/dev/shm/q/quadrant-primary-1/primary/data",
		Filesystem: "tmpfs", Device: "tmpfs", Mount: "/dev/shm", FreeBytes: 3 << 30}}
	var buf bytes.Buffer
	if err := Render(&buf, run, "test", ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	banner := strings.Index(dom, `id="failure"`)
	if banner < 0 || banner > strings.Index(dom, `class="meta"`) {
		t.Fatalf("no failure banner above the run's details:\n%.3000s", dom)
	}
	if !strings.Contains(dom[banner:], "iteration 2: assertions failed: p99_ms &lt; 5") {
		t.Errorf("the banner does not name the failed iteration:\n%.2000s", dom[banner:])
	}
	for _, want := range []string{`id="storage"`, "/dev/shm/q/quadrant-primary-1/primary/data", "<td>tmpfs</td>", "3.0 GiB"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the storage table lacks %q", want)
		}
	}
}

// TestReplaySectionsRender: a folder with replay.csv and fingerprints.csv gets the fidelity and
// per-fingerprint tables, read back through results.Load.
func TestReplaySectionsRender(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	// The replay kind's rows, as it lays them out (its fidelity.go): the fingerprint twice,
	// the second iteration at twice the latency.
	fp := func(p95 float64) []measure.Row {
		var r measure.Row
		for _, c := range []measure.Cell{{Column: "rank", Value: int64(1)}, {Column: "fingerprint_id", Value: "q0123456789ab"}, {Column: "count", Value: int64(39)},
			{Column: "captured_count", Value: int64(39)}, {Column: "total_ms", Value: 39 * p95}, {Column: "errors", Value: int64(2)}, {Column: "errors_by_code", Value: "1062:2"},
			{Column: "captured_errors_by_code", Value: ""}, {Column: "rows_sent", Value: int64(39)}, {Column: "rows_mismatches", Value: int64(0)},
			{Column: "p50_ms", Value: p95}, {Column: "captured_p50_ms", Value: 1.0}, {Column: "p95_ms", Value: p95}, {Column: "captured_p95_ms", Value: 1.0},
			{Column: "p99_ms", Value: p95}, {Column: "captured_p99_ms", Value: 1.0}, {Column: "fingerprint", Value: "select c from sbtest1 where id=?"}} {
			r.Add(c.Column, c.Value)
		}
		return []measure.Row{r}
	}
	var rp measure.Row
	for _, c := range []measure.Cell{{Column: "sessions_captured", Value: int64(3)}, {Column: "sessions_replayed", Value: int64(3)},
		{Column: "statements_captured", Value: int64(40)}, {Column: "statements_replayed", Value: int64(39)}, {Column: "skipped_exclude", Value: int64(1)}} {
		rp.Add(c.Column, c.Value)
	}
	for file, recs := range map[string][]results.Record{
		fingerprintsCSV: append(results.TableRecords(1, "primary", fp(2)), results.TableRecords(2, "primary", fp(4))...),
		"replay.csv":    results.TableRecords(1, "primary", []measure.Row{rp}),
	} {
		tb, err := results.OpenTable(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := tb.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		tb.Close()
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Table(fingerprintsCSV).Value(0, "captured_p50_ms") == "" || run.Table(fingerprintsCSV).Value(0, "errors_by_code") != "1062:2" || run.Table("replay.csv").Value(0, "statements_replayed") != "39" {
		t.Fatalf("read back: %v %v", run.Table(fingerprintsCSV).Rows, run.Table("replay.csv").Rows)
	}
	dom := reportDOM(t, run)
	if !regexp.MustCompile(`<td>100\.\d</td>`).MatchString(dom) {
		t.Errorf("the fingerprint's p95 change between the iterations (+100%%) is not on the page")
	}
	for _, want := range []string{"Replay fidelity", "Statement fingerprints", "select c from sbtest1 where id=?", "q0123456789ab", "1062:2",
		"p95 per fingerprint across iterations"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered page lacks %q", want)
		}
	}
}

// rendered is the page's DOM after its scripts ran, which must have run without an error.
// fingerprintsCSV is the replay kind's table of statement fingerprints, which results
// declares for folders of before run.json declared tables.
const fingerprintsCSV = "fingerprints.csv"

func rendered(t *testing.T, page string) string {
	t.Helper()
	dom := chromium(t, page)
	if e := bodyAttr(t, dom, "data-errors"); e != "0" {
		t.Fatalf("script errors in %s: %s", filepath.Base(page), bodyAttr(t, dom, "data-error-text"))
	}
	return dom
}

// reportDOM writes run's report.html and returns it rendered.
func reportDOM(t *testing.T, run *results.Run) string {
	t.Helper()
	path, err := WriteReport(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	return rendered(t, path)
}

// A table wider than the page (the summary's many columns, the targets with their TLS)
// scrolls in its own box, says so above it, and never widens the page: a table cut at the
// page's edge looked whole.
func TestWideTablesScrollInChromium(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wide")
	fixture.MatrixOf(t, dir, fixture.Shape{Threads: []int{1, 4}, Axis: "flush_log", Values: []string{"1", "2"}, Repeats: 1, Scale: 1,
		TLS: &results.TLSInfo{Mode: "verify-ca", Version: "TLSv1.3", Cipher: "TLS_AES_256_GCM_SHA384",
			CA: &results.TLSFile{Name: "a-long-name-for-the-private-ca-of-the-production-fleet.pem", SHA256: strings.Repeat("ab", 32)}}})
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteReport(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	if px := bodyAttr(t, dom, "data-page-overflow"); px != "0" {
		t.Errorf("the page is %s px wider than the window", px)
	}
	for _, table := range []string{`<table class="targets">`, `<table class="summary sortable">`} {
		if !strings.Contains(dom, `<div class="scroll" data-scrolls="x">`+table) {
			t.Errorf("%s is not in a box that scrolls sideways", table)
		}
	}
	if n := strings.Count(dom, `<p class="scroll-hint">↔ wider than the page: scroll sideways for all `); n < 2 {
		t.Errorf("%d wide tables say they scroll, want the targets' and the summary's", n)
	}
}
