package html

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

func loadTPCC(t *testing.T, scale float64, killed bool) *results.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tpcc")
	fixture.TPCC(t, dir, scale, killed)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// headlineBox is the DOM of the page's headline box, up to the summary.
func headlineBox(t *testing.T, dom string) string {
	t.Helper()
	i, j := strings.Index(dom, `id="headline"`), strings.Index(dom, "Summary (one row")
	if i < 0 || j < i {
		t.Fatalf("no headline above the summary")
	}
	return dom[i:j]
}

// A tpcc sweep's headline leads with tpmC and each transaction's p90, before tps; without a
// matrix, the headline gives their values.
func TestTPCCHeadlineLeadsWithTpmC(t *testing.T) {
	run := loadTPCC(t, 1, false)
	var metrics []string
	for _, h := range matrixCharts(run).Headline {
		metrics = append(metrics, h.Metric)
	}
	if len(metrics) < 4 || !slices.Equal(metrics[:3], []string{"tpmC", "tx.new_order.p90_ms", "tx.payment.p90_ms"}) {
		t.Fatalf("headline metrics %v, want tpmC and the transactions' p90 first", metrics)
	}
	box := headlineBox(t, reportDOM(t, run))
	for _, want := range []string{"<b>tpmC</b>: best threads=8 (19200), worst threads=1 (2400)", "<b>tx.new_order.p90_ms</b>: best threads=1",
		"<b>tx.payment.p90_ms</b>: best threads=1"} {
		if !strings.Contains(box, want) {
			t.Errorf("the headline lacks %q:\n%s", want, box)
		}
	}
	if i, j := strings.Index(box, "<b>tpmC</b>"), strings.Index(box, "<b>tps</b>"); i < 0 || j < i {
		t.Errorf("tpmC does not come before tps in the headline")
	}

	run.Info.Axes = nil // the same run without a matrix: no best and worst, the figures
	box = headlineBox(t, reportDOM(t, run))
	if want := "<b>tpmC</b>: 9600 (median of 3 iterations)"; !strings.Contains(box, want) {
		t.Errorf("the headline without a matrix lacks %q:\n%s", want, box)
	}
	if !strings.Contains(box, "<b>tx.new_order.p90_ms</b>: ") {
		t.Errorf("the headline without a matrix lacks new_order's p90:\n%s", box)
	}
}

// The comparison page of two tpcc folders leads with tpmC.
func TestTPCCComparisonLeadsWithTpmC(t *testing.T) {
	c := compare.Compare([]*results.Run{loadTPCC(t, 1, false), loadTPCC(t, 1.5, false)}, nil)
	path := filepath.Join(t.TempDir(), "comparison.html")
	if err := WriteComparison(path, c, "test"); err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	heads := regexp.MustCompile(`<h2>([^<]*)</h2>`).FindAllStringSubmatch(dom, -1)
	var got []string
	for _, h := range heads {
		got = append(got, h[1])
	}
	if i, j := slices.Index(got, "tpmC"), slices.Index(got, "tps"); i < 0 || j < i || !slices.Contains(got, "tx.new_order.p90_ms") {
		t.Errorf("comparison sections %v: want tpmC and tx.new_order.p90_ms, tpmC before tps", got)
	}
	if !strings.Contains(dom, "50.0") {
		t.Error("the comparison does not show tpmC's +50%")
	}
}

// A cell whose server was killed after 5 s (failed with an error) is not the sweep's worst:
// its numbers are a part. The headline says it was kept out, the by-iteration chart crosses
// its point out, and the over-time charts draw its line as failed, saying why.
func TestFailedCellsAreKeptOutAndDrawnAsFailed(t *testing.T) {
	run := loadTPCC(t, 1, true)
	for _, h := range matrixCharts(run).Headline {
		if h.Worst == "threads=4" || h.Best == "threads=4" {
			t.Errorf("%s: best %s, worst %s: the failed cell counts", h.Metric, h.Best, h.Worst)
		}
	}
	dom := reportDOM(t, run)
	box := headlineBox(t, dom)
	for _, want := range []string{"<b>tpmC</b>: best threads=8 (19200), worst threads=1 (2400)", "Kept out of best and worst",
		"threads=4: #2 failed: " + fixture.TPCCKilledError} {
		if !strings.Contains(box, want) {
			t.Errorf("the headline lacks %q:\n%s", want, box)
		}
	}
	if !strings.Contains(dom, `data-failed-marks="1"`) {
		t.Error("the by-iteration chart does not cross out the failed iteration's point")
	}
	if n := strings.Count(dom, `data-failed-series="1"`); n < 2 {
		t.Errorf("%d over-time charts draw the failed iteration as failed, want tps and p95_ms at least", n)
	}
	if !strings.Contains(dom, "#2 threads=4 — failed: "+fixture.TPCCKilledError) {
		t.Error("no legend says why iteration 2 failed")
	}
	if !strings.Contains(dom, `data-kept-out="1"`) {
		t.Error("the charts by axis do not say a cell was kept out")
	}
	// A run whose iterations all passed marks nothing.
	if dom := reportDOM(t, loadTPCC(t, 1, false)); regexp.MustCompile(`data-(failed-marks|failed-series|kept-out)="`).MatchString(dom) ||
		strings.Contains(dom, "<p>Kept out") {
		t.Error("a run without failures has failure marks")
	}
}

