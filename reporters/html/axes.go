package html

import (
	_ "embed"
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

//go:embed assets/axes.js
var axesJS string

// matrixData is what the charts by matrix axis and the headline need: per cell (matrix
// values and target) and summary column, the median of the cell's repeats and their range.
// A few numbers per cell and column: small next to the time series, whatever the run's length.
type matrixData struct {
	Description string       `json:"description,omitempty"`
	Axes        []matrixAxis `json:"axes"`
	Metrics     []string     `json:"metrics"`  // every numeric summary column, the pickers' choices
	Defaults    []string     `json:"defaults"` // drawn when the page opens
	Cells       []matrixCell `json:"cells"`
	Headline    []headline   `json:"headline,omitempty"`
	// Better is +1 where higher is better, -1 where lower is: how the page colours a change.
	Better map[string]int `json:"better,omitempty"`
	// CategoricalMax is numericAxis's limit, said on the page beside the charts.
	CategoricalMax int `json:"categorical_max"`
}

type matrixAxis struct {
	Name    string   `json:"name"`
	Values  []string `json:"values"`  // in plan order, or ascending when numeric
	Numeric bool     `json:"numeric"` // a quantity (numericAxis): charted as lines on its value scale
}

// quantityWords name axes whose values are amounts, charted on a value scale whatever their
// count: threads, connections, a scale. Matched against the name's words without a
// plural s (sysbench.threads, buffer_pool_size). Words that are also metric columns (a rate,
// tps) or a kind's own words (tpcc's warehouses) are left to the count rule: reporters name
// neither columns nor kinds.
var quantityWords = map[string]bool{"thread": true, "connection": true, "client": true, "user": true,
	"worker": true, "concurrency": true, "scale": true,
	"size": true, "table": true, "row": true, "mb": true, "gb": true}

// categoricalMax is the most values an axis of numbers of an unknown name may have and still
// be settings (flush_log_at_trx_commit 0/1/2, sync_binlog 0/1): a line between two settings
// draws values between them that do not exist, and ticks at 1.05...1.95. Past it, the numbers
// are more likely a measure swept over a range.
const categoricalMax = 3

// numericAxis says whether an axis whose values are all numbers is a quantity: its name says
// so, or it has more values than a set of settings.
func numericAxis(name string, values int) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '.' || r == '-' || r == ' ' }) {
		if quantityWords[strings.TrimSuffix(w, "s")] {
			return true
		}
	}
	return values > categoricalMax
}

type matrixCell struct {
	Target string                `json:"target"`
	Values []string              `json:"values"` // one per axis
	Key    string                `json:"key"`    // "threads=4 flush=fsync"
	Stats  map[string]repeatStat `json:"stats"`
	// Failed are the cell's broken iterations, kept out of its stats: "#3 failed: REASON".
	Failed []string `json:"failed,omitempty"`
}

// repeatStat is one column over a cell's repeats: the median is the point, min and max the
// error bar.
type repeatStat struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// headline is the best and worst cell for one key metric, by its Better direction.
type headline struct {
	Metric string  `json:"metric"`
	Target string  `json:"target"`
	Best   string  `json:"best"`
	BestV  float64 `json:"best_value"`
	Worst  string  `json:"worst"`
	WorstV float64 `json:"worst_value"`
}

// matrixCharts gathers the cells of run's summary; nil when the plan has no matrix.
func matrixCharts(run *results.Run) *matrixData {
	S := run.Summary
	if len(run.Info.Axes) == 0 || S == nil || len(S.Rows) == 0 {
		return nil
	}
	d := &matrixData{Description: planDescription(run.Plan), CategoricalMax: categoricalMax}
	isAxis := map[string]bool{}
	for _, a := range run.Info.Axes {
		isAxis[a] = true
		d.Axes = append(d.Axes, matrixAxis{Name: a, Numeric: true})
	}
	for _, h := range S.Header {
		if results.IsKey(results.SummaryCSV, h) || isAxis[h] {
			continue
		}
		for i := range S.Rows {
			if _, ok := S.Float(i, h); ok {
				d.Metrics = append(d.Metrics, h)
				break
			}
		}
	}
	d.gather(run)
	d.sortAxes()
	d.charted(run)
	return d
}

