package html

import (
	_ "embed"
	"runtime"
	"strconv"
	"sync"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

//go:embed assets/servers.js
var serversJS string

// serversData overlays the runs of a comparison cell by cell, drawn by servers.js: their latency
// distributions from the histogram logs and their time series over elapsed time from each
// iteration's start, so runs on different servers are seen on one axis.
type serversData struct {
	Runs        []string     `json:"runs"` // "run 1: HOST, MariaDB 10.11.19"
	Percentiles []float64    `json:"percentiles"`
	Metrics     []string     `json:"metrics"`
	Cells       []serverCell `json:"cells"`
}

type serverCell struct {
	Key string `json:"key"`
	// Latency is per run the cell's latency in ms at each percentile, its repeats' histograms
	// merged; empty for a run without histograms of the cell.
	Latency [][]float64 `json:"latency"`
	// Series is per metric and run the mean over the cell's repeats at each elapsed second.
	Series map[string][]overlay `json:"series"`
}

type overlay struct {
	X []float64  `json:"x"`
	Y []*float64 `json:"y"`
}

// overlayPoints is the most points a line of an overlay keeps: past it, consecutive seconds are
// averaged, as a chart is no wider in pixels.
const overlayPoints = 600

// tlsLabel is a target's TLS in a few words: runs compared across servers may differ in it.
func tlsLabel(t *results.TLSInfo) string {
	switch {
	case t == nil:
		return "plaintext"
	case t.Version == "":
		return "TLS " + t.Mode + ", plaintext"
	}
	s := "TLS " + t.Mode + " " + t.Version
	if t.Cipher != "" {
		s += " " + t.Cipher
	}
	if t.CA != nil && len(t.CA.SHA256) >= 12 {
		s += ", CA sha256 " + t.CA.SHA256[:12] + "…"
	}
	return s
}

func acrossServers(c *compare.Comparison) *serversData {
	d := &serversData{Percentiles: spectrumPercentiles, Metrics: measure.ChartDefaults()}
	for i, r := range c.Runs {
		label := "run " + strconv.Itoa(i+1) + ": " + r.Info.Host
		for _, t := range r.Info.Targets {
			label += ", " + t.Name + " " + t.Flavor + " " + t.ServerVersion + " (" + tlsLabel(t.TLS) + ")"
		}
		d.Runs = append(d.Runs, label)
	}
	// Each cell's histograms are their own files: read a few cells at a time.
	lat := make([][][]float64, len(c.Cells))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for ci, cell := range c.Cells {
		lat[ci] = make([][]float64, len(c.Runs))
		for ri, r := range c.Runs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				lat[ci][ri] = cellLatency(r, cell.Target, cell.Iterations[ri])
			}()
		}
	}
	wg.Wait()
	for ci, cell := range c.Cells {
		sc := serverCell{Key: cell.Key, Series: map[string][]overlay{}, Latency: lat[ci]}
		any := false
		for _, l := range lat[ci] {
			any = any || len(l) > 0
		}
		for _, m := range d.Metrics {
			for ri := range c.Runs {
				ov := overlayOf(c.Overlay(ri, cell, m))
				any = any || len(ov.X) > 0
				sc.Series[m] = append(sc.Series[m], ov)
			}
		}
		if any {
			d.Cells = append(d.Cells, sc)
		}
	}
	if len(d.Cells) == 0 {
		return nil
	}
	return d
}

// cellLatency merges the latency histograms of a cell's iterations; nil without any.
func cellLatency(r *results.Run, target string, iterations []int) []float64 {
	var h *measure.Histogram
	for _, it := range iterations {
		x, err := results.ReadHistograms(r.Dir, target, it, "latency")
		if err != nil || x.Count() == 0 {
			continue
		}
		if h == nil {
			h = x
		} else {
			h.Merge(x)
		}
	}
	if h == nil {
		return nil
	}
	out := make([]float64, len(spectrumPercentiles))
	for i, p := range spectrumPercentiles {
		out[i] = float64(h.Percentile(p).Microseconds()) / 1000
	}
	return out
}

// overlayOf is a line of an overlay: past overlayPoints, consecutive seconds are averaged.
func overlayOf(x, y []float64) overlay {
	per := (len(x) + overlayPoints - 1) / overlayPoints
	var ov overlay
	for i := 0; i < len(x); i += per {
		sum := 0.0
		end := min(i+per, len(x))
		for _, v := range y[i:end] {
			sum += v
		}
		v := sum / float64(end-i)
		ov.X = append(ov.X, x[i])
		ov.Y = append(ov.Y, &v)
	}
	return ov
}

type comparisonEvidence struct {
	Key  string        `json:"key"`
	Rows []evidenceRow `json:"rows"` // values per run
}

func comparisonEvidenceOf(c *compare.Comparison) []comparisonEvidence {
	var out []comparisonEvidence
	for _, ce := range c.Evidence {
		e := comparisonEvidence{Key: ce.Key}
		for _, r := range ce.Rows {
			e.Rows = append(e.Rows, evidenceRowOf(r))
		}
		out = append(out, e)
	}
	return out
}
