// Package effects answers the question a matrix asks: what each axis does. For every
// axis, each of its values against its first value, at each combination of the other
// axes (and target), judged by compare's noise-aware verdict over the cells' repeats:
// "flush fsync vs O_DIRECT at threads=4: tps -20.0%, slower by 20% (95% CI 19–21%)".
package axiseffects

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// Line is one axis value against the axis's first value, at one combination of the other
// axes on one target: a sentence of the report.
type Line struct {
	Axis        string
	Value, Base string
	At          []results.Field // the other axes' values, in the run's axis order
	Target      string
	Targets     int // how many targets the run's cells are on: the target is named when more than one
	Effects     []Effect
}

// Effect is one metric's change in a Line, from Base's cell to Value's.
type Effect struct {
	Metric     string
	Base, This compare.Stats
	Verdict    compare.Verdict
}

// Metrics are the columns effects are computed for: the run's headline columns
// (results.Headline) and the metrics a report charts first (throughput and p95,
// measure.ChartDefaults), those the summary has.
func Metrics(run *results.Run) []string {
	out := slices.Clone(run.Headline())
	for _, m := range measure.ChartDefaults() {
		if !slices.Contains(out, m) && hasColumn(run, m) {
			out = append(out, m)
		}
	}
	return out
}

func hasColumn(run *results.Run, m string) bool {
	for i := range run.Summary.Rows {
		if _, ok := run.Summary.Float(i, m); ok {
			return true
		}
	}
	return false
}

// cellInfo is a matrix cell as its summary rows name it.
type cellInfo struct {
	key    string
	values map[string]string // axis -> value
	target string
}

