package html

import (
	_ "embed"
	"math"
	"sort"
	"strconv"

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

func acrossServers(c *compare.Comparison) *serversData {
	d := &serversData{Percentiles: spectrumPercentiles, Metrics: measure.ChartDefaults()}
	for i, r := range c.Runs {
		label := "run " + strconv.Itoa(i+1) + ": " + r.Info.Host
		for _, t := range r.Info.Targets {
			label += ", " + t.Name + " " + t.Flavor + " " + t.ServerVersion
		}
		d.Runs = append(d.Runs, label)
	}
	series := make([]map[string]map[string]*meanSeries, len(c.Runs)) // run -> cell -> metric
	for ri, r := range c.Runs {
		series[ri] = readOverlays(r, c.Cells, ri, d.Metrics)
	}
	for _, cell := range c.Cells {
		sc := serverCell{Key: cell.Key, Series: map[string][]overlay{}}
		any := false
		for ri, r := range c.Runs {
			lat := cellLatency(r, cell.Target, cell.Iterations[ri])
			any = any || len(lat) > 0
			sc.Latency = append(sc.Latency, lat)
		}
		for _, m := range d.Metrics {
			for ri := range c.Runs {
				ov := series[ri][cell.Key][m].overlay()
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

// meanSeries sums a metric's values per elapsed second over a cell's repeats.
type meanSeries struct {
	sum map[float64]float64
	n   map[float64]int
}

func (s *meanSeries) overlay() overlay {
	if s == nil || len(s.sum) == 0 {
		return overlay{}
	}
	xs := make([]float64, 0, len(s.sum))
	for x := range s.sum {
		xs = append(xs, x)
	}
	sort.Float64s(xs)
	per := (len(xs) + overlayPoints - 1) / overlayPoints
	var ov overlay
	for i := 0; i < len(xs); i += per {
		sum, n := 0.0, 0
		for _, x := range xs[i:min(i+per, len(xs))] {
			sum += s.sum[x]
			n += s.n[x]
		}
		v := sum / float64(n)
		ov.X = append(ov.X, xs[i])
		ov.Y = append(ov.Y, &v)
	}
	return ov
}

// readOverlays streams run's time series once per target and keeps the measured (not warmup)
// values of metrics of each cell's iterations.
func readOverlays(r *results.Run, cells []compare.Cell, ri int, metrics []string) map[string]map[string]*meanSeries {
	out := map[string]map[string]*meanSeries{}
	byTarget := map[string]map[string]string{} // target -> iteration -> cell
	for _, c := range cells {
		for _, it := range c.Iterations[ri] {
			if byTarget[c.Target] == nil {
				byTarget[c.Target] = map[string]string{}
			}
			byTarget[c.Target][strconv.Itoa(it)] = c.Key
		}
	}
	for target, cellOf := range byTarget {
		ts := r.Timeseries[target]
		if ts == nil {
			continue
		}
		ic, ec, wc := ts.Col("iteration"), ts.Col("elapsed_s"), ts.Col("warmup")
		var cols []int
		var names []string
		for _, m := range metrics {
			if c := ts.Col(m); c >= 0 {
				cols, names = append(cols, c), append(names, m)
			}
		}
		if ic < 0 || ec < 0 || len(cols) == 0 {
			continue
		}
		_ = r.EachRow(target, func(row []string) error { // a torn folder overlays what it has
			key, ok := cellOf[cell(row, ic)]
			if !ok || (wc >= 0 && cell(row, wc) == "1") {
				return nil
			}
			x, ok := number(cell(row, ec))
			if !ok || x <= 0 {
				return nil
			}
			if out[key] == nil {
				out[key] = map[string]*meanSeries{}
			}
			for k, c := range cols {
				v, ok := number(cell(row, c))
				if !ok || math.IsNaN(v) {
					continue
				}
				s := out[key][names[k]]
				if s == nil {
					s = &meanSeries{sum: map[float64]float64{}, n: map[float64]int{}}
					out[key][names[k]] = s
				}
				s.sum[x] += v
				s.n[x]++
			}
			return nil
		})
	}
	return out
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
			row := evidenceRow{Kind: r.Kind, Name: r.Name, Unit: r.Unit}
			for _, v := range r.Values {
				if math.IsNaN(v) {
					row.Values = append(row.Values, nil)
				} else {
					v := v
					row.Values = append(row.Values, &v)
				}
			}
			e.Rows = append(e.Rows, row)
		}
		out = append(out, e)
	}
	return out
}
