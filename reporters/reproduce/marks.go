package reproduce

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/results"
)

// assertionsMark is in the mark of an iteration failed only by its assertions: its
// numbers are a whole measurement, so the effect is still judged.
const assertionsMark = "failed its assertions"

// marks are the iterations of l's two cells in run (its Base and its Value at l's other
// axes, on l's target) that stalled, fell behind their schedule or failed, each said with
// who (published or here), the iteration and its cell.
func marks(run *results.Run, l axiseffects.Line, who string) []string {
	if run == nil || run.Summary == nil || run.Info == nil {
		return nil
	}
	byIndex := map[int]*results.IterationInfo{}
	for i := range run.Info.Iterations {
		byIndex[run.Info.Iterations[i].Index] = &run.Info.Iterations[i]
	}
	var out []string
	S := run.Summary
	seen := map[int]bool{}
	for i := range S.Rows {
		if S.Value(i, results.ColTarget) != l.Target || !inLine(run, i, l) {
			continue
		}
		n, err := strconv.Atoi(S.Value(i, results.ColIteration))
		it := byIndex[n]
		if err != nil || it == nil || seen[n] {
			continue
		}
		seen[n] = true
		for _, why := range issues(it) {
			out = append(out, fmt.Sprintf("%s: iteration %d (%s) %s", who, n, cellName(run, i), why))
		}
	}
	return out
}

// inLine says summary row i is one of l's two cells: the axis at Base or Value, every
// other axis at l's value.
func inLine(run *results.Run, i int, l axiseffects.Line) bool {
	S := run.Summary
	if v := S.Value(i, l.Axis); v != l.Base && v != l.Value {
		return false
	}
	for _, f := range l.At {
		if S.Value(i, f.Name) != f.Value {
			return false
		}
	}
	return true
}

func cellName(run *results.Run, i int) string {
	var parts []string
	for _, a := range run.Info.Axes {
		parts = append(parts, a+"="+run.Summary.Value(i, a))
	}
	return strings.Join(parts, " ")
}

// issues are what makes an iteration's numbers other than a whole, planned measurement.
func issues(it *results.IterationInfo) []string {
	var out []string
	if it.Stall != nil {
		out = append(out, "stalled: "+it.Stall.String())
	}
	if it.Behind != nil {
		out = append(out, it.Behind.String())
	}
	switch {
	case it.Broken():
		out = append(out, "failed: "+it.Why())
	case it.Status == results.StatusFailed:
		out = append(out, assertionsMark+": "+it.Why())
	}
	return out
}
