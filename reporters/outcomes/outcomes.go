// Package outcomes says what a run's steps came to, per matrix cell, as a manager reads it:
// the figures step kinds mark as their outcome in run.json (a failover drill's acknowledged
// commits lost, seconds without a write, recovery), each cell's median and every repeat, and
// for a count of losses, in how many repeats anything was lost, one sentence per axis:
// "replication=async lost acknowledged commits in 3 of 3 repeats (12-40); semisync in 0 of 3".
// It reads the metrics' descriptions (results.MetricInfo's Outcome and Loss), never a step
// kind, so any step kind's records read so.
package outcomes

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/noise"
)

// Outcomes are a run's outcome figures per cell and the sentences on its losses.
type Outcomes struct {
	Metrics []results.MetricInfo // the outcome and loss figures, in run.json's order
	Cells   []Cell
	// Sentences say, per count of losses and per axis (at each combination of the other
	// axes), in how many repeats each value lost something.
	Sentences []string
}

// Cell is one matrix cell on one target: its repeats' figures.
type Cell struct {
	Matrix     []results.Field // the axes' values, in the run's axis order
	Target     string
	Iterations []int
	// Values are per metric, one per iteration (NaN where the step did not record it).
	Values map[string][]float64
}

// Of is what run's steps came to; nil when no step kind described an outcome or a loss, or
// no iteration recorded one.
func Of(run *results.Run) *Outcomes {
	if run == nil || run.Info == nil || run.Summary == nil {
		return nil
	}
	o := &Outcomes{}
	for _, m := range run.Info.Metrics {
		if m.Outcome || m.Loss != "" {
			o.Metrics = append(o.Metrics, m)
		}
	}
	if len(o.Metrics) == 0 {
		return nil
	}
	o.Cells = cellsOf(run, o.Metrics)
	if len(o.Cells) == 0 {
		return nil
	}
	for _, m := range o.Metrics {
		if m.Loss != "" {
			o.Sentences = append(o.Sentences, sentences(run.Info.Axes, o.Cells, m)...)
		}
	}
	return o
}

// cellsOf groups the summary rows that hold a value of one of ms by cell and target, in the
// order of their first iteration; a cell's rows without any (a drill that failed before
// counting) are kept, NaN, so the cell shows it.
func cellsOf(run *results.Run, ms []results.MetricInfo) []Cell {
	S := run.Summary
	has := map[string]bool{} // cell keys with a value
	key := func(i int) string {
		var b strings.Builder
		for _, a := range run.Info.Axes {
			b.WriteString(a + "=" + S.Value(i, a) + "\x00")
		}
		return b.String() + "@" + S.Value(i, results.ColTarget)
	}
	for i := range S.Rows {
		for _, m := range ms {
			if _, ok := S.Float(i, m.Name); ok {
				has[key(i)] = true
			}
		}
	}
	var out []Cell
	at := map[string]int{}
	for _, i := range rowsByIteration(S) {
		k := key(i)
		if !has[k] {
			continue
		}
		if _, ok := at[k]; !ok {
			at[k] = len(out)
			c := Cell{Target: S.Value(i, results.ColTarget), Values: map[string][]float64{}}
			for _, a := range run.Info.Axes {
				c.Matrix = append(c.Matrix, results.Field{Name: a, Value: S.Value(i, a)})
			}
			out = append(out, c)
		}
		c := &out[at[k]]
		n, _ := strconv.Atoi(S.Value(i, results.ColIteration))
		c.Iterations = append(c.Iterations, n)
		for _, m := range ms {
			v, ok := S.Float(i, m.Name)
			if !ok {
				v = math.NaN()
			}
			c.Values[m.Name] = append(c.Values[m.Name], v)
		}
	}
	return out
}

// rowsByIteration are the summary's row indexes in iteration order.
func rowsByIteration(S *results.Data) []int {
	rows := make([]int, len(S.Rows))
	for i := range rows {
		rows[i] = i
	}
	iter := func(i int) int { n, _ := strconv.Atoi(S.Value(i, results.ColIteration)); return n }
	slices.SortStableFunc(rows, func(a, b int) int { return iter(a) - iter(b) })
	return rows
}

// Label is the cell's matrix values ("replication=async"), and its target when the run's
// cells are on several; "all iterations" without a matrix.
func (c Cell) Label(targets int) string {
	var parts []string
	for _, f := range c.Matrix {
		parts = append(parts, f.Name+"="+f.Value)
	}
	if targets > 1 {
		parts = append(parts, "@"+c.Target)
	}
	if len(parts) == 0 {
		return "all iterations"
	}
	return strings.Join(parts, " ")
}

// Median is the median of the cell's values of metric, NaN when none was recorded.
func (c Cell) Median(metric string) float64 {
	v := recorded(c.Values[metric])
	if len(v) == 0 {
		return math.NaN()
	}
	return noise.Median(v)
}

// Lost says of a count of losses in how many of the repeats that counted it it was above 0
// (lost), how many counted (of), how many did not (missing), and the smallest and largest
// count above 0.
func (c Cell) Lost(metric string) (lost, of, missing int, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range c.Values[metric] {
		switch {
		case math.IsNaN(v):
			missing++
		case v > 0:
			lost++
			of++
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		default:
			of++
		}
	}
	return lost, of, missing, lo, hi
}

// Targets is how many targets the cells are on.
func (o *Outcomes) Targets() int {
	seen := map[string]bool{}
	for _, c := range o.Cells {
		seen[c.Target] = true
	}
	return len(seen)
}

func recorded(v []float64) []float64 {
	var out []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// WriteText prints the sentences, one a line, under a title; nothing when there are none.
func WriteText(w io.Writer, o *Outcomes) error {
	if o == nil || len(o.Sentences) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, "Losses per cell:"); err != nil {
		return err
	}
	for _, s := range o.Sentences {
		if _, err := fmt.Fprintln(w, "  "+s); err != nil {
			return err
		}
	}
	return nil
}
