package html

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// headlineData is what the top of the report shows under the plan's name besides the
// matrix's best and worst: the figures the run is judged by, and a load shape's knee.
type headlineData struct {
	// Metrics are the run's headline columns (results.Headline: tpcc's tpmC and
	// tx.NAME.p90_ms); Figures their values per target when there is no matrix to pick a
	// best and worst from.
	Metrics []string `json:"metrics,omitempty"`
	Figures []figure `json:"figures,omitempty"`
	// Knee is a load shape's throughput and latency against its stages' level.
	Knee *kneeData `json:"knee,omitempty"`
	// Stalls say, one sentence each, which iterations did not run as planned (run.json's
	// stall): longer than planned, or intervals missing.
	Stalls []string `json:"stalls,omitempty"`
	// Behind say, one sentence each, which iterations fell behind their schedule (run.json's
	// behind): an open loop, a replay at its captured timing, whose events started late.
	Behind []string `json:"behind,omitempty"`
}

// figure is one headline column on one target: the median of its iterations that are not
// broken, N of them.
type figure struct {
	Target string  `json:"target"`
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
	N      int     `json:"n"`
}

// kneeData is, per iteration, each stage row's figures against the stage's level.
type kneeData struct {
	// X is the stage rows' column of the level: the stage's rate (open loop) or threads;
	// the stage's number in folders written before stage rows had their level.
	X       string       `json:"x"`
	Metrics []string     `json:"metrics"` // the figures drawn: the report's first charts (throughput, p95)
	Series  []kneeSeries `json:"series"`
}

type kneeSeries struct {
	Iteration string                `json:"iteration"`
	Target    string                `json:"target"`
	X         []float64             `json:"x"`
	Values    map[string][]*float64 `json:"values"` // per metric, one per X; null when empty
}

// stallsOf is one sentence per stalled iteration: "iteration 3 (threads=8): measured 26.0 s
// of a planned 20 s; ...".
func stallsOf(run *results.Run) []string {
	return sentences(run, func(it *results.IterationInfo) string {
		if it.Stall == nil {
			return ""
		}
		return it.Stall.String()
	})
}

// behindOf is one sentence per iteration that fell behind its schedule: "iteration 1: fell
// behind its schedule: events started 812 ms late at p99 ...".
func behindOf(run *results.Run) []string {
	return sentences(run, func(it *results.IterationInfo) string {
		if it.Behind == nil {
			return ""
		}
		return it.Behind.String()
	})
}

// sentences is what says gives of each iteration, after the iteration and its cell; an
// iteration it gives "" is left out.
func sentences(run *results.Run, says func(*results.IterationInfo) string) []string {
	var out []string
	for i := range run.Info.Iterations {
		it := &run.Info.Iterations[i]
		s := says(it)
		if s == "" {
			continue
		}
		var cell []string
		for _, f := range it.Matrix {
			cell = append(cell, f.Name+"="+f.Value)
		}
		where := "iteration " + strconv.Itoa(it.Index)
		if len(cell) > 0 {
			where += " (" + strings.Join(cell, " ") + ")"
		}
		out = append(out, where+": "+s)
	}
	return out
}

// failedIterations says, for each iteration that did not pass, why ("failed: REASON"), for
// the charts to mark it; broken are those whose numbers are kept out of best and worst.
func failedIterations(run *results.Run) (why map[string]string, broken map[string]bool) {
	why, broken = map[string]string{}, map[string]bool{}
	for i := range run.Info.Iterations {
		it := &run.Info.Iterations[i]
		k := strconv.Itoa(it.Index)
		if w := it.Why(); w != "" {
			why[k] = it.Status + ": " + w
		}
		if it.Broken() {
			broken[k] = true
		}
	}
	return why, broken
}

// headlineOf is the headline's data; nil when there is nothing for it (no headline column,
// no stages).
func headlineOf(run *results.Run) *headlineData {
	_, broken := failedIterations(run)
	h := &headlineData{Metrics: run.Headline(), Knee: kneeOf(run, broken), Stalls: stallsOf(run), Behind: behindOf(run)}
	if len(run.Info.Axes) == 0 && len(h.Metrics) > 0 {
		S := run.Summary
		var targets []string
		for i := range S.Rows {
			if t := S.Value(i, results.ColTarget); !slices.Contains(targets, t) {
				targets = append(targets, t)
			}
		}
		for _, t := range targets {
			for _, m := range h.Metrics {
				var v []float64
				for i := range S.Rows {
					if S.Value(i, results.ColTarget) != t || broken[S.Value(i, results.ColIteration)] {
						continue
					}
					if x, ok := S.Float(i, m); ok && !math.IsNaN(x) {
						v = append(v, x)
					}
				}
				if len(v) > 0 {
					st := statOf(v)
					h.Figures = append(h.Figures, figure{Target: t, Metric: m, Value: st.Median, N: st.N})
				}
			}
		}
	}
	if len(h.Figures) == 0 && h.Knee == nil && len(h.Metrics) == 0 && len(h.Stalls) == 0 && len(h.Behind) == 0 {
		return nil
	}
	return h
}

// kneeOf draws the stage rows' throughput and p95 against the stage's level, an iteration
// a series; nil without stage rows.
func kneeOf(run *results.Run, broken map[string]bool) *kneeData {
	St := run.Stages
	if St == nil || len(St.Rows) == 0 {
		return nil
	}
	has := func(col string) bool {
		for i := range St.Rows {
			if _, ok := St.Float(i, col); ok {
				return true
			}
		}
		return false
	}
	k := &kneeData{X: results.ColStage}
	for _, c := range []string{results.ColStageRate, results.ColStageThreads} {
		if has(c) {
			k.X = c
			break
		}
	}
	for _, m := range measure.ChartDefaults() {
		if has(m) {
			k.Metrics = append(k.Metrics, m)
		}
	}
	if len(k.Metrics) == 0 {
		return nil
	}
	bySeries := map[string]*kneeSeries{}
	var order []string
	for i := range St.Rows {
		it, t := St.Value(i, results.ColIteration), St.Value(i, results.ColTarget)
		x, ok := St.Float(i, k.X)
		if broken[it] || !ok {
			continue
		}
		id := it + "\x00" + t
		s := bySeries[id]
		if s == nil {
			s = &kneeSeries{Iteration: it, Target: t, Values: map[string][]*float64{}}
			bySeries[id] = s
			order = append(order, id)
		}
		s.X = append(s.X, x)
		for _, m := range k.Metrics {
			var p *float64
			if v, ok := St.Float(i, m); ok && !math.IsNaN(v) {
				p = &v
			}
			s.Values[m] = append(s.Values[m], p)
		}
	}
	for _, id := range order {
		k.Series = append(k.Series, *bySeries[id])
	}
	if len(k.Series) == 0 {
		return nil
	}
	return k
}

// stageLevels names each stage of each iteration by its level ("threads 64"), from the
// stage rows; nil for a folder whose stage rows have no level.
func stageLevels(run *results.Run) map[string]map[int]string {
	St := run.Stages
	if St == nil {
		return nil
	}
	out := map[string]map[int]string{}
	for i := range St.Rows {
		stage, err := strconv.Atoi(St.Value(i, results.ColStage))
		if err != nil {
			continue
		}
		for _, c := range []string{results.ColStageRate, results.ColStageThreads} {
			if v := St.Value(i, c); v != "" {
				it := St.Value(i, results.ColIteration)
				if out[it] == nil {
					out[it] = map[int]string{}
				}
				out[it][stage] = c + " " + v
				break
			}
		}
	}
	return out
}
