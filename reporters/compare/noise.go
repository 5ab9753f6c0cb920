package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/results/noise"
)

// Seed makes every bootstrap repeatable: the same folders give the same intervals, so a
// comparison pasted in a ticket reads the same when someone runs it again.
const Seed = 14

const (
	// minBatches is the fewest batch means worth an estimate; fewer intervals than two per
	// batch give "no noise estimate".
	minBatches = 3
	maxBatches = 10
)

// Noise sources, as Stats.Source says them.
const (
	FromRepeats   = "repeats"
	FromIntervals = "intervals" // batch means of the per-interval series: an estimate
	NoEstimate    = "none"
)

// Stats are one run's values of one metric in one cell.
type Stats struct {
	N      int     // repeats measured
	Median float64 // the value shown
	Mean   float64
	CV     float64 // coefficient of variation of the samples below, NaN without an estimate
	// Lo and Hi are the 95% confidence interval of the mean (bootstrap), NaN without one.
	Lo, Hi float64
	Source string // FromRepeats, FromIntervals or NoEstimate
	// Samples are what the bootstrap draws from: the repeats, or the batch means of the
	// interval series of the only repeat.
	Samples []float64 `json:"-"`
}

// Verdict is how one run's cell compares with the first run's, for one metric.
type Verdict struct {
	Kind   string  // Better, Worse, WithinNoise, NotComparable, NoNoiseEstimate
	Change float64 // percent, of the means; NaN when not comparable
	Lo, Hi float64 // 95% CI of Change
	Text   string  // "faster by 12% (95% CI 8–16%)"
}

// Verdict kinds.
const (
	Better          = "better"
	Worse           = "worse"
	WithinNoise     = "within noise"
	NotComparable   = "not comparable"
	NoNoiseEstimate = "no noise estimate"
	// Inconclusive is a change whose interval leaves out 0 but comes from too few repeats
	// (MinRepeats) to be trusted: two values give a bootstrap interval far too narrow.
	Inconclusive = "inconclusive"
	// Confounded is a change the host's load explains: the host was busier on the worse
	// side by more than ConfoundedLoad, enough to account for it (confound). Another job
	// may have made it, not the server.
	Confounded = "confounded"
)

// MinRepeats is the fewest repeats whose interval a verdict trusts: with two, the
// bootstrap's interval of the mean is the range of two values, far narrower than the
// noise (Student's t for n=2 is 12.7, not 2).
const MinRepeats = 3

// Significant says v claims a change: better, worse, higher or lower.
func (v Verdict) Significant() bool {
	switch v.Kind {
	case WithinNoise, NotComparable, NoNoiseEstimate, Inconclusive, Confounded, "":
		return false
	}
	return true
}

// cellSamples are the values of a cell's summary rows (interrupted ones left out: they
// measured part of a workload) and their iteration numbers.
type cellSamples struct {
	values     map[string][]float64
	iterations []string
	target     string
	rows       int // rows of the cell, interrupted included
	// intervals are, for a cell of one iteration, each metric's measured (not warmup) values
	// per interval, in time order: what its batch means are cut from (readSeries).
	intervals map[string][]float64
	// loads are the host's load per CPU of each iteration (results.HostLoad.PerCPU);
	// noLoad says an iteration had none recorded (an older folder): no judgement then.
	loads  []float64
	noLoad bool
}

// iterationLoads are run.json's host loads by iteration number.
func iterationLoads(run *results.Run) map[string]float64 {
	out := map[string]float64{}
	for _, it := range run.Info.Iterations {
		if it.HostLoad != nil && !math.IsNaN(it.HostLoad.PerCPU()) {
			out[strconv.Itoa(it.Index)] = it.HostLoad.PerCPU()
		}
	}
	return out
}

func (cs *cellSamples) addLoad(loads map[string]float64, iteration string) {
	if l, ok := loads[iteration]; ok {
		cs.loads = append(cs.loads, l)
	} else {
		cs.noLoad = true
	}
}

// ConfoundedLoad is how much busier the host may be on one side of a verdict than on the
// other before compare asks whether the load explains the change: the busier side's load per
// CPU (each side's mean over its iterations of results.HostLoad.PerCPU), counted as at least
// 1, over the quieter side's, above 1+ConfoundedLoad. Below one runnable task per CPU every
// task has a CPU; above it, the benchmark's share of the CPUs goes as 1/load.
const ConfoundedLoad = 0.1

