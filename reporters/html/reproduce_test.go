package html

import (
	"html"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/reporters/reproduce"
	"github.com/quadrant-bench/quadrant/results"
)

// flushRun writes a threads [4, 16] x flush_log [1, 2] folder, 3 repeats, whose flush_log 2
// multiplies throughput by effect; host names its machine.
func flushRun(t *testing.T, effect float64, host string) *results.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	fixture.MatrixOf(t, dir, fixture.Shape{Threads: []int{4, 16}, Axis: "flush_log", Values: []string{"1", "2"}, Repeats: 3, Host: host,
		TPS: func(threads int, flush string, repeat int) float64 {
			v := 1000 * math.Pow(float64(threads), 0.7) * (1 + 0.03*float64(repeat-2))
			if flush == "2" {
				v *= effect
			}
			return v
		}})
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// A comparison leads with the reproduction of the first folder's effects: the tally, then
// each effect with its verdict, the ones not reproduced first, and a chart of the effect
// published and here with both intervals (headless Chromium).
func TestComparisonLeadsWithReproduction(t *testing.T) {
	published, here := flushRun(t, 0.4, "pubhost"), flushRun(t, 1, "herehost")
	c := compare.Compare([]*results.Run{published, here}, []string{"tps", "p95_ms"})
	path := filepath.Join(t.TempDir(), "compare.html")
	if err := WriteComparison(path, c, "test"); err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	r := reproduce.Judge(published, here)
	if n := bodyAttr(t, dom, "data-reproductions"); n != "8" || len(r.Effects) != 8 {
		t.Fatalf("%s effect charts, %d effects: want 8", n, len(r.Effects))
	}
	sec := regexp.MustCompile(`(?s)<div class="reproduction" id="reproduction-run-2">(.*?)</div></div>\s*(<h2|<div class="reproduction")`).FindStringSubmatch(dom)
	if sec == nil || strings.Index(dom, `id="reproduction-run-2"`) > strings.Index(dom, `id="verdicts"`) {
		t.Fatalf("no reproduction section before the verdicts table:\n%.3000s", dom)
	}
	if !strings.Contains(html.UnescapeString(sec[1]), r.Tally()) {
		t.Errorf("the section does not say %q", r.Tally())
	}
	items := regexp.MustCompile(`<div class="repro-item" data-verdict="([^"]+)"`).FindAllStringSubmatch(sec[1], -1)
	if len(items) != 8 || items[0][1] != reproduce.NotReproduced || items[1][1] != reproduce.NotReproduced || items[7][1] != reproduce.Reproduced {
		t.Errorf("items %v: want 8, the two not reproduced first", items)
	}
	charts := regexp.MustCompile(`(?s)<svg[^>]*class="repro-chart"[^>]*data-verdict="not reproduced" data-effect="flush_log 2 vs 1 at threads=16" data-metric="tps"[^>]*>(.*?)</svg>`).FindStringSubmatch(sec[1])
	if charts == nil {
		t.Fatalf("no chart of flush_log 2 vs 1 at threads=16, tps, not reproduced")
	}
	for _, side := range []string{"published", "here"} {
		if !strings.Contains(charts[1], `class="repro-interval" data-side="`+side+`"`) || !strings.Contains(charts[1], `class="repro-effect" data-side="`+side+`"`) {
			t.Errorf("the chart lacks the %s effect or its interval:\n%s", side, charts[1])
		}
	}
	if !strings.Contains(charts[1], `class="repro-band"`) {
		t.Errorf("the chart lacks the band")
	}
}

// A folder's report shows, under each effect's sentence, what its recorded reproductions
// found: the tally and each rerun with its verdict and where it ran (headless Chromium).
func TestReportShowsRecordedReproductions(t *testing.T) {
	published := flushRun(t, 1.2, "pubhost")
	for i, rerun := range []*results.Run{flushRun(t, 1.2, "alpha"), flushRun(t, 1.2, "beta"), flushRun(t, 1, "gamma")} {
		rec, err := reproduce.Judge(published, rerun).Record("test", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		rec.Rerun.Start = rec.Rerun.Start.Add(time.Duration(i) * time.Hour)
		if err := results.WriteReproduction(filepath.Join(published.Dir, results.ReproductionsDir, results.RecordName(rec)), rec); err != nil {
			t.Fatal(err)
		}
	}
	dom := reportDOM(t, published)
	box := headlineBox(t, dom)
	m := regexp.MustCompile(`(?s)<li class="effect-reruns" data-metric="tps">([^<]*)<ul>(.*?)</ul>`).FindAllStringSubmatch(box, -1)
	if len(m) != 4 {
		t.Fatalf("%d effects with their reruns' tps, want 4:\n%.4000s", len(m), box)
	}
	var flush16 []string
	for _, x := range m {
		if strings.Contains(x[1], "not reproduced") {
			flush16 = append(flush16, x[0])
		}
	}
	if len(flush16) != 2 || !strings.Contains(flush16[0], "tps, 3 reruns: 2 reproduced, 1 not reproduced") {
		t.Fatalf("flush_log's effects: %q, want 2 reproduced and 1 not at each thread count", flush16)
	}
	for _, want := range []string{`data-verdict="reproduced">reproduced on alpha (MariaDB 10.11.19), `,
		`data-verdict="reproduced">reproduced on beta (MariaDB 10.11.19), `, `data-verdict="not reproduced">not reproduced on gamma (MariaDB 10.11.19), `} {
		if !strings.Contains(flush16[0], want) {
			t.Errorf("the reruns lack %q:\n%s", want, flush16[0])
		}
	}
}

// Several folders of one plan on one page: a chart per effect with each folder's change and
// interval (headless Chromium).
func TestAcrossPageRenders(t *testing.T) {
	runs := []*results.Run{flushRun(t, 1.2, "a"), flushRun(t, 1.2, "b"), flushRun(t, 1, "c")}
	series := reproduce.Across(runs)
	path := filepath.Join(t.TempDir(), "across.html")
	if err := WriteAcross(path, "flush-matrix", runs, series, "test"); err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	if n := bodyAttr(t, dom, "data-charts"); n != "8" || len(series) != 8 {
		t.Fatalf("%s charts for %d effects, want 8", n, len(series))
	}
	m := regexp.MustCompile(`(?s)<svg[^>]*class="across-chart"[^>]*data-effect="flush_log 2 vs 1 at threads=16" data-metric="tps" data-points="3"[^>]*>(.*?)</svg>`).FindStringSubmatch(dom)
	if m == nil || strings.Count(m[1], `class="across-interval"`) != 3 || strings.Count(m[1], `class="across-effect"`) != 3 {
		t.Fatalf("no chart of flush_log 2 vs 1 at threads=16, tps with 3 folders' effects and intervals")
	}
	if !strings.Contains(dom, "Effects of flush-matrix across 3 folders") {
		t.Errorf("the page does not say what it shows")
	}
}
