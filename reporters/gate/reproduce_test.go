package gate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/reporters/reproduce"
	"github.com/quadrant-bench/quadrant/results"
)

func TestParseNotReproduced(t *testing.T) {
	rs, err := Parse("not-reproduced, tps < -2.5%")
	if err != nil || len(rs) != 2 || rs[0].Op != NotReproducedRule || rs[0].Metric != "" || rs[0].String() != "not-reproduced" || !Reproduces(rs) {
		t.Fatalf("%+v %v", rs, err)
	}
	if rs, _ := Parse("tps < -2.5%"); Reproduces(rs) {
		t.Errorf("a threshold rule is not the reproduction rule")
	}
	if _, err := Parse("not-reproducd"); err == nil || !strings.Contains(err.Error(), "or not-reproduced") {
		t.Errorf("a misspelt rule: %v, want an error naming not-reproduced", err)
	}
}

// The not-reproduced rule fails on an effect not reproduced, skips an inconclusive one (too
// little evidence fails no build) and passes a reproduced one; without the rule, nothing.
func TestNotReproducedFailsOnlyARefutedEffect(t *testing.T) {
	line := axiseffects.Line{Axis: "flush_log", Value: "2", Base: "1", At: []results.Field{{Name: "threads", Value: "16"}}, Target: "db", Targets: 1}
	rep := &reproduce.Result{}
	for _, v := range []string{reproduce.Reproduced, reproduce.NotReproduced, reproduce.Inconclusive} {
		rep.Effects = append(rep.Effects, reproduce.Effect{Line: line, Metric: "tps", Verdict: v, Why: "because", Diff: -16, DiffLo: -30, DiffHi: -2})
	}
	rules, _ := Parse("not-reproduced")
	res := &Result{}
	res.EvaluateReproduction(rules, []*reproduce.Result{nil, rep})
	if len(res.Checks) != 3 || res.Checks[0].Outcome != Passed || res.Checks[1].Outcome != Failed || res.Checks[2].Outcome != Skipped || res.Failed() != 1 {
		t.Fatalf("checks %+v: want passed, failed, skipped", res.Checks)
	}
	if c := res.Checks[1]; c.Cell != "flush_log 2 vs 1 at threads=16, tps" || c.Run != 2 {
		t.Errorf("check names %q run %d", c.Cell, c.Run)
	}
	var b bytes.Buffer
	res.WriteText(&b)
	if !strings.Contains(b.String(), "FAILED: not-reproduced, flush_log 2 vs 1 at threads=16, tps: not reproduced: flush_log 2 vs 1 at threads=16, tps: published") {
		t.Errorf("gate text:\n%s", b.String())
	}
	other, _ := Parse("tps < -2.5%")
	none := &Result{}
	none.EvaluateReproduction(other, []*reproduce.Result{rep})
	if len(none.Checks) != 0 {
		t.Errorf("without the rule: %d checks", len(none.Checks))
	}
}
