package html

import (
	"path/filepath"
	"regexp"
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
		"run 2: san-host, primary MariaDB 11.4.2", "ran on testhost", "on san-host", "<td>version</td><td>MariaDB 10.11.19</td><td>MariaDB 11.4.2</td>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("comparison page lacks %q", want)
		}
	}
}

var testTLS = &results.TLSInfo{Mode: "verify-identity", Version: "TLSv1.3", Cipher: "TLS_AES_256_GCM_SHA384",
	CA: &results.TLSFile{Name: "prod-ca.pem", SHA256: "3f2a9c0d5e6b7a8f91c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4"}}

// The targets table says how quadrant's connections used TLS: mode, version, cipher and the
// CA by name and sha256; a comparison's run labels say it too (verified TLS against plaintext).
func TestTargetsShowTLSInChromium(t *testing.T) {
	var runs []*results.Run
	for i, tls := range []*results.TLSInfo{testTLS, nil} {
		dir := filepath.Join(t.TempDir(), "run")
		fixture.MatrixOf(t, dir, fixture.Shape{Threads: []int{1, 4}, Repeats: 1, Scale: 1 - 0.2*float64(i), TLS: tls})
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	path, err := WriteReport(runs[0], "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	row := regexp.MustCompile(`<tr class="target-tls-verify-identity">(.*?)</tr>`).FindStringSubmatch(dom)
	if row == nil {
		t.Fatal("the targets table has no row for the TLS target")
	}
	for _, want := range []string{"<td>primary</td>", `<td class="tls-mode">verify-identity</td>`, "<td>TLSv1.3</td>", "<td>TLS_AES_256_GCM_SHA384</td>",
		`<td class="tls-ca">prod-ca.pem (` + testTLS.CA.SHA256 + `)</td>`} {
		if !strings.Contains(row[1], want) {
			t.Errorf("the TLS target's row lacks %q: %s", want, row[1])
		}
	}
	plain, err := WriteReport(runs[1], "test")
	if err != nil {
		t.Fatal(err)
	}
	if dom := rendered(t, plain); !strings.Contains(dom, `<td class="tls-mode">none (plaintext)</td>`) {
		t.Error("a plaintext target's row does not say so")
	}
	cmp := filepath.Join(t.TempDir(), "compare.html")
	if err := WriteComparison(cmp, compare.Compare(runs, []string{"tps"}), "test"); err != nil {
		t.Fatal(err)
	}
	dom = rendered(t, cmp)
	for _, want := range []string{"primary MariaDB 10.11.19 (TLS verify-identity TLSv1.3 TLS_AES_256_GCM_SHA384, CA sha256 3f2a9c0d5e6b…)",
		"run 2: testhost, primary MariaDB 10.11.19 (plaintext)"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the comparison lacks %q", want)
		}
	}
}