// loadRatio is the busier side's load per CPU (at least 1) over the quieter side's, and which
// side was the busier (+1: b, -1: a); 1 when a side has no load recorded.
func loadRatio(a, b *cellSamples) (ratio, busier float64, why string) {
	if a == nil || b == nil || a.noLoad || b.noLoad || len(a.loads) == 0 || len(b.loads) == 0 {
		return 1, 0, ""
	}
	la, lb := noise.Mean(a.loads), noise.Mean(b.loads)
	busier = 1
	if la > lb {
		busier = -1
	}
	why = fmt.Sprintf("the host's load per CPU was %.2f around the first run's iterations and %.2f around this run's", la, lb)
	return max(1, la, lb) / max(1, min(la, lb)), busier, why
}

// explainable is how large a change, in percent, a load ratio explains: a figure that went
// down (a throughput on the busier side, a latency on the quieter) to 1/ratio, one that went
// up by the ratio.
func explainable(change, ratio float64) float64 {
	if change < 0 {
		return 100 * (1 - 1/ratio)
	}
	return 100 * (ratio - 1)
}

// confound marks a verdict Confounded when the host was busier on one side (by more than
// ConfoundedLoad) and the load explains the change: it went the way load moves a figure
// (worse on the busier side, better on the quieter; either way for a metric of no better
// direction), and the near end of its interval is within what the load ratio accounts for. A
// neighbour's job moves a server's figures as much as a change of its own; a change larger
// than the load explains (a server six times slower) or against it stands. A verdict the load
// does not make confounded says the load when it differed.
func confound(v Verdict, a, b *cellSamples) Verdict {
	ratio, busier, why := loadRatio(a, b)
	if ratio <= 1+ConfoundedLoad {
		return v
	}
	way := v.Kind == "higher" || v.Kind == "lower" || busier > 0 && v.Kind == Worse || busier < 0 && v.Kind == Better
	near := math.Min(math.Abs(v.Lo), math.Abs(v.Hi))
	if math.IsNaN(v.Lo) || math.IsNaN(v.Change) { // from 0: no percent to weigh, the way decides
		near = 0
	}
	if v.Significant() && way && near <= explainable(v.Change, ratio) {
		v.Kind = Confounded
		v.Text = fmt.Sprintf("confounded: %s; %s, which explains a change of up to %s%%, so the host, not the server, may have made it",
			v.Text, why, pct(explainable(v.Change, ratio)))
		return v
	}
	v.Text += "; " + why
	return v
}

// stats summarises one run's samples of metric m in a cell.
func stats(cs *cellSamples, m, key string) Stats {
	v := cs.values[m]
	st := Stats{N: len(v), Median: noise.Median(v), Mean: noise.Mean(v), CV: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Source: NoEstimate}
	switch {
	case len(v) >= 2:
		st.Source, st.Samples = FromRepeats, v
	case len(v) == 1:
		if b := batchMeans(cs, m); len(b) >= minBatches {
			st.Source, st.Samples = FromIntervals, b
		}
	}
	if st.Samples != nil {
		st.CV = noise.CV(st.Samples)
		rng := noise.NewRand(Seed, key, m)
		lo, hi := noise.Bootstrap(rng, func(r *rand.Rand) float64 { return noise.Mean(noise.Resample(r, st.Samples)) })
		// an estimate from intervals is centred on the summary's value, which for a
		// percentile is not the mean of the intervals' percentiles
		shift := st.Mean - noise.Mean(st.Samples)
		st.Lo, st.Hi = noise.WidenAbout(lo+shift, hi+shift, st.Mean, len(st.Samples))
	}
	return st
}

// batchMeans cuts the measured intervals of the cell's one iteration into up to
// maxBatches consecutive batches and returns each batch's mean: neighbouring intervals
// are correlated, batches much less so.
func batchMeans(cs *cellSamples, m string) []float64 {
	if len(cs.iterations) != 1 {
		return nil
	}
	xs := cs.intervals[m]
	k := len(xs) / 2
	if k > maxBatches {
		k = maxBatches
	}
	if k < minBatches {
		return nil
	}
	out := make([]float64, k)
	for b := 0; b < k; b++ {
		out[b] = noise.Mean(xs[b*len(xs)/k : (b+1)*len(xs)/k])
	}
	return out
}

