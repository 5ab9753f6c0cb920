package verify

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/noise"
)

// DefaultRepeat is --repeat's default. The interval has to be narrower than
// DefaultMinChange to say "same" with some confidence: on a loaded 2-core test host, 30
// runs a side of a 0.1 ms lookup left intervals of ±30%, 100 runs ±15%. 50 runs of a 1 ms
// statement cost a tenth of a second on two targets.
const DefaultRepeat = 50

// DefaultMinChange is --min-change's default, in percent. With enough runs any two servers
// differ "significantly" by a percent or two (another build, another datadir on another
// disk); a DBA moving an application asks which queries got clearly slower, and 10% is
// about where a change starts to show in an application's response times.
const DefaultMinChange = 10.0

const (
	// timingBudget bounds the timing of one fingerprint, all targets together: past it, and
	// once every target has minTimed runs, its timing stops. A statement of seconds is then
	// timed minTimed times a side rather than Repeat times.
	timingBudget = 10 * time.Second
	minTimed     = 5
	// minSpan is the least time the timing phase is spread over (rounds are paced when they
	// are quicker): long enough for the moment-to-moment difference between two servers to
	// change many times over.
	minSpan = 5 * time.Second
)

// timings are the client-side times of the timed runs in milliseconds, per fingerprint and
// target (Options.Targets' order); nil for a target that did not time the fingerprint.
type timings [][][]float64

// of is fingerprint fi's times on target ti, nil when it was not timed there.
func (t timings) of(fi, ti int) []float64 {
	if ti < len(t[fi]) {
		return t[fi][ti]
	}
	return nil
}

// timeReads times every fingerprint whose samples ran without error on every target, in
// rounds: each round runs every fingerprint still timed once on each target, one statement at
// a time, never two at once, so that two servers on one host do not compete and each run
// follows a run on the other target. A fingerprint's runs are thus spread over the whole
// timing phase, and the phase over at least minSpan: two servers alike differ, at one moment,
// by tens of percent for a sub-millisecond statement (which core the scheduler gave each, what
// else ran), and that moment moves. Timing a fingerprint's runs back to back caught one such
// moment in tight intervals: on two identical sandboxes a third of 96 fingerprints came out
// faster or slower. The comparison before ran each sample once on every target: the caches
// are warm.
func timeReads(ctx context.Context, o Options, fps []*fingerprint, runs []*targetRun, logf func(string, ...any)) timings {
	out := make(timings, len(fps))
	if o.Repeat <= 0 {
		return out
	}
	ss := make([]*session, len(o.Targets))
	for i, t := range o.Targets {
		ss[i] = &session{name: t.Name, db: t.DB}
		defer ss[i].close()
	}
	type timedFP struct {
		fi    int
		smps  []sample
		spent time.Duration
	}
	var todo []*timedFP
	for fi, fp := range fps {
		if smps := timeable(fp, runs, fi); len(smps) > 0 {
			todo = append(todo, &timedFP{fi: fi, smps: smps})
			out[fi] = make([][]float64, len(ss))
		}
	}
	began := time.Now()
	for r := -1; r < o.Repeat && ctx.Err() == nil; r++ {
		for _, t := range todo {
			if r >= minTimed && t.spent > timingBudget {
				continue
			}
			smp := t.smps[max(r, 0)%len(t.smps)]
			for k := range ss {
				// the order turns each round: the second of two runs of one statement is
				// quicker (the client's side of it is warm), which judgeLatency cancels by
				// taking rounds two by two
				ti := k
				if r%2 != 0 {
					ti = len(ss) - 1 - k
				}
				s := ss[ti]
				if s.lost != "" || ctx.Err() != nil {
					continue
				}
				d, ok := s.timed(ctx, smp)
				t.spent += d
				if r >= 0 {
					// a failed run keeps its place (NaN): round r of every target is a pair
					v := math.NaN()
					if ok {
						v = float64(d) / float64(time.Millisecond)
					}
					out[t.fi][ti] = append(out[t.fi][ti], v)
				}
			}
		}
		// pace the rounds so that the phase lasts at least minSpan
		if wait := time.Duration(float64(minSpan)*float64(r+2)/float64(o.Repeat+1)) - time.Since(began); wait > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
	}
	logf("verify: timed %d of %d fingerprints, up to %d runs a target each, in %.1fs", len(todo), len(fps), o.Repeat, time.Since(began).Seconds())
	for _, s := range ss {
		if s.lost != "" {
			logf("verify: target %s lost while timing: %s (its runs before are judged)", s.name, s.lost)
		}
	}
	return out
}

