package compare

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// Seed makes every bootstrap repeatable: the same folders give the same intervals, so a
// comparison pasted in a ticket reads the same when someone runs it again.
const Seed = 14

const (
	resamples = 2000
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
)

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
}

// stats summarises one run's samples of metric m in a cell.
func stats(cs *cellSamples, m, key string) Stats {
	v := cs.values[m]
	st := Stats{N: len(v), Median: median(v), Mean: mean(v), CV: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Source: NoEstimate}
	switch {
	case len(v) >= 2:
		st.Source, st.Samples = FromRepeats, v
	case len(v) == 1:
		if b := batchMeans(cs, m); len(b) >= minBatches {
			st.Source, st.Samples = FromIntervals, b
		}
	}
	if st.Samples != nil {
		st.CV = cv(st.Samples)
		rng := newRand(key, m)
		lo, hi := bootstrap(rng, func(r *rand.Rand) float64 { return mean(resample(r, st.Samples)) })
		// an estimate from intervals is centred on the summary's value, which for a
		// percentile is not the mean of the intervals' percentiles
		shift := st.Mean - mean(st.Samples)
		st.Lo, st.Hi = lo+shift, hi+shift
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
		out[b] = mean(xs[b*len(xs)/k : (b+1)*len(xs)/k])
	}
	return out
}

// verdict judges run b against the base run a for metric m.
func verdict(m string, a, b Stats, missing string, seedKey string) Verdict {
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
		if a.Mean == 0 {
			dir := 1.0
			v.Kind = judge(m, dir)
			v.Text = fmt.Sprintf("%s: 0 -> %s (no relative change from 0)", word(m, dir, v.Kind), results.FormatFloat(b.Mean))
			return v
		}
	}
	v.Change = Change(a.Mean, b.Mean)
	if a.Samples == nil && b.Samples == nil {
		v.Kind = NoNoiseEstimate
		v.Text = fmt.Sprintf("no noise estimate: %+.1f%% (one repeat, too few intervals)", v.Change)
		return v
	}
	rng := newRand(seedKey, m)
	draw := func(r *rand.Rand, s Stats) float64 {
		if s.Samples == nil {
			return s.Mean
		}
		// centred on the summary's mean, as in stats
		return mean(resample(r, s.Samples)) + s.Mean - mean(s.Samples)
	}
	v.Lo, v.Hi = bootstrap(rng, func(r *rand.Rand) float64 { return Change(draw(r, a), draw(r, b)) })
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
		return v
	}
	dir := 1.0
	if v.Change < 0 {
		dir = -1
	}
	v.Kind = judge(m, dir)
	lo, hi := math.Abs(v.Lo), math.Abs(v.Hi)
	if lo > hi {
		lo, hi = hi, lo
	}
	v.Text = fmt.Sprintf("%s by %s%% (95%% CI %s–%s%%%s)", word(m, dir, v.Kind), pct(math.Abs(v.Change)), pct(lo), pct(hi), est)
	return v
}

// judge is Better or Worse for a change in direction dir (+1 up, -1 down) of metric m;
// for a metric of no known direction, "higher" or "lower".
func judge(m string, dir float64) string {
	b := float64(results.Describe(results.SummaryCSV, m).Better)
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
func word(m string, dir float64, kind string) string {
	if kind != Better && kind != Worse {
		return kind
	}
	unit := results.Describe(results.SummaryCSV, m).Unit
	if unit == "" && strings.HasSuffix(m, "_ms") {
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

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// cv is the sample standard deviation over the mean.
func cv(v []float64) float64 {
	m := mean(v)
	if len(v) < 2 {
		return math.NaN()
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	if ss == 0 {
		return 0 // all alike, zeros included
	}
	if m == 0 {
		return math.NaN()
	}
	return math.Sqrt(ss/float64(len(v)-1)) / math.Abs(m)
}

func resample(r *rand.Rand, v []float64) []float64 {
	out := make([]float64, len(v))
	for i := range out {
		out[i] = v[r.IntN(len(v))]
	}
	return out
}

// bootstrap draws the statistic resamples times and returns its 2.5th and 97.5th percentiles.
func bootstrap(r *rand.Rand, stat func(*rand.Rand) float64) (lo, hi float64) {
	draws := make([]float64, 0, resamples)
	for i := 0; i < resamples; i++ {
		if x := stat(r); !math.IsNaN(x) && !math.IsInf(x, 0) {
			draws = append(draws, x)
		}
	}
	if len(draws) < resamples/2 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(draws)
	return draws[int(0.025*float64(len(draws)-1))], draws[int(math.Ceil(0.975*float64(len(draws)-1)))]
}

// newRand is a generator seeded by Seed and what it is for, so that one cell's draws do
// not depend on how many cells came before it.
func newRand(parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(Seed, h.Sum64()))
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