// gather makes one cell per combination of the axes' values and target, with each metric's
// figures over its repeats, and learns the axes' values as they come.
func (d *matrixData) gather(run *results.Run) {
	S := run.Summary
	cells := map[string]*matrixCell{}
	samples := map[string]map[string][]float64{}
	var order []string
	seen := make([]map[string]bool, len(d.Axes))
	for i := range seen {
		seen[i] = map[string]bool{}
	}
	why, broken := failedIterations(run)
	for i := range S.Rows {
		if st := S.Value(i, results.ColStatus); st == results.StatusSkipped {
			continue // nothing measured
		}
		var vals, parts []string
		for a, ax := range run.Info.Axes {
			v := S.Value(i, ax)
			vals = append(vals, v)
			parts = append(parts, ax+"="+v)
			if !seen[a][v] {
				seen[a][v] = true
				d.Axes[a].Values = append(d.Axes[a].Values, v)
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					d.Axes[a].Numeric = false
				}
			}
		}
		target := S.Value(i, results.ColTarget)
		key := strings.Join(parts, " ")
		id := key + " @" + target
		if cells[id] == nil {
			cells[id] = &matrixCell{Target: target, Values: vals, Key: key, Stats: map[string]repeatStat{}}
			samples[id] = map[string][]float64{}
			order = append(order, id)
		}
		it := S.Value(i, results.ColIteration)
		// A part of a workload (interrupted, a server lost mid-way) is no cell's figure: it is
		// kept out of the medians, and so of best and worst, and said.
		if broken[it] || S.Value(i, results.ColStatus) == results.StatusInterrupted {
			reason := why[it]
			if reason == "" {
				reason = S.Value(i, results.ColStatus)
			}
			cells[id].Failed = append(cells[id].Failed, "#"+it+" "+reason)
			continue
		}
		for _, m := range d.Metrics {
			if v, ok := S.Float(i, m); ok && !math.IsNaN(v) {
				samples[id][m] = append(samples[id][m], v)
			}
		}
	}
	for _, id := range order {
		c := cells[id]
		for m, v := range samples[id] {
			c.Stats[m] = statOf(v)
		}
		d.Cells = append(d.Cells, *c)
	}
}

// sortAxes orders a numeric axis's values by number; a categorical one keeps the plan's order.
func (d *matrixData) sortAxes() {
	for a := range d.Axes {
		d.Axes[a].Numeric = d.Axes[a].Numeric && numericAxis(d.Axes[a].Name, len(d.Axes[a].Values))
		if d.Axes[a].Numeric {
			v := d.Axes[a].Values
			sort.SliceStable(v, func(i, j int) bool {
				x, _ := strconv.ParseFloat(v[i], 64)
				y, _ := strconv.ParseFloat(v[j], 64)
				return x < y
			})
		}
	}
}

// charted says what the page charts first, heads and which way each metric is better.
func (d *matrixData) charted(run *results.Run) {
	// Charted first: the metrics the report charts over time, then the costs per transaction.
	for _, m := range measure.ChartDefaults() {
		if contains(d.Metrics, m) {
			d.Defaults = append(d.Defaults, m)
		}
	}
	for _, m := range d.Metrics {
		if run.Describe(results.SummaryCSV, m).IsCost() && !allZero(d.Cells, m) { // no reads from a warm buffer pool: nothing to chart
			d.Defaults = append(d.Defaults, m)
		}
	}
	// The run's headline columns (a kind's headline, tx.NAME.p90_ms) first, then compare's.
	metrics := run.Headline()
	for _, m := range measure.CompareDefaults() {
		if !contains(metrics, m) {
			metrics = append(metrics, m)
		}
	}
	d.Headline = headlines(run, d, metrics)
	d.Better = map[string]int{}
	for _, m := range d.Metrics {
		if b := run.Describe(results.SummaryCSV, m).Better; b != 0 {
			d.Better[m] = int(b)
		}
	}
}

func allZero(cells []matrixCell, m string) bool {
	for _, c := range cells {
		if st, ok := c.Stats[m]; ok && (st.Min != 0 || st.Max != 0) {
			return false
		}
	}
	return true
}

func statOf(v []float64) repeatStat {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return repeatStat{N: len(s), Median: med, Min: s[0], Max: s[len(s)-1]}
}

// headlines are the best and worst cell of each target for each key metric that has a
// direction and differs between cells.
func headlines(run *results.Run, d *matrixData, metrics []string) []headline {
	var targets []string
	for _, c := range d.Cells {
		if !contains(targets, c.Target) {
			targets = append(targets, c.Target)
		}
	}
	var out []headline
	for _, m := range metrics {
		dir := float64(run.Describe(results.SummaryCSV, m).Better)
		if dir == 0 {
			continue
		}
		for _, t := range targets {
			h := headline{Metric: m, Target: t}
			found := 0
			for _, c := range d.Cells {
				st, ok := c.Stats[m]
				if c.Target != t || !ok {
					continue
				}
				if found == 0 || dir*(st.Median-h.BestV) > 0 {
					h.Best, h.BestV = c.Key, st.Median
				}
				if found == 0 || dir*(st.Median-h.WorstV) < 0 {
					h.Worst, h.WorstV = c.Key, st.Median
				}
				found++
			}
			if found >= 2 && h.Best != h.Worst {
				out = append(out, h)
			}
		}
	}
	return out
}

// planDescription is the plan's description from plan.yaml, "" when it has none.
func planDescription(plan string) string {
	var p struct {
		Description string `yaml:"description"`
	}
	if yaml.Unmarshal([]byte(plan), &p) != nil {
		return ""
	}
	return strings.TrimSpace(p.Description)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
