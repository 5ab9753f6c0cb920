package html

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

// Two runs of one matrix on different servers (the second 20% slower, on another host and
// version): one page with, per cell, the verdict, where the time went, the latency
// distributions and time series overlaid, and the hosts and versions around the numbers.
func TestComparisonAcrossServersRendersInChromium(t *testing.T) {
	var runs []*results.Run
	for i, scale := range []float64{1, 0.8} {
		dir := filepath.Join(t.TempDir(), "run")
		fixture.Matrix(t, dir, scale)
		r, err := results.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			r.Info.Host = "san-host"
			r.Info.Targets[0].ServerVersion = "11.4.2"
		}
		runs = append(runs, r)
	}
	c := compare.Compare(runs, []string{"tps"})
	d := acrossServers(c)
	if d == nil || len(d.Cells) != 6 {
		t.Fatalf("overlays %+v, want 6 cells", d)
	}
	// The first cell (1 thread, O_DIRECT): its three repeats at 980, 1000 and 1020 tps, and 784, 800, 816.
	first := d.Cells[0]
	if tps := first.Series["tps"]; len(tps) != 2 || len(tps[0].X) != 10 || *tps[0].Y[0] < 990 || *tps[0].Y[0] > 1010 ||
		*tps[1].Y[0] < 790 || *tps[1].Y[0] > 810 {
		t.Errorf("tps overlays of the first cell %+v", tps)
	}
	if len(first.Latency) != 2 || len(first.Latency[0]) != len(spectrumPercentiles) || first.Latency[0][len(spectrumPercentiles)-1] != 1 {
		t.Errorf("latency of the first cell %v: want the max at 1 ms (200 x 5 µs)", first.Latency)
	}
	path := filepath.Join(t.TempDir(), "compare.html")
	if err := WriteComparison(path, c, "test"); err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	// tps by cell, then the first cell's latency and tps and p95_ms over time.
	if n := bodyAttr(t, dom, "data-charts"); n != "4" {
		t.Errorf("comparison rendered %s charts, want 4", n)
	}
	for _, want := range []string{`id="cell-by-cell"`, "tps, run 2 vs run 1: slower by 20%", "Where the time went (medians of the repeats)",
		"statement sbtest: COMMIT", "Latency (ms) at each percentile, runs overlaid", "tps over elapsed time, runs overlaid",
		"run 2: san-host, primary MariaDB 11.4.2", "ran on testhost", "on san-host", "MariaDB 10.11.19 in"} {
		if !strings.Contains(dom, want) {
			t.Errorf("comparison page lacks %q", want)
		}
	}
}
