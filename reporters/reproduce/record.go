package reproduce

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"time"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
)

// RuleText is the rule's parameters as a record states them.
var RuleText = fmt.Sprintf("docs/reproduce.md: band ±max(%g points, %g%% of the published effect); %d repeats a cell to judge, %d to refute; 95%% bootstrap intervals, seed %d",
	BandPoints, 100*BandShare, MinRepeats, MinRepeatsToRefute, compare.Seed)

// Record is the reproduction record of r: the verdicts, both folders' identities and
// environments, quadrant's version; created is when it was made.
func (r *Result) Record(version string, created time.Time) (*results.Reproduction, error) {
	rec := &results.Reproduction{Tool: "quadrant", Version: version, Created: created.UTC(), Rule: RuleText,
		Differences: differences(r.Published.Info, r.Here.Info), Causes: r.Causes}
	for i, run := range []*results.Run{r.Published, r.Here} {
		f, err := folderOf(run)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			rec.Published = f
		} else {
			rec.Rerun = f
		}
	}
	for _, e := range r.Effects {
		rec.Effects = append(rec.Effects, results.ReproducedEffect{Axis: e.Line.Axis, Value: e.Line.Value, Base: e.Line.Base,
			At: e.Line.At, Target: e.Line.Target, Metric: e.Metric, Verdict: e.Verdict, Why: e.Why,
			Published: rangeOf(e.Published.Change, e.Published.Lo, e.Published.Hi),
			Rerun:     rangeOf(e.Here.Change, e.Here.Lo, e.Here.Hi),
			Diff:      rangeOf(e.Diff, e.DiffLo, e.DiffHi), Band: e.Band, Marks: e.Marks})
	}
	return rec, nil
}

func folderOf(run *results.Run) (results.ReproducedFolder, error) {
	id, err := results.FolderIdentity(run.Dir)
	if err != nil {
		return results.ReproducedFolder{}, err
	}
	env, err := results.EnvironmentOf(run.Dir)
	if err != nil {
		return results.ReproducedFolder{}, err
	}
	dir := run.Dir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return results.ReproducedFolder{Dir: dir, Identity: id, Plan: run.Info.Plan, Start: run.Info.Start, Environment: env}, nil
}

func rangeOf(change, lo, hi float64) results.EffectRange {
	return results.EffectRange{Change: finite(change), Lo: finite(lo), Hi: finite(hi)}
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// maxDifferences bounds a record's differences: two servers of different versions differ
// in hundreds of variables, and the record is to stay small.
const maxDifferences = 40

// differences are the settings (before the run) that differ between targets of one name
// in a and b as compare names them, "target.variable": [a's, b's], at most maxDifferences
// in name order.
func differences(a, b *results.RunInfo) map[string][2]string {
	out := map[string][2]string{}
	var names []string
	for _, ta := range a.Targets {
		for _, tb := range b.Targets {
			if ta.Name != tb.Name {
				continue
			}
			for _, c := range compare.SettingsChanged(ta.VariablesBefore, tb.VariablesBefore) {
				names = append(names, ta.Name+"."+c.Name)
				out[ta.Name+"."+c.Name] = [2]string{c.Before, c.After}
			}
		}
	}
	sort.Strings(names)
	for _, n := range names[min(len(names), maxDifferences):] {
		delete(out, n)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
