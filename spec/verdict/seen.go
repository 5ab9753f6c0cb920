package verdict

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// seen lists the values an assertion read, so a failure says why: " (p99_ms=7.2,
// status.Com_select=10)"; a name without a value (an empty cell) shows as NaN, which is
// what the comparison saw.
func seen(src string, env map[string]any) string {
	var parts []string
	add := func(name string, v float64) { parts = append(parts, name+"="+show(v)) }
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if v, ok := env[k].(float64); ok && containsWord(src, k) {
			add(k, v)
		}
	}
	for _, root := range []string{measure.TxPrefix, measure.StmtPrefix, measure.NodePrefix} {
		named, _ := env[root].(map[string]any)
		for _, n := range slices.Sorted(maps.Keys(named)) {
			per, _ := named[n].(map[string]any)
			for _, sfx := range slices.Sorted(maps.Keys(per)) {
				if name := root + "." + n + "." + sfx; containsWord(src, name) {
					add(name, per[sfx].(float64))
				}
			}
		}
	}
	st, _ := env[results.StatusFamily].(map[string]float64)
	for _, k := range slices.Sorted(maps.Keys(st)) {
		if containsWord(src, results.StatusPrefix+k) {
			add(results.StatusPrefix+k, st[k])
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func show(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return results.FormatFloat(v)
}

// containsWord says whether w occurs in s as a whole name: p99_ms is not in p999_ms nor in
// tx.new_order.p99_ms.
func containsWord(s, w string) bool {
	for i := strings.Index(s, w); i >= 0; {
		before := i == 0 || !isIdent(s[i-1])
		after := i+len(w) == len(s) || !isIdent(s[i+len(w)])
		if before && after {
			return true
		}
		j := strings.Index(s[i+1:], w)
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