// Judge is the verdict of b against the base a for metric col, both comparable: what
// Compare says of a cell between runs, for any two sets of samples (reporters/axiseffects
// judges one axis value against another within a run). seedKey seeds the bootstrap.
func Judge(col results.ColumnInfo, a, b Stats, seedKey string) Verdict {
	return verdict(col, a, b, "", seedKey)
}

// verdict judges run b against the base run a for metric col (as the runs describe it).
func verdict(col results.ColumnInfo, a, b Stats, missing string, seedKey string) Verdict {
	m := col.Name
	v := Verdict{Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	notComparable := func(why string) Verdict {
		v.Kind, v.Text = NotComparable, "not comparable: "+why
		return v
	}
	switch {
	case missing != "":
		return notComparable(missing)
	case a.N == 0 || math.IsNaN(a.Mean):
		return notComparable("no value in the first run")
	case b.N == 0 || math.IsNaN(b.Mean):
		return notComparable("no value in this run")
	}
	if a.Mean == 0 || b.Mean == 0 {
		if a.Mean == b.Mean {
			v.Kind, v.Change, v.Lo, v.Hi, v.Text = WithinNoise, 0, 0, 0, "the same (0 in both)"
			return v
		}
		return fewRepeats(fromOrToZero(col, a, b, seedKey), a, b)
	}
	v.Change = noise.Change(a.Mean, b.Mean)
	if a.Samples == nil && b.Samples == nil {
		v.Kind = NoNoiseEstimate
		v.Text = fmt.Sprintf("no noise estimate: %+.1f%% (one repeat, too few intervals)", v.Change)
		return v
	}
	rng := noise.NewRand(Seed, seedKey, m)
	draw := func(r *rand.Rand, s Stats) float64 {
		if s.Samples == nil {
			return s.Mean
		}
		// centred on the summary's mean, as in stats
		return noise.Mean(noise.Resample(r, s.Samples)) + s.Mean - noise.Mean(s.Samples)
	}
	v.Lo, v.Hi = noise.Bootstrap(rng, func(r *rand.Rand) float64 { return noise.Change(draw(r, a), draw(r, b)) })
	v.Lo, v.Hi = widen(v.Lo, v.Hi, v.Change, a, b)
	v.Lo = math.Max(v.Lo, -100) // no figure here goes below 0
	est := ""
	if a.Source != FromRepeats || b.Source != FromRepeats {
		est = ", estimated from intervals"
		if a.Samples == nil || b.Samples == nil {
			est = ", noise of one side only"
		}
	}
	if v.Lo <= 0 && v.Hi >= 0 || math.IsNaN(v.Lo) {
		v.Kind = WithinNoise
		v.Text = fmt.Sprintf("within noise (±%s%%%s)", pct(math.Max(math.Abs(v.Lo), math.Abs(v.Hi))), est)
		return fewRepeats(v, a, b)
	}
	dir := 1.0
	if v.Change < 0 {
		dir = -1
	}
	v.Kind = judge(col, dir)
	lo, hi := math.Abs(v.Lo), math.Abs(v.Hi)
	if lo > hi {
		lo, hi = hi, lo
	}
	v.Text = fmt.Sprintf("%s by %s%% (95%% CI %s–%s%%%s)", word(col, dir, v.Kind), pct(math.Abs(v.Change)), pct(lo), pct(hi), est)
	return fewRepeats(v, a, b)
}

// widen takes a bootstrap interval of a change between a and b to the width Student's t
// gives for the side with fewer samples (noise.Widen): the percentile bootstrap of three
// repeats is less than half as wide as their noise.
func widen(lo, hi, est float64, a, b Stats) (float64, float64) {
	n := 0
	for _, s := range []Stats{a, b} {
		if s.Samples != nil && (n == 0 || len(s.Samples) < n) {
			n = len(s.Samples)
		}
	}
	if n == 0 || math.IsNaN(lo) {
		return lo, hi
	}
	return noise.WidenAbout(lo, hi, est, n)
}

// fewRepeats turns a change drawn from fewer than MinRepeats repeats on a side into
// Inconclusive, and says the count on a verdict within noise: its interval is too narrow
// to stand on.
func fewRepeats(v Verdict, a, b Stats) Verdict {
	n := 0
	for _, s := range []Stats{a, b} {
		if s.Source == FromRepeats && s.N < MinRepeats && (n == 0 || s.N < n) {
			n = s.N
		}
	}
	switch {
	case n == 0:
		return v
	case v.Significant():
		v.Text = fmt.Sprintf("inconclusive: %s, but from %d repeats, too few to trust the interval (give the plan repeat: %d or more)", v.Text, n, MinRepeats)
		v.Kind = Inconclusive
	case v.Kind == WithinNoise:
		v.Text += fmt.Sprintf(", from %d repeats (too few: repeat: %d or more)", n, MinRepeats)
	}
	return v
}

// fromOrToZero judges a metric that is 0 on one side (errors, deadlocks): there is no
// relative change from 0, and one to 0 is -100% in every draw, an interval of 100–100%.
// It judges the difference of the means instead, a change only when its whole 95% interval
// is on one side of 0: one deadlock in one repeat is not a server that deadlocks.
func fromOrToZero(col results.ColumnInfo, a, b Stats, seedKey string) Verdict {
	v := Verdict{Change: noise.Change(a.Mean, b.Mean), Lo: math.NaN(), Hi: math.NaN()}
	fromTo := results.FormatFloat(a.Mean) + " -> " + results.FormatFloat(b.Mean)
	if a.Samples == nil && b.Samples == nil {
		v.Kind, v.Text = NoNoiseEstimate, "no noise estimate: "+fromTo+" (one repeat, too few intervals)"
		return v
	}
	draw := func(r *rand.Rand, s Stats) float64 {
		if s.Samples == nil {
			return s.Mean
		}
		return noise.Mean(noise.Resample(r, s.Samples)) + s.Mean - noise.Mean(s.Samples)
	}
	lo, hi := noise.Bootstrap(noise.NewRand(Seed, seedKey, col.Name), func(r *rand.Rand) float64 { return draw(r, b) - draw(r, a) })
	lo, hi = widen(lo, hi, b.Mean-a.Mean, a, b)
	if a.Mean != 0 { // to 0: the difference's interval in percent of the base
		v.Lo, v.Hi = math.Max(100*lo/a.Mean, -100), 100*hi/a.Mean
	}
	if math.IsNaN(lo) || lo <= 0 && hi >= 0 {
		v.Kind = WithinNoise
		v.Text = fmt.Sprintf("within noise: %s (the difference's 95%% CI %s to %s holds 0)", fromTo, signed(lo), signed(hi))
		return v
	}
	dir := 1.0
	if b.Mean < a.Mean {
		dir = -1
	}
	v.Kind = judge(col, dir)
	v.Text = fmt.Sprintf("%s: %s (95%% CI of the difference %s to %s)", word(col, dir, v.Kind), fromTo, signed(lo), signed(hi))
	return v
}

// signed prints a difference with its sign, "?" when there is none.
func signed(x float64) string {
	if math.IsNaN(x) {
		return "?"
	}
	s := results.FormatFloat(x)
	if x >= 0 {
		s = "+" + s
	}
	return s
}

// judge is Better or Worse for a change in direction dir (+1 up, -1 down) of metric col;
// for a metric of no known direction, "higher" or "lower".
func judge(col results.ColumnInfo, dir float64) string {
	b := float64(col.Better)
	switch {
	case b == 0 && dir > 0:
		return "higher"
	case b == 0:
		return "lower"
	case b*dir > 0:
		return Better
	}
	return Worse
}

// word says a verdict as a DBA would: throughput and latency are faster or slower.
func word(col results.ColumnInfo, dir float64, kind string) string {
	if kind != Better && kind != Worse {
		return kind
	}
	unit := col.Unit
	if unit == "" && strings.HasSuffix(col.Name, "_ms") {
		unit = measure.Millis
	}
	if unit == measure.PerSecond || unit == measure.Millis {
		if kind == Better {
			return "faster"
		}
		return "slower"
	}
	return kind
}

// pct prints a percentage with one decimal below 10 and none above.
func pct(p float64) string {
	if math.IsNaN(p) {
		return "?"
	}
	if p < 10 {
		return strconv.FormatFloat(p, 'f', 1, 64)
	}
	return strconv.FormatFloat(p, 'f', 0, 64)
}
