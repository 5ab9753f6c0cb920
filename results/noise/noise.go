// Package noise is the statistics behind every "faster, slower or the same" quadrant says:
// means, spread, a seeded bootstrap of a confidence interval and the relative change. It
// holds no knowledge of runs or servers, so that the executor (quadrant verify) and the
// reporters (quadrant compare) judge noise by one rule.
package noise

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// Resamples is how many times a bootstrap draws its statistic: enough that the 2.5th and
// 97.5th percentiles move by well under a percent between seeds.
const Resamples = 2000

// Mean is the arithmetic mean, NaN for no values.
func Mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Median is the middle value (the mean of the two middle ones), NaN for no values.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Variance is the sample variance of v (over n-1); NaN for fewer than 2 values.
func Variance(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	m := Mean(v)
	ss := 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(v)-1)
}

// CV is the sample standard deviation over the mean.
func CV(v []float64) float64 {
	vr := Variance(v)
	switch {
	case math.IsNaN(vr):
		return math.NaN()
	case vr == 0:
		return 0 // all alike, zeros included
	case Mean(v) == 0:
		return math.NaN()
	}
	return math.Sqrt(vr) / math.Abs(Mean(v))
}

// Change is the relative change of v against base, in percent (NaN when undefined).
func Change(base, v float64) float64 {
	if math.IsNaN(base) || math.IsNaN(v) || base == 0 {
		return math.NaN()
	}
	return 100 * (v - base) / base
}

// Resample draws len(v) values from v with replacement.
func Resample(r *rand.Rand, v []float64) []float64 {
	out := make([]float64, len(v))
	for i := range out {
		out[i] = v[r.IntN(len(v))]
	}
	return out
}

// Bootstrap draws the statistic Resamples times and returns its 2.5th and 97.5th
// percentiles: a 95% confidence interval. NaN when most draws were undefined.
func Bootstrap(r *rand.Rand, stat func(*rand.Rand) float64) (lo, hi float64) {
	draws := make([]float64, 0, Resamples)
	for i := 0; i < Resamples; i++ {
		if x := stat(r); !math.IsNaN(x) && !math.IsInf(x, 0) {
			draws = append(draws, x)
		}
	}
	if len(draws) < Resamples/2 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(draws)
	return draws[int(0.025*float64(len(draws)-1))], draws[int(math.Ceil(0.975*float64(len(draws)-1)))]
}

// ChangeCI is the change of the mean of b against the mean of a, in percent, with its 95%
// bootstrap interval (each side resampled on its own). The interval is NaN when a side has
// fewer than two values: one value says nothing of the noise.
func ChangeCI(r *rand.Rand, a, b []float64) (change, lo, hi float64) {
	change = Change(Mean(a), Mean(b))
	if len(a) < 2 || len(b) < 2 {
		return change, math.NaN(), math.NaN()
	}
	lo, hi = Bootstrap(r, func(r *rand.Rand) float64 { return Change(Mean(Resample(r, a)), Mean(Resample(r, b))) })
	return change, lo, hi
}

// NewRand is a generator seeded by seed and what it is for, so that one cell's draws do not
// depend on how many cells came before it: the same input gives the same intervals, and a
// verdict pasted in a ticket reads the same when someone runs it again.
func NewRand(seed uint64, parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Percentile is the q-th percentile (0 < q <= 100) of v by nearest rank: a value that was
// measured, never one between two. NaN for no values.
func Percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	k := int(math.Ceil(q/100*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// tQuantile is Student's t 97.5th percentile by degrees of freedom (1 to 30).
var tQuantile = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
	2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// Widen is the factor that takes a percentile bootstrap interval of a mean of n values to
// the width Student's t gives: t(n-1)·sqrt(n/(n-1))/1.96, the expanded percentile interval
// (Hesterberg, "What teachers should know about the bootstrap", 2015). The bootstrap of a
// few values is far too narrow: it resamples the spread of the values it has, shrunk by
// sqrt((n-1)/n), and uses the normal's 1.96 where t's tails are much heavier; with 3 values
// its "95%" interval is under half as wide as it should be. 2.69 for 3 values, 1.58 for 5,
// 1.22 for 10, 1 from about 100; NaN below 2.
func Widen(n int) float64 {
	if n < 2 {
		return math.NaN()
	}
	return T95(float64(n-1)) * math.Sqrt(float64(n)/float64(n-1)) / 1.959964
}

// T95 is Student's t 97.5th percentile for df degrees of freedom, df rounded down (a
// Welch-Satterthwaite df is fractional; rounding down widens); NaN below 1.
func T95(df float64) float64 {
	d := int(df)
	switch {
	case d < 1:
		return math.NaN()
	case d <= len(tQuantile):
		return tQuantile[d-1]
	}
	// beyond 30: t's quantile by its first-order expansion, z(1 + (1+z²)/(4 df))
	return 1.959964 * (1 + (1+1.959964*1.959964)/(4*float64(d)))
}

// WelchDF is the Welch-Satterthwaite degrees of freedom of a sum of independent means'
// variances: parts[i] is one mean's variance (its values' variance over their count) and
// n[i] its count. NaN when every part is 0 or a count is below 2.
func WelchDF(parts []float64, n []int) float64 {
	var sum, den float64
	for i, v := range parts {
		if n[i] < 2 {
			return math.NaN()
		}
		sum += v
		den += v * v / float64(n[i]-1)
	}
	if den == 0 {
		return math.NaN()
	}
	return sum * sum / den
}

// WidenAbout widens the interval lo..hi about est by Widen(n), each side by its own
// distance, so a skewed interval stays skewed.
func WidenAbout(lo, hi, est float64, n int) (float64, float64) {
	k := Widen(n)
	if math.IsNaN(k) || math.IsNaN(est) {
		return lo, hi
	}
	return est - k*(est-lo), est + k*(hi-est)
}
