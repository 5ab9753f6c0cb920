package verify

import (
	"context"
	"math"
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

// timeReads times every fingerprint whose samples ran without error on every target. Its
// runs are interleaved between the targets one statement at a time (base, new, new, base,
// base, new...: the order turns each round) and never run at the same time, so that two
// servers on one host do not compete and a drift of the host hits both sides alike. The
// comparison before it ran each sample once on every target: the caches are warm.
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
	timed := 0
	for fi, fp := range fps {
		if ctx.Err() != nil {
			break
		}
		if smps := timeable(fp, runs, fi); len(smps) > 0 {
			out[fi] = timeFingerprint(ctx, ss, smps, o.Repeat)
			timed++
		}
	}
	logf("verify: timed %d of %d fingerprints, up to %d runs a target each", timed, len(fps), o.Repeat)
	for _, s := range ss {
		if s.lost != "" {
			logf("verify: target %s lost while timing: %s", s.name, s.lost)
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

// timeFingerprint runs the samples in turn, each round on every target, after one round
// untimed: the first statement on a connection, or of a fingerprint, pays for what the next
// ones find ready. A target lost during it has no times for it: its series was cut short.
func timeFingerprint(ctx context.Context, ss []*session, smps []sample, repeat int) [][]float64 {
	ms := make([][]float64, len(ss))
	cut := make([]bool, len(ss))
	var spent time.Duration
	for r := -1; r < repeat && ctx.Err() == nil; r++ {
		if r >= minTimed && spent > timingBudget {
			break
		}
		smp := smps[max(r, 0)%len(smps)]
		for k := range ss {
			ti := k
			if r%2 != 0 {
				ti = len(ss) - 1 - k
			}
			s := ss[ti]
			if s.lost != "" {
				cut[ti] = true
				continue
			}
			d, ok := s.timed(ctx, smp)
			spent += d
			if ok && r >= 0 {
				ms[ti] = append(ms[ti], float64(d)/float64(time.Millisecond))
			}
			if s.lost != "" {
				cut[ti] = true
			}
		}
	}
	for ti := range ms {
		if cut[ti] || ctx.Err() != nil {
			ms[ti] = nil
		}
	}
	return ms
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
// and on r's target. The change is of the means; its 95% interval a bootstrap seeded by
// seed and the fingerprint, so a rerun on the same folder's times reads the same.
func judgeLatency(r *results.QueryRow, base, other []float64, minChange float64, seed uint64) {
	r.Latency = results.VerifyNoLatency
	if len(base) < 2 || len(other) < 2 {
		return
	}
	r.BaseP95, r.P95 = noise.Percentile(base, 95), noise.Percentile(other, 95)
	r.Timed = int64(min(len(base), len(other)))
	r.Change, r.ChangeLo, r.ChangeHi = noise.ChangeCI(noise.NewRand(seed, "latency", r.FingerprintID, r.Target), base, other)
	r.Latency = latencyVerdict(r.Change, r.ChangeLo, r.ChangeHi, minChange)
}

// latencyVerdict: faster or slower when the interval lies wholly on one side of 0 and the
// change is at least minChange percent; the same otherwise.
func latencyVerdict(change, lo, hi, minChange float64) string {
	switch {
	case math.IsNaN(change) || math.IsNaN(lo) || math.IsNaN(hi):
		return results.VerifyNoLatency
	case hi < 0 && change <= -minChange:
		return results.VerifyFaster
	case lo > 0 && change >= minChange:
		return results.VerifySlower
	}
	return results.VerifySame
}
