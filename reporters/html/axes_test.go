package html

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

func TestMatrixChartsGatherRepeatsPerCell(t *testing.T) {
	dir := t.TempDir()
	fixture.Matrix(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := matrixCharts(run)
	if m == nil || len(m.Axes) != 2 || !m.Axes[0].Numeric || m.Axes[1].Numeric {
		t.Fatalf("axes %+v: want threads numeric, flush categorical", m.Axes)
	}
	if strings.Join(m.Axes[0].Values, ",") != "1,4,16" || strings.Join(m.Axes[1].Values, ",") != "O_DIRECT,fsync" {
		t.Fatalf("axis values %v %v", m.Axes[0].Values, m.Axes[1].Values)
	}
	if m.Description != "O_DIRECT against fsync as threads grow" {
		t.Errorf("description %q", m.Description)
	}
	if len(m.Cells) != 6 {
		t.Fatalf("%d cells, want 6", len(m.Cells))
	}
	for _, c := range m.Cells {
		threads, _ := strconv.Atoi(c.Values[0])
		st := c.Stats["tps"]
		want := []float64{fixture.MatrixTPS(threads, c.Values[1], 1, 1), fixture.MatrixTPS(threads, c.Values[1], 2, 1), fixture.MatrixTPS(threads, c.Values[1], 3, 1)}
		if st.N != 3 || !near(st.Min, want[0]) || !near(st.Median, want[1]) || !near(st.Max, want[2]) {
			t.Errorf("cell %s tps %+v, want min/median/max %v", c.Key, st, want)
		}
	}
	if !strings.Contains(strings.Join(m.Defaults, ","), "tps,p95_ms,cost.server_cpu_us,cost.fsyncs") {
		t.Errorf("defaults %v", m.Defaults)
	}
	// Throughput: best at 16 threads with O_DIRECT, worst at 1 thread with fsync. Latency is lower-better:
	// the fixture's latency grows with threads, so the best p95 is at 1 thread.
	got := map[string]headline{}
	for _, h := range m.Headline {
		got[h.Metric] = h
	}
	if h := got["tps"]; h.Best != "threads=16 flush=O_DIRECT" || h.Worst != "threads=1 flush=fsync" {
		t.Errorf("tps headline %+v", h)
	}
	if h := got["p95_ms"]; !strings.HasPrefix(h.Best, "threads=1 ") || !strings.HasPrefix(h.Worst, "threads=16 ") {
		t.Errorf("p95_ms headline %+v", h)
	}
	if m.Better["tps"] != 1 || m.Better["p95_ms"] != -1 {
		t.Errorf("better %v", m.Better)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 0.01*math.Abs(b) }

// The report of a two-axis matrix (threads numeric, flush categorical) draws the headline and,
// per default metric, a line chart along threads with error bars and its relative view; along
// flush, grouped bars.
func TestMatrixReportRendersInChromium(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "matrix")
	fixture.Matrix(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteReport(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	// by iteration 1 + over time (tps, p95_ms, 3 watched) 5 + latency 1 + by axis (tps, p95_ms, 2 costs) along 2 axes 8
	// + the headline's effects (tps, p95_ms) of 2 axes 4.
	if n, _ := strconv.Atoi(bodyAttr(t, dom, "data-charts")); n != 19 {
		t.Errorf("rendered %d charts, want 19", n)
	}
	// Along threads, lines: 2 series (flush) x 3 points with error bars on the canvas; along flush, grouped bars:
	// 3 series (threads) x 2 groups, 6 error bars per metric in the SVG.
	if !regexp.MustCompile(`data-metric="tps" data-axis="threads"[^>]* data-errorbars="6"`).MatchString(dom) {
		t.Error("the tps chart along threads drew no 6 error bars")
	}
	if n := strings.Count(dom, `class="errorbar"`); n != 4*6 {
		t.Errorf("%d error bars on the bar charts along flush, want 24", n)
	}
	for _, want := range []string{`id="headline"`, "O_DIRECT against fsync as threads grow", "Swept: threads 1, 4, 16 × flush O_DIRECT, fsync (6 cells, 18 iterations).",
		"best threads=16 flush=O_DIRECT", "worst threads=1 flush=fsync", `id="by-axis"`, "tps by threads", "cost.fsyncs by threads", "tps by flush",
		"relative to the first cell (threads=1 flush=O_DIRECT)", "flush=fsync",
		// where the time went: across cells, then the first iteration's costs, statements and waits
		`id="where-time-went"`, "Across cells (medians of the repeats)", "threads=16 flush=fsync @primary", "statement sbtest: COMMIT",
		"Top statements by total time", "SELECT c FROM sbtest1 WHERE id = ?", "wait/io/file/innodb/innodb_log_file", "cost.server_cpu_us"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered page lacks %q", want)
		}
	}
	// The first iteration (1 thread, O_DIRECT): COMMIT 0.025 ms per transaction over 9800 transactions.
	if !strings.Contains(dom, "<td>sbtest: COMMIT</td>") && !strings.Contains(dom, `title="sbtest: COMMIT"`) {
		t.Error("the per-iteration digests lack COMMIT")
	}
	if !strings.Contains(dom, "<td>245.0</td><td>25.0</td>") {
		t.Error("the first iteration's COMMIT is not 245 ms in total, 25 µs per transaction")
	}
	// threads=16 O_DIRECT against threads=1 O_DIRECT: 16^0.7 = 6.96, +596.4%.
	if !strings.Contains(dom, "+596.4%") {
		t.Error("the relative view lacks +596.4% for threads=16 against the first cell")
	}
	if headAt, summaryAt := strings.Index(dom, `id="headline"`), strings.Index(dom, "Summary (one row"); headAt < 0 || headAt > summaryAt {
		t.Error("the headline is not above the summary")
	}
	shot := filepath.Join(t.TempDir(), "matrix.png")
	if out := os.Getenv("QUADRANT_SCREENSHOT_MATRIX"); out != "" {
		shot = out
	}
	screenshot(t, path, shot)
	// The screenshot shows the charts by axis: the bars of the first two series fill rectangles in the
	// palette's first two colours.
	blue, orange := paletteArea(t, shot)
	if blue < 2000 || orange < 2000 {
		t.Errorf("screenshot %s has %d px of the first series' colour and %d of the second's: no bars drawn", shot, blue, orange)
	}
	t.Logf("screenshot of the matrix report: %s (%d px of series 1's colour, %d of series 2's)", shot, blue, orange)
}

// paletteArea counts the pixels of a PNG in report.js's first two series colours, #1f77b4 and #ff7f0e.
func paletteArea(t *testing.T, file string) (first, second int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("no screenshot of the matrix report: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", file, err)
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			switch [3]uint32{r >> 8, g >> 8, bl >> 8} {
			case [3]uint32{0x1f, 0x77, 0xb4}:
				first++
			case [3]uint32{0xff, 0x7f, 0x0e}:
				second++
			}
		}
	}
	return first, second
}

