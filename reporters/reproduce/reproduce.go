// Package reproduce answers the question a rerun of a colleague's folder asks: did the
// effects it claims ("innodb_flush_log_at_trx_commit 2 vs 1: tps +21.9% at threads=16")
// come out again? Cell against cell, a rerun can be "within noise" everywhere and still
// miss the claim, which is a difference between two cells. So every effect the published
// folder states (reporters/axiseffects: each axis's value against its first, at each
// combination of the other axes, per target and metric) is matched with the same effect
// in the rerun and judged reproduced, not reproduced or inconclusive from the two effects
// and the bootstrap interval of their difference (results/noise), by the rule in Decide
// (docs/reproduce.md).
package reproduce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/noise"
)

// Verdicts.
const (
	Reproduced    = "reproduced"
	NotReproduced = "not reproduced"
	Inconclusive  = "inconclusive"
)

// BandPoints and BandShare set how far two effects may differ and still agree: the
// tolerance band is ±max(BandPoints percentage points, BandShare of the published effect's
// size). A claim of +21.9% is reproduced by +19%; a claim of +200% by +170%; a claim of
// "no effect" by an effect whose whole interval lies within ±5%.
const (
	BandPoints = 5.0
	BandShare  = 0.2
)

// MinRepeats is the fewest repeats of each of an effect's four cells (two per folder) a
// verdict other than inconclusive needs: one repeat says nothing of the noise, and batch
// means of one repeat's intervals do not see the noise between runs of a cell.
const MinRepeats = 2

// MinRepeatsToRefute is the fewest repeats of each cell a "not reproduced" needs. The
// bootstrap of two values draws only their mean or one of them: its interval spans about
// the two values, where Student's t for two values is 12.7 standard errors wide. So two
// repeats a cell on a busy host can give a narrow interval away from 0 by chance; they
// may confirm a claim (the rerun agrees) but never refute one.
const MinRepeatsToRefute = 3

// Side is one folder's effect: the change of Value's cell against Base's, in percent,
// with its 95% interval (NaN without one) and compare's words for it.
type Side struct {
	Change, Lo, Hi float64
	Kind, Text     string
	Repeats        int // the fewer of the two cells' measured repeats
}

// Significant says the interval lies on one side of zero.
func (s Side) Significant() bool { return s.Lo > 0 || s.Hi < 0 }

// Effect is one published effect, for one metric, and its verdict in the rerun.
type Effect struct {
	Line      axiseffects.Line // the published line: axis, value pair, other axes, target
	Metric    string
	Published Side
	Here      Side
	// Diff is Here's change minus Published's, in percentage points, with its 95%
	// bootstrap interval (each folder's repeats resampled on their own); NaN when unknown.
	Diff, DiffLo, DiffHi float64
	Band                 float64 // the tolerance band, ± points
	Verdict              string  // Reproduced, NotReproduced or Inconclusive
	Why                  string  // the rule's reason, in words
	// Marks are the iterations of the effect's cells that stalled, fell behind their
	// schedule or failed, in either folder: "here: iteration 7 (threads=16 flush=2) stalled: ...".
	Marks []string
}

// Result is every published effect of one rerun.
type Result struct {
	Published, Here *results.Run
	Effects         []Effect
	// Causes are the differences between the two runs known to move the numbers, most
	// likely first (compare.RankedDifferences), at most MaxCauses: what a "not reproduced"
	// names as candidate causes.
	Causes []string
}

// MaxCauses bounds the candidate causes a result names: the first few ranked differences
// are where a DBA looks; the whole ranked list is compare's.
const MaxCauses = 5

// Count is how many effects have verdict v.
func (r *Result) Count(v string) int {
	n := 0
	for _, e := range r.Effects {
		if e.Verdict == v {
			n++
		}
	}
	return n
}