// timeable are the samples of fingerprint fi that ran without error on every target: a
// failing statement's time says nothing of the query.
func timeable(fp *fingerprint, runs []*targetRun, fi int) []sample {
	var out []sample
	for j, smp := range fp.samples {
		ok := true
		for _, tr := range runs {
			if oc := tr.outcomes[fi][j]; !oc.ran || oc.code != 0 {
				ok = false
			}
		}
		if ok {
			out = append(out, smp)
		}
	}
	return out
}

// timed runs one statement and reads all its rows, timed on the client as an application
// would see it. The USE of its default database is not timed.
func (s *session) timed(ctx context.Context, smp sample) (time.Duration, bool) {
	if code, ok := s.readyFor(ctx, smp); !ok || code != 0 {
		return 0, false
	}
	start := time.Now()
	rows, err := s.conn.QueryContext(ctx, smp.text)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}
	d := time.Since(start)
	if err != nil {
		if _, sqlErr := errorCode(err); !sqlErr && ctx.Err() == nil {
			// the next run connects again; a second failure in a row is the target gone
			s.drop(err)
		}
		return d, false
	}
	return d, true
}

// judgeLatency fills r's latency cells from the timed runs of its fingerprint on the base
// and on r's target. Round i of both ran the same statement one right after the other, in an
// order that turns each round; the second run of a statement is quicker, so rounds are taken
// two by two (one with each order): a block's change is the mean of its two rounds' log
// ratios (target over base), which cancels the order's part. The change is the median of the
// blocks', its 95% interval a bootstrap of the blocks seeded by seed and the fingerprint (a
// rerun on the same times reads the same). The median keeps a stall of the loaded host from
// moving it. Measured on two identical sandboxes (bench/verifybench, 96 fingerprints): means
// of back-to-back runs called a fifth to a third of them faster or slower; this rule, none.
func judgeLatency(r *results.QueryRow, base, other []float64, minChange float64, seed uint64) {
	r.Latency = results.VerifyNoLatency
	var blocks, b, o []float64
	n := min(len(base), len(other))
	ok := func(i int) bool { return base[i] > 0 && other[i] > 0 } // NaN (a failed run) compares false
	for i := 0; i < n; i++ {
		if ok(i) {
			b, o = append(b, base[i]), append(o, other[i])
		}
	}
	for i := 0; i+1 < n; i += 2 {
		if ok(i) && ok(i+1) {
			blocks = append(blocks, (math.Log(other[i]/base[i])+math.Log(other[i+1]/base[i+1]))/2)
		}
	}
	if len(blocks) < 2 {
		return
	}
	r.BaseP95, r.P95 = noise.Percentile(b, 95), noise.Percentile(o, 95)
	r.Timed = int64(len(b))
	pct := func(l float64) float64 { return 100 * math.Expm1(l) }
	r.Change = pct(noise.Median(blocks))
	rng := noise.NewRand(seed, "latency", r.FingerprintID, r.Target)
	lo, hi := noise.Bootstrap(rng, func(rng *rand.Rand) float64 { return noise.Median(noise.Resample(rng, blocks)) })
	r.ChangeLo, r.ChangeHi = pct(lo), pct(hi)
	r.Latency = latencyVerdict(r.Change, r.ChangeLo, r.ChangeHi, minChange)
}

// latencyVerdict: slower when the change is at least minChange percent and its interval
// lies wholly above half of it, faster likewise below; the same otherwise. An interval that
// only leaves out 0 is too little: over hundreds of fingerprints one in twenty does by
// chance, and on two identical sandboxes 3 of 96 came out faster or slower by 10 to 25% with
// intervals just clear of 0; a change a DBA acts on is one that is credibly large.
func latencyVerdict(change, lo, hi, minChange float64) string {
	switch {
	case math.IsNaN(change) || math.IsNaN(lo) || math.IsNaN(hi):
		return results.VerifyNoLatency
	case hi < -minChange/2 && change <= -minChange:
		return results.VerifyFaster
	case lo > minChange/2 && change >= minChange:
		return results.VerifySlower
	}
	return results.VerifySame
}
