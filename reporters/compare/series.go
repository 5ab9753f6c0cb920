package compare

import (
	"math"
	"sort"
	"strconv"
	"sync"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// iterSeries is one iteration's measured (not warmup) intervals on one target: elapsed seconds
// and, per metric, the value at each (NaN where the cell is empty).
type iterSeries struct {
	x []float64
	v map[string][]float64
}

// readSeries streams each target's time series of run once, for the intervals of every cell's
// iterations: the verdicts' noise of cells with one repeat (batch means) and the overlays of a
// comparison page both come from this one pass. Folders opened with their time series on disk
// (results.Open, as `quadrant compare` opens them) get the same as loaded ones.
func readSeries(run *results.Run, groups map[string]*cellSamples, metrics []string) map[string]*iterSeries {
	out := map[string]*iterSeries{} // "target iteration"
	targets := map[string]bool{}
	for _, g := range groups {
		for _, it := range g.iterations {
			out[g.target+" "+it] = &iterSeries{v: map[string][]float64{}}
			targets[g.target] = true
		}
	}
	for target := range targets {
		ts := run.Timeseries[target]
		if ts == nil {
			continue
		}
		ic, wc, ec := ts.Col(results.ColIteration), ts.Col(results.ColWarmup), ts.Col(results.ColElapsed)
		cols := map[string]int{}
		for _, m := range metrics {
			if c := ts.Col(m); c >= 0 {
				cols[m] = c
			}
		}
		if ic < 0 || ec < 0 || len(cols) == 0 {
			continue
		}
		num := func(row []string, c int) (float64, bool) {
			if c < 0 || c >= len(row) || row[c] == "" {
				return 0, false
			}
			v, err := strconv.ParseFloat(row[c], 64)
			return v, err == nil
		}
		_ = run.EachRow(target, func(row []string) error { // a torn file gives what it has
			s := out[target+" "+row[ic]]
			if s == nil {
				return nil
			}
			if w, ok := num(row, wc); ok && w != 0 {
				return nil
			}
			e, ok := num(row, ec)
			if !ok || e <= 0 {
				return nil
			}
			s.x = append(s.x, e)
			for m, c := range cols {
				v, ok := num(row, c)
				if !ok {
					v = math.NaN()
				}
				s.v[m] = append(s.v[m], v)
			}
			return nil
		})
	}
	for _, g := range groups {
		if len(g.iterations) != 1 {
			continue
		}
		g.intervals = map[string][]float64{}
		if s := out[g.target+" "+g.iterations[0]]; s != nil {
			for m, vals := range s.v {
				for _, v := range vals {
					if !math.IsNaN(v) {
						g.intervals[m] = append(g.intervals[m], v)
					}
				}
			}
		}
	}
	return out
}

// readAllSeries runs readSeries for every run at once: each is one pass over its own files.
func readAllSeries(runs []*results.Run, perRun []map[string]*cellSamples, metrics []string) []map[string]*iterSeries {
	want := append([]string(nil), metrics...)
	for _, m := range measure.ChartDefaults() {
		if !contains(want, m) {
			want = append(want, m)
		}
	}
	out := make([]map[string]*iterSeries, len(runs))
	var wg sync.WaitGroup
	for ri := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[ri] = readSeries(runs[ri], perRun[ri], want)
		}()
	}
	wg.Wait()
	return out
}

// Overlay is metric m of cell in run ri over elapsed seconds of the measured part: at each
// second, the mean over the cell's repeats that have a value there. Empty when the run has no
// such series (no cell, or a metric the time series lacks: only the compared metrics and the
// report's chart defaults are read).
func (c *Comparison) Overlay(ri int, cell Cell, m string) (x, y []float64) {
	if ri >= len(c.series) || ri >= len(cell.Iterations) {
		return nil, nil
	}
	sum, n := map[float64]float64{}, map[float64]int{}
	for _, it := range cell.Iterations[ri] {
		s := c.series[ri][cell.Target+" "+strconv.Itoa(it)]
		if s == nil {
			continue
		}
		for i, v := range s.v[m] {
			if !math.IsNaN(v) {
				sum[s.x[i]] += v
				n[s.x[i]]++
			}
		}
	}
	for k := range sum {
		x = append(x, k)
	}
	sort.Float64s(x)
	for _, k := range x {
		y = append(y, sum[k]/float64(n[k]))
	}
	return x, y
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
