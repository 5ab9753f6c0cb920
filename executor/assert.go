package executor

import (
	"fmt"
	"math"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// assertions evaluates the iteration's assert expressions; it returns the false (or
// failing) ones, each with the values it saw.
func (x *iteration) assertions() []string {
	it, m := x.it, x.m
	if len(it.Assert) == 0 {
		return nil
	}
	env := map[string]any{}
	txVals := map[string]float64{}
	if m != nil && m.total != nil {
		fixed, family := measure.TotalValues(m.total)
		for _, v := range fixed {
			env[v.Name] = v.Value
		}
		for _, v := range family {
			txVals[v.Name] = v.Value
		}
	}
	if it.Workload != nil && it.Workload.Connect == "per_transaction" {
		for _, n := range measure.ConnectNames {
			env[n] = math.NaN()
			if v, ok := txVals[n]; ok {
				env[n] = v
			}
		}
	}
	if txs := it.Workload.TxNames(); len(txs) > 0 {
		env["tx"] = spec.TxMetrics(txs, func(name, suffix string) float64 {
			if v, ok := txVals["tx."+name+"."+suffix]; ok {
				return v
			}
			return math.NaN()
		})
	}
	if stmts := it.Workload.StmtNames(); len(stmts) > 0 {
		env["stmt"] = spec.StmtMetrics(stmts, func(class, suffix string) float64 {
			if v, ok := txVals["stmt."+class+"."+suffix]; ok {
				return v
			}
			return math.NaN()
		})
	}
	status := map[string]float64{}
	if m != nil {
		for _, v := range m.summary[x.target] {
			if n, ok := strings.CutPrefix(v.Name, "status."); ok {
				// MySQL's names are case-insensitive: status.com_select works too.
				status[n] = v.Value
				status[strings.ToLower(n)] = v.Value
			}
		}
	}
	env["status"] = status
	for _, name := range x.r.plan.RecordNames() {
		env[name] = math.NaN()
	}
	for k, v := range x.records {
		env[k] = v
	}
	var failed []string
	for i := range it.Assert {
		a := &it.Assert[i]
		if miss := missingStatus(a.Source, status); miss != "" {
			failed = append(failed, fmt.Sprintf("%s: %s", a.Source, miss))
			continue
		}
		ok, err := a.EvalBool(env)
		switch {
		case err != nil:
			failed = append(failed, fmt.Sprintf("%s: %v", a.Source, err))
		case !ok:
			failed = append(failed, a.Source+seen(a.Source, env))
		}
	}
	return failed
}

// missingStatus says which status.NAME of an assertion the iteration has no value for
// ("" when it has them all): a missing key would read as 0.
func missingStatus(src string, status map[string]float64) string {
	var miss []string
	for _, m := range spec.StatusRef.FindAllStringSubmatch(src, -1) {
		if _, ok := status[m[1]]; !ok {
			if _, ok := status[strings.ToLower(m[1])]; !ok {
				miss = append(miss, "status."+m[1])
			}
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "no value for " + strings.Join(miss, ", ") + " (not a watched column of this target)"
}

// seen lists the metric values an assertion used, so a failure says why.
func seen(src string, env map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(env) {
		v, ok := env[k].(float64)
		if ok && containsWord(src, k) {
			parts = append(parts, fmt.Sprintf("%s=%s", k, results.FormatFloat(v)))
		}
	}
	for _, root := range []string{"tx", "stmt"} {
		named, ok := env[root].(map[string]any)
		if !ok {
			continue
		}
		for _, n := range sortedKeys(named) {
			per, _ := named[n].(map[string]any)
			for _, sfx := range sortedKeys(per) {
				if name := root + "." + n + "." + sfx; containsWord(src, name) {
					parts = append(parts, fmt.Sprintf("%s=%s", name, results.FormatFloat(per[sfx].(float64))))
				}
			}
		}
	}
	if st, ok := env["status"].(map[string]float64); ok {
		for _, k := range sortedKeys(st) {
			if strings.Contains(src, "status."+k) {
				parts = append(parts, fmt.Sprintf("status.%s=%s", k, results.FormatFloat(st[k])))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

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