// Compute is every axis's effect in run for Metrics(run); nil without a matrix. The
// cells' noise is compare's (repeats, or batch means of one repeat's intervals), and each
// verdict is compare.Judge of the two cells' samples.
func Compute(run *results.Run) []Line {
	axes := run.Info.Axes
	metrics := Metrics(run)
	if len(axes) == 0 || len(metrics) == 0 || run.Summary == nil {
		return nil
	}
	c := compare.Compare([]*results.Run{run}, metrics)
	byKey := map[string]*compare.Cell{}
	for i := range c.Cells {
		byKey[c.Cells[i].Key] = &c.Cells[i]
	}
	cells, targets := cellsOf(run)
	var out []Line
	for _, axis := range axes {
		vals := axisValues(cells, axis)
		if len(vals) < 2 {
			continue
		}
		for _, v := range vals[1:] {
			for _, combo := range combinations(cells, axes, axis) {
				base, this := find(cells, combo, axis, vals[0]), find(cells, combo, axis, v)
				if base == nil || this == nil {
					continue
				}
				l := Line{Axis: axis, Value: v, Base: vals[0], At: others(base, axes, axis), Target: base.target, Targets: targets}
				for _, m := range metrics {
					l.Effects = append(l.Effects, effect(c, byKey[base.key], byKey[this.key], m, l.seedKey()))
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// effect judges metric m of cell b against cell a.
func effect(c *compare.Comparison, a, b *compare.Cell, m, seedKey string) Effect {
	e := Effect{Metric: m, Base: a.Stats[m][0], This: b.Stats[m][0]}
	switch {
	case e.Base.N == 0 || math.IsNaN(e.Base.Mean):
		e.Verdict = notComparable("no value of " + m + " in the base cell")
	case e.This.N == 0 || math.IsNaN(e.This.Mean):
		e.Verdict = notComparable("no value of " + m + " in this cell")
	default:
		e.Verdict = compare.Judge(c.Describe(m), e.Base, e.This, seedKey)
	}
	return e
}

func notComparable(why string) compare.Verdict {
	return compare.Verdict{Kind: compare.NotComparable, Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Text: "not comparable: " + why}
}

// cellsOf lists the run's cells in the order of their first iteration (the plan's order),
// and how many targets they are on.
func cellsOf(run *results.Run) ([]*cellInfo, int) {
	S := run.Summary
	rows := make([]int, len(S.Rows))
	for i := range rows {
		rows[i] = i
	}
	iter := func(i int) int { n, _ := strconv.Atoi(S.Value(i, results.ColIteration)); return n }
	sort.SliceStable(rows, func(a, b int) bool { return iter(rows[a]) < iter(rows[b]) })
	seen := map[string]bool{}
	var out []*cellInfo
	targets := map[string]bool{}
	for _, i := range rows {
		key := compare.CellKey(run, i)
		if seen[key] {
			continue
		}
		seen[key] = true
		ci := &cellInfo{key: key, values: map[string]string{}, target: S.Value(i, results.ColTarget)}
		for _, a := range run.Info.Axes {
			ci.values[a] = S.Value(i, a)
		}
		targets[ci.target] = true
		out = append(out, ci)
	}
	return out, len(targets)
}

// axisValues are axis's values in the cells' order, sorted by number when all are numbers:
// the first is what the others are measured against.
func axisValues(cells []*cellInfo, axis string) []string {
	var vals []string
	for _, c := range cells {
		if v := c.values[axis]; !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	nums := make(map[string]float64, len(vals))
	for _, v := range vals {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return vals
		}
		nums[v] = f
	}
	sort.SliceStable(vals, func(a, b int) bool { return nums[vals[a]] < nums[vals[b]] })
	return vals
}

// combinations are the distinct cells of the other axes and target, each represented by
// its first cell.
func combinations(cells []*cellInfo, axes []string, axis string) []*cellInfo {
	seen := map[string]bool{}
	var out []*cellInfo
	for _, c := range cells {
		k := comboKey(c, axes, axis)
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

func comboKey(c *cellInfo, axes []string, axis string) string {
	var b strings.Builder
	for _, a := range axes {
		if a != axis {
			b.WriteString(a + "=" + c.values[a] + "\x00")
		}
	}
	return b.String() + "@" + c.target
}

// find is the cell of combo's other-axis values and target with axis at v.
func find(cells []*cellInfo, combo *cellInfo, axis, v string) *cellInfo {
	for _, c := range cells {
		if c.target != combo.target || c.values[axis] != v {
			continue
		}
		same := true
		for a, x := range combo.values {
			if a != axis && c.values[a] != x {
				same = false
			}
		}
		if same {
			return c
		}
	}
	return nil
}

func others(c *cellInfo, axes []string, axis string) []results.Field {
	var out []results.Field
	for _, a := range axes {
		if a != axis {
			out = append(out, results.Field{Name: a, Value: c.values[a]})
		}
	}
	return out
}

// Pair is "flush fsync vs O_DIRECT".
func (l Line) Pair() string { return l.Axis + " " + l.Value + " vs " + l.Base }

// Where is "threads=4" (and " @target" on a run of several targets); "" for a one-axis
// run on one target.
func (l Line) Where() string {
	var parts []string
	for _, f := range l.At {
		parts = append(parts, f.Name+"="+f.Value)
	}
	if l.Targets > 1 {
		parts = append(parts, "@"+l.Target)
	}
	return strings.Join(parts, " ")
}

// seedKey seeds the bootstrap of the line's verdicts: the same folder gives the same
// intervals.
func (l Line) seedKey() string {
	return l.Pair() + " at " + l.Where() + " @" + l.Target
}

// SeedKey is the key Compute seeds a line's bootstraps with, for checking a verdict by hand.
func (l Line) SeedKey() string { return l.seedKey() }

// Sentence is "flush fsync vs O_DIRECT at threads=4: tps -20.0%, slower by 20% (95% CI
// 19–21%); p95_ms +0.0%, within noise (±1.2%)". The folder's strings are in it as they
// are: a caller printing to a terminal escapes them (results.PrintableText).
func (l Line) Sentence() string {
	head := l.Pair()
	if w := l.Where(); w != "" {
		head += " at " + w
	}
	var parts []string
	for _, e := range l.Effects {
		parts = append(parts, e.Text())
	}
	return head + ": " + strings.Join(parts, "; ")
}

// Text is "tps -20.0%, slower by 20% (95% CI 19–21%)", or the metric and why it has no change.
func (e Effect) Text() string {
	if math.IsNaN(e.Verdict.Change) {
		return e.Metric + " " + e.Verdict.Text
	}
	return fmt.Sprintf("%s %+.1f%%, %s", e.Metric, e.Verdict.Change, e.Verdict.Text)
}

// WriteText prints lines under a heading naming dir, one sentence a line; nothing when
// there are none. The folder's strings are a stranger's and w is a terminal as often as
// not: the text is escaped whole (results.PrintableText).
func WriteText(w io.Writer, dir string, lines []Line) error {
	if len(lines) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\neffects in %s (each value against the axis's first; 95%% CI by bootstrap over repeats):\n", dir)
	for _, l := range lines {
		b.WriteString("  " + l.Sentence() + "\n")
	}
	_, err := io.WriteString(w, results.PrintableText(b.String()))
	return err
}