// A load shape's headline is its knee: each stage row's tps and p95 against the stage's
// threads, an iteration a series; the stage marks over time say each stage's threads.
func TestKneeChartFromStageRows(t *testing.T) {
	dir := t.TempDir()
	fixture.Staged(t, dir, []int{4, 7, 10})
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	k := kneeOf(run, nil)
	if k == nil || k.X != results.ColStageThreads || len(k.Series) != 2 {
		t.Fatalf("knee %+v: want 2 series against the stages' threads", k)
	}
	if want := []float64{8, 16, 24}; !slices.Equal(k.Series[0].X, want) {
		t.Errorf("iteration 1's stage threads %v, want %v", k.Series[0].X, want)
	}
	dom := reportDOM(t, run)
	box := headlineBox(t, dom)
	// 2 iterations x 3 stages x (tps, p95_ms)
	if !strings.Contains(box, `id="knee"`) || !strings.Contains(box, `data-knee-x="threads"`) || !strings.Contains(box, `data-knee-points="12"`) {
		t.Errorf("the headline has no knee of 12 points against threads:\n%.3000s", box)
	}
	if !strings.Contains(box, "Knee: tps and p95_ms against the stage's threads") {
		t.Error("the knee chart's title does not say what it draws")
	}
	if n := strings.Count(dom, `data-stage-labels="stage 2: threads 16, stage 2: threads 64 | stage 3: threads 24, stage 3: threads 96"`); n != 5 {
		t.Errorf("%d over-time charts label their stage marks with the stages' threads, want 5", n)
	}

	// A folder from before stage rows had their level: the knee is drawn against the stage.
	old := results.NewData(nil, nil)
	drop := run.Stages.Col(results.ColStageThreads)
	for i, h := range run.Stages.Header {
		if i != drop {
			old.Header = append(old.Header, h)
		}
	}
	for _, r := range run.Stages.Rows {
		old.Rows = append(old.Rows, append(append([]string(nil), r[:drop]...), r[drop+1:]...))
	}
	run.Stages = results.NewData(old.Header, old.Rows)
	if k := kneeOf(run, nil); k == nil || k.X != results.ColStage {
		t.Errorf("an older folder's knee: %+v, want one against the stage", k)
	}
	if dom := reportDOM(t, run); !strings.Contains(dom, `data-knee-x="stage"`) || !strings.Contains(dom, `data-stage-labels="stage 2 | stage 3"`) {
		t.Error("an older folder's stages are not drawn by their number")
	}
}

// A plan of one iteration draws no "By iteration" chart of one dot.
func TestOneIterationDrawsNoByIterationChart(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if dom := reportDOM(t, run); !strings.Contains(dom, "<h2>By iteration</h2>") {
		t.Fatal("two iterations draw no by-iteration chart")
	}
	run.Summary.Rows = run.Summary.Rows[:1]
	run.Info.Iterations = run.Info.Iterations[:1]
	if dom := reportDOM(t, run); strings.Contains(dom, "<h2>By iteration</h2>") {
		t.Error("one iteration draws a by-iteration chart")
	}
}

// A tpcc folder written before run.json described tpmC gets the same headline, and the
// page knows tpmC's unit and direction (results describes an old folder's columns).
func TestOldTPCCFolderHeadline(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tpcc")
	fixture.OldTPCC(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var metrics []string
	for _, h := range matrixCharts(run).Headline {
		metrics = append(metrics, h.Metric)
	}
	if len(metrics) == 0 || metrics[0] != "tpmC" {
		t.Fatalf("headline metrics %v, want tpmC first", metrics)
	}
	if c := columnsOf(run, nil)["tpmC"]; c.Role != results.RoleMetric || c.Unit != "1/min" || c.Better != 1 {
		t.Errorf("the page sees tpmC as %+v", c)
	}
}