// A digests.csv that cannot be read costs the report its evidence section's content, not the report.
func TestReportWithoutReadableDigestsStillRenders(t *testing.T) {
	dir := t.TempDir()
	fixture.Matrix(t, dir, 1)
	if err := os.Remove(filepath.Join(dir, results.DigestsFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, results.DigestsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := Render(&buf, run, "test", ""); err != nil {
		t.Fatalf("the report failed: %v", err)
	}
	if !strings.Contains(buf.String(), `"evidence":{"iterations":null,"error":"`) || !strings.Contains(buf.String(), results.DigestsFile+" is not a regular file") {
		t.Errorf("the page does not say why where the time went is missing")
	}
}

// An axis is a quantity (lines) when its name says so or it has many numbers; a few numbers
// of another name are settings (bars).
func TestNumericAxisRule(t *testing.T) {
	for _, c := range []struct {
		name   string
		values int
		want   bool
	}{{"threads", 2, true}, {"sysbench.threads", 3, true}, {"innodb_buffer_pool_size", 2, true}, {"rate", 2, false} /* a column name: the count rule decides */, {"rate", 5, true},
		{"flush_log", 2, false}, {"sync_binlog", 2, false}, {"flush_log_at_trx_commit", 3, false}, {"io_capacity", 5, true}} {
		if got := numericAxis(c.name, c.values); got != c.want {
			t.Errorf("numericAxis(%q, %d) = %v, want %v", c.name, c.values, got, c.want)
		}
	}
}

// flush_log 1 and 2 are settings: charted as grouped bars with a group per value, not as a
// line with ticks at 1.05...1.95; threads stays a line with ticks at its values only.
func TestCategoricalNumbersAxisDrawnAsBars(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "flushlog")
	fixture.MatrixOf(t, dir, fixture.Shape{Threads: []int{1, 4, 16}, Axis: "flush_log", Values: []string{"1", "2"}, Repeats: 2, Scale: 1})
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteReport(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	box := regexp.MustCompile(`<div class="chart axis-chart" data-metric="tps" data-axis="flush_log"[^>]*>(.*?)</svg>`).FindStringSubmatch(dom)
	if box == nil || !strings.Contains(box[1], `class="bars"`) {
		t.Fatalf("tps along flush_log is not drawn as bars")
	}
	for _, v := range []string{">1</text>", ">2</text>"} {
		if !strings.Contains(box[1], v) {
			t.Errorf("the bars along flush_log lack the group %s", v)
		}
	}
	if !strings.Contains(dom, `data-metric="tps" data-axis="threads" data-x-ticks="1,4,16"`) {
		t.Error("tps along threads is not a line with ticks at 1, 4 and 16 only")
	}
}

// A one-cell plan (threads [8], one iteration) draws no chart by axis: each would be one point.
func TestOneCellPlanDrawsNoAxisCharts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "onecell")
	fixture.MatrixOf(t, dir, fixture.Shape{Threads: []int{8}, Repeats: 1, Scale: 1})
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteReport(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	if n := strings.Count(dom, `class="chart axis-chart"`); n != 0 || strings.Contains(dom, `id="by-axis"`) {
		t.Errorf("a one-cell plan drew %d charts by axis", n)
	}
	// over time: tps, p95_ms, status.Com_select and the two costs; the latency distribution
	if n, _ := strconv.Atoi(bodyAttr(t, dom, "data-charts")); n != 6 {
		t.Errorf("rendered %d charts, want 6", n)
	}
	if !strings.Contains(dom, "Swept: threads 8 (1 cells, 1 iterations).") {
		t.Error("the headline lost what was run")
	}
}