// Judge matches every effect published states with the same effect in here and judges
// each; nil when published has no matrix (no effect to reproduce).
func Judge(published, here *results.Run) *Result {
	res := &Result{Published: published, Here: here}
	hereLines := map[string]axiseffects.Line{}
	for _, l := range axiseffects.Compute(here) {
		hereLines[lineKey(l)] = l
	}
	for _, l := range axiseffects.Compute(published) {
		h, ok := hereLines[lineKey(l)]
		for _, pe := range l.Effects {
			e := Effect{Line: l, Metric: pe.Metric, Published: side(pe), Diff: math.NaN(), DiffLo: math.NaN(), DiffHi: math.NaN()}
			e.Band = band(e.Published.Change)
			e.Marks = append(marks(published, l, "published"), marks(here, l, "here")...)
			he, found := effectOf(h, pe.Metric)
			if !ok || !found {
				e.Here = Side{Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
				e.Verdict, e.Why = Inconclusive, "the rerun has no such effect: "+missingWhy(ok)
				res.Effects = append(res.Effects, e)
				continue
			}
			e.Here = side(he)
			e.Diff = e.Here.Change - e.Published.Change
			e.DiffLo, e.DiffHi = diffCI(pe, he, l.SeedKey())
			e.Verdict, e.Why = Decide(e)
			res.Effects = append(res.Effects, e)
		}
	}
	if len(res.Effects) == 0 {
		return nil
	}
	res.Causes = compare.CandidateCauses(compare.RankedDifferences(published, here), MaxCauses)
	return res
}

func missingWhy(lineFound bool) string {
	if lineFound {
		return "the metric is not in its summary"
	}
	return "no such pair of cells (another matrix, another target name?)"
}

// lineKey matches a line between folders: axis, value pair, the other axes' values, target.
func lineKey(l axiseffects.Line) string {
	return l.Pair() + "\x00" + l.Where() + "\x00" + l.Target
}

func effectOf(l axiseffects.Line, metric string) (axiseffects.Effect, bool) {
	for _, e := range l.Effects {
		if e.Metric == metric {
			return e, true
		}
	}
	return axiseffects.Effect{}, false
}

func side(e axiseffects.Effect) Side {
	v := e.Verdict
	return Side{Change: v.Change, Lo: v.Lo, Hi: v.Hi, Kind: v.Kind, Text: v.Text, Repeats: min(repeats(e.Base), repeats(e.This))}
}

// repeats counts a cell's repeats as noise: batch means of one repeat count as one.
func repeats(s compare.Stats) int {
	if s.Source != compare.FromRepeats {
		return min(s.N, 1)
	}
	return s.N
}

// band is the tolerance around a published change of c percent.
func band(c float64) float64 {
	if math.IsNaN(c) {
		return BandPoints
	}
	return math.Max(BandPoints, BandShare*math.Abs(c))
}

// diffCI is the 95% bootstrap interval of here's change minus published's, in points:
// each of the four cells' repeats resampled on its own, then widened to the width
// Student's t gives (diffWiden). Unwidened, three repeats a cell gave a difference
// interval narrower than either effect's (compare widens those), and a rerun as
// published on a busy host came out "not reproduced": +161% published, +310% here, the
// difference +64 to +233 points while the effects' intervals overlapped from +152 to +328%.
// NaN when a cell has fewer than MinRepeats repeats.
func diffCI(pub, here axiseffects.Effect, seedKey string) (lo, hi float64) {
	cells := []compare.Stats{pub.Base, pub.This, here.Base, here.This}
	for _, c := range cells {
		if repeats(c) < MinRepeats {
			return math.NaN(), math.NaN()
		}
	}
	r := noise.NewRand(compare.Seed, "reproduce", seedKey, pub.Metric)
	draw := func(r *rand.Rand, s compare.Stats) float64 { return noise.Mean(noise.Resample(r, s.Samples)) }
	lo, hi = noise.Bootstrap(r, func(r *rand.Rand) float64 {
		return noise.Change(draw(r, here.Base), draw(r, here.This)) - noise.Change(draw(r, pub.Base), draw(r, pub.This))
	})
	est := changeOf(here) - changeOf(pub)
	k := diffWiden(pub, here)
	if math.IsNaN(k) || math.IsNaN(est) {
		return lo, hi
	}
	return est - k*(est-lo), est + k*(hi-est)
}

func changeOf(e axiseffects.Effect) float64 {
	return noise.Change(noise.Mean(e.Base.Samples), noise.Mean(e.This.Samples))
}

// diffWiden is the factor from the percentile bootstrap's width to Student's t's for the
// difference of two changes, each a ratio of two cells' means: t at the Welch-Satterthwaite
// degrees of freedom of the four means' parts of its variance (the change linearized),
// times sqrt(n/(n-1)) for the bootstrap's shrunk spread at the fewest repeats n, over
// 1.96. Four cells of 3 repeats alike give 8 degrees of freedom (factor 1.44); one noisy
// cell's 2 (factor 2.69, as compare's widening of one change).
func diffWiden(pub, here axiseffects.Effect) float64 {
	var parts []float64
	var ns []int
	for _, e := range []axiseffects.Effect{pub, here} {
		mb, mt := noise.Mean(e.Base.Samples), noise.Mean(e.This.Samples)
		// d(100·(t/b-1)) = 100/b·dt - 100·t/b²·db
		dt, db := 100/mb, 100*mt/(mb*mb)
		parts = append(parts, dt*dt*noise.Variance(e.This.Samples)/float64(len(e.This.Samples)),
			db*db*noise.Variance(e.Base.Samples)/float64(len(e.Base.Samples)))
		ns = append(ns, len(e.This.Samples), len(e.Base.Samples))
	}
	df := noise.WelchDF(parts, ns)
	n := slices.Min(ns)
	if n < 2 {
		return math.NaN()
	}
	if math.IsNaN(df) {
		df = float64(n - 1)
	}
	return noise.T95(df) * math.Sqrt(float64(n)/float64(n-1)) / 1.959964
}

// Decide is the rule (docs/reproduce.md), in this order:
//  1. inconclusive when a cell of the effect stalled, fell behind or failed with an
//     error in either folder (Marks say which), when a cell has fewer than MinRepeats
//     repeats, or when an interval is unknown;
//  2. not reproduced when both effects are significant in opposite directions, or the
//     difference's whole interval lies outside the band (beyond ±Band points), if every
//     cell has MinRepeatsToRefute repeats (inconclusive with fewer);
//  3. reproduced when the published effect is significant, the rerun's is significant in
//     the same direction, and the difference's interval contains 0 or lies within the band;
//  4. reproduced when the published effect is "no effect" (its interval holds 0) and the
//     rerun's whole interval lies within the band around 0;
//  5. inconclusive otherwise: the intervals are too wide to tell.
func Decide(e Effect) (verdict, why string) {
	p, h := e.Published, e.Here
	if broken := brokenMarks(e.Marks); broken != "" {
		return Inconclusive, broken
	}
	if n := min(p.Repeats, h.Repeats); n < MinRepeats {
		return Inconclusive, fmt.Sprintf("a cell has %d repeat, fewer than the %d a verdict needs: rerun with repeat: 3 or more", n, MinRepeats)
	}
	if anyNaN(p.Change, p.Lo, p.Hi, h.Change, h.Lo, h.Hi, e.DiffLo, e.DiffHi) {
		return Inconclusive, "no interval for an effect or their difference (a cell without a value, or a base of 0)"
	}
	b := e.Band
	diff := fmt.Sprintf("difference %+.1f points (95%% CI %+.1f to %+.1f)", e.Diff, e.DiffLo, e.DiffHi)
	refute := func(why string) (string, string) {
		if n := min(p.Repeats, h.Repeats); n < MinRepeatsToRefute {
			return Inconclusive, fmt.Sprintf("%s, but a cell has %d repeats: too few to call it not reproduced (%d or more)", why, n, MinRepeatsToRefute)
		}
		return NotReproduced, why
	}
	switch {
	case p.Significant() && h.Significant() && sign(p.Change) != sign(h.Change):
		return refute("significant in the opposite direction here; " + diff)
	case e.DiffLo > b || e.DiffHi < -b:
		return refute(fmt.Sprintf("%s: all of it beyond the ±%.1f-point band", diff, b))
	case p.Significant() && h.Significant() && (e.DiffLo <= 0 && e.DiffHi >= 0 || e.DiffLo >= -b && e.DiffHi <= b):
		return Reproduced, fmt.Sprintf("significant in the same direction; %s, within noise or the ±%.1f-point band", diff, b)
	case !p.Significant() && h.Lo >= -b && h.Hi <= b:
		return Reproduced, fmt.Sprintf("no effect published, and here all of the interval is within ±%.1f%%", b)
	case p.Significant() && !h.Significant():
		return Inconclusive, "no clear effect here (its interval holds 0), yet not clearly different from the published one; " + diff + ": more repeats would tell"
	case !p.Significant():
		return Inconclusive, fmt.Sprintf("no effect published; here the interval reaches past ±%.1f%%, not clearly different; %s", b, diff)
	}
	return Inconclusive, fmt.Sprintf("same direction, but the %s is partly beyond the ±%.1f-point band", diff, b)
}

// brokenMarks are the marks that keep an effect from a verdict: stalled, behind, failed
// with an error. Failed assertions alone leave the numbers whole: marked, still judged.
func brokenMarks(marks []string) string {
	var out []string
	for _, m := range marks {
		if !strings.Contains(m, assertionsMark) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "not judged: " + strings.Join(out, "; ")
}

func anyNaN(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

func sign(v float64) int {
	if v < 0 {
		return -1
	}
	return 1
}

func nan() float64 { return math.NaN() }
