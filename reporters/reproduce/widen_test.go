package reproduce

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
)

// noisyEffect is one folder's effect of a cell whose repeats are noisy: its base's 3 repeats
// around 100 and its value's around 100·(1+change/100), each with a coefficient of variation
// cv (a log-normal draw).
func noisyEffect(r *rand.Rand, change, cv float64, key string) axiseffects.Effect {
	cell := func(mean float64) compare.Stats {
		v := make([]float64, 3)
		for i := range v {
			v[i] = mean * math.Exp(cv*r.NormFloat64()-cv*cv/2)
		}
		return compare.Stats{N: len(v), Source: compare.FromRepeats, Samples: v}
	}
	e := axiseffects.Effect{Metric: "p95_ms", Base: cell(100), This: cell(100 * (1 + change/100))}
	e.Verdict = compare.Judge(results.Describe(results.SummaryCSV, "p95_ms"), e.Base, e.This, key)
	return e
}

// A rerun of the same servers, with three repeats as noisy as a busy host makes a 95th
// percentile (a coefficient of variation of 40%), is a reproduction or undecided, and at most
// as often refuted as a 95% interval allows: the pool plan's rerun as published, at a load of
// 12 per CPU, said "not reproduced" (+161% published, +310% here) while the difference's
// interval was a bootstrap of three values, under half the width of the effects'.
func TestNoisyRerunAsPublishedIsRarelyRefuted(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 44))
	const trials = 300
	refuted := 0
	for range trials {
		pub, here := noisyEffect(r, 160, 0.4, "p"), noisyEffect(r, 160, 0.4, "h")
		e := Effect{Metric: pub.Metric, Published: side(pub), Here: side(here)}
		e.Band = band(e.Published.Change)
		e.Diff = e.Here.Change - e.Published.Change
		e.DiffLo, e.DiffHi = diffCI(pub, here, "trial")
		if v, _ := Decide(e); v == NotReproduced {
			refuted++
		}
	}
	if refuted > trials*5/100 {
		t.Errorf("%d of %d reruns of the same servers said not reproduced; a 95%% rule allows about %d", refuted, trials, trials*5/100)
	}
	t.Logf("%d of %d refuted", refuted, trials)
}
