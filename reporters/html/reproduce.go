package html

import (
	_ "embed"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/reproduce"
	"github.com/quadrant-bench/quadrant/results"
)

// reproduce.js leads a comparison with the reproduction of the first folder's effects: the
// tally, then each effect's verdict with a chart of both changes and their intervals.
//
//go:embed assets/reproduce.js
var reproduceJS string

// reproductionData is one later run's reproduction of the first run's effects.
type reproductionData struct {
	Published string           `json:"published"`
	Here      string           `json:"here"`
	Run       int              `json:"run"` // 2 for the comparison's second folder
	Tally     string           `json:"tally"`
	Rule      string           `json:"rule"`
	Effects   []reproducedJSON `json:"effects"`
}

// reproducedJSON is one effect's verdict for the page.
type reproducedJSON struct {
	Effect    string              `json:"effect"` // "flush_log 2 vs 1 at threads=16"
	Metric    string              `json:"metric"`
	Verdict   string              `json:"verdict"`
	Why       string              `json:"why"`
	Published results.EffectRange `json:"published"`
	Here      results.EffectRange `json:"here"`
	Diff      results.EffectRange `json:"difference"`
	Band      float64             `json:"band"`
	Marks     []string            `json:"marks,omitempty"`
}

// reproductionsOf is each later run's reproduction of the first run's effects (none
// without a matrix in the first).
func reproductionsOf(c *compare.Comparison) []reproductionData {
	var out []reproductionData
	for i, run := range c.Runs {
		if i == 0 {
			continue
		}
		r := reproduce.Judge(c.Runs[0], run)
		if r == nil {
			continue
		}
		d := reproductionData{Published: c.Runs[0].Dir, Here: run.Dir, Run: i + 1, Tally: r.Tally(), Rule: reproduce.RuleText}
		for _, e := range r.Effects {
			d.Effects = append(d.Effects, reproducedJSON{Effect: e.Where(), Metric: e.Metric, Verdict: e.Verdict, Why: e.Why,
				Published: rangeJSON(e.Published.Change, e.Published.Lo, e.Published.Hi),
				Here:      rangeJSON(e.Here.Change, e.Here.Lo, e.Here.Hi),
				Diff:      rangeJSON(e.Diff, e.DiffLo, e.DiffHi), Band: e.Band, Marks: e.Marks})
		}
		out = append(out, d)
	}
	return out
}

func rangeJSON(change, lo, hi float64) results.EffectRange {
	return results.EffectRange{Change: finite(change), Lo: finite(lo), Hi: finite(hi)}
}

// rerunJSON is one recorded rerun's verdict on an effect, for a folder's own report.
type rerunJSON struct {
	Verdict string              `json:"verdict"`
	On      string              `json:"on"`   // "dbhost (MariaDB 11.4.2)"
	When    string              `json:"when"` // the rerun's start, UTC
	Here    results.EffectRange `json:"here"`
	Why     string              `json:"why"`
	Differs string              `json:"differs,omitempty"` // the settings that differed from the published folder's
}

// rerunsOf is, by effect key (results.ReproducedEffect.Key), what the folder's recorded
// reproductions found; nil without records. Records made against other results are left out.
func rerunsOf(run *results.Run) map[string][]rerunJSON {
	recs, _ := results.Reproductions(run.Dir)
	if len(recs) == 0 {
		return nil
	}
	claims, _ := reproduce.History(run, recs)
	out := map[string][]rerunJSON{}
	for _, c := range claims {
		for _, r := range c.Reruns {
			out[r.Effect.Key()] = append(out[r.Effect.Key()], rerunJSON{Verdict: r.Verdict, On: r.On(),
				When: r.Record.Rerun.Start.UTC().Format("2006-01-02 15:04"), Here: r.Effect.Rerun, Why: r.Effect.Why, Differs: r.Differs()})
		}
	}
	return out
}
