package html

import (
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

// The headline of a two-axis matrix with repeats says what each axis does, as the
// sentences `quadrant report` prints, and draws per axis and metric each value's change
// with its 95% CI as error bars against the other axis (headless Chromium).
func TestHeadlineEffects(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	fixture.Matrix(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	dom := reportDOM(t, run)
	box := headlineBox(t, dom)
	lines := axiseffects.Compute(run)
	if len(lines) != 7 {
		t.Fatalf("%d effect lines, want 7 (threads 4 and 16 vs 1 at 2 flushes, fsync vs O_DIRECT at 3 thread counts)", len(lines))
	}
	items := regexp.MustCompile(`<ul class="effect-sentences">(.*?)</ul>`).FindStringSubmatch(box)
	if items == nil {
		t.Fatalf("the headline has no effect sentences:\n%.4000s", box)
	}
	lis := regexp.MustCompile(`<li>(.*?)</li>`).FindAllStringSubmatch(items[1], -1)
	if len(lis) != len(lines) {
		t.Fatalf("%d sentences in the headline, want %d:\n%s", len(lis), len(lines), items[1])
	}
	for i, l := range lines {
		if got := html.UnescapeString(lis[i][1]); got != l.Sentence() {
			t.Errorf("sentence %d: %q, want %q", i+1, got, l.Sentence())
		}
	}
	if !strings.Contains(box, "flush fsync vs O_DIRECT at threads=16: tps -20.0%, slower by 20% (95% CI ") {
		t.Errorf("the headline does not say fsync is 20%% slower at 16 threads:\n%s", items[1])
	}
	// a chart per axis and metric: threads (4 points each: 2 values at 2 flushes), flush (3 thread counts)
	for _, want := range []struct{ axis, metric, points string }{
		{"threads", "tps", "4"}, {"threads", "p95_ms", "4"}, {"flush", "tps", "3"}, {"flush", "p95_ms", "3"},
	} {
		re := regexp.MustCompile(`<svg[^>]*class="effect-chart"[^>]*data-axis="` + want.axis + `" data-metric="` + want.metric +
			`" data-points="` + want.points + `"[^>]*>(.*?)</svg>`)
		m := re.FindStringSubmatch(box)
		if m == nil {
			t.Errorf("no effect chart of %s by %s with %s points in the headline", want.metric, want.axis, want.points)
			continue
		}
		if n := strings.Count(m[1], `class="effect-errorbar"`); n != 3 && n != 4 || n != len(regexp.MustCompile(`class="effect"`).FindAllString(m[1], -1)) {
			t.Errorf("%s by %s: %d error bars, want one per point", want.metric, want.axis, n)
		}
	}
	if errs := bodyAttr(t, dom, "data-errors"); errs != "0" {
		t.Errorf("page errors: %s", errs)
	}
}
