// Package verdict is the one evaluator of an iteration's assert: expressions. It judges them
// over the iteration's summary row as the results folder lays it out (summary.csv's columns
// by name), so that the executor, on the row an unsharded run writes, and quadrant merge, on
// the row it adds up from the shards, reach the same verdict on the same numbers.
//
// It lives under spec, not results: it needs the plan's compiled expressions and what the
// iteration's workload is (its transaction names, statement classes, connect mode, its
// kind's own metrics), and results may not import spec; both the executor and the
// reporters may import spec and results.
package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Failed returns it's assertions that are false or cannot be evaluated, each with the
// values it read ("p99_ms < 5 (p99_ms=7.2)"); nil when all hold. row is the iteration's
// summary row on the workload's target, its numeric cells by column name: an empty cell
// (a figure not measured) is absent or NaN, and any comparison with it is false.
func Failed(p *spec.Plan, it *spec.Iteration, row map[string]float64) []string {
	if len(it.Assert) == 0 {
		return nil
	}
	env := namespace(p, it, row)
	status, _ := env[results.StatusFamily].(map[string]float64)
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

// namespace is what an assertion of it sees, from the summary row: every metric by name (the
// kind's own too), connect_* under connect: per_transaction, the plan's record_as names,
// tx.NAME.SUFFIX and stmt.CLASS.SUFFIX of the workload's transactions and statement
// classes, node.NAME.SUFFIX of the nodes a spread workload runs on, and status.NAME (under its name as the server spells it and in lower case). A
// name the row has no value for is NaN, never 0.
func namespace(p *spec.Plan, it *spec.Iteration, row map[string]float64) map[string]any {
	value := func(name string) float64 {
		if v, ok := row[name]; ok {
			return v
		}
		return math.NaN()
	}
	env := map[string]any{}
	for _, name := range metricNames(it.Workload) {
		env[name] = value(name)
	}
	if it.Workload != nil && it.Workload.Connect == "per_transaction" {
		for _, name := range measure.ConnectNames {
			env[name] = value(name)
		}
	}
	for _, name := range p.RecordNames() {
		env[name] = value(name)
	}
	if txs := it.Workload.TxNames(); len(txs) > 0 {
		env[measure.TxPrefix] = spec.TxMetrics(txs, func(name, suffix string) float64 {
			return value(measure.TxPrefix + "." + name + "." + suffix)
		})
	}
	if stmts := it.Workload.StmtNames(); len(stmts) > 0 {
		env[measure.StmtPrefix] = spec.StmtMetrics(stmts, func(class, suffix string) float64 {
			return value(measure.StmtPrefix + "." + class + "." + suffix)
		})
	}
	if nodes := p.SpreadNodes(it.Workload, it.Target); len(nodes) > 0 {
		env[measure.NodePrefix] = spec.NodeMetrics(nodes, func(node, suffix string) float64 {
			return value(measure.NodePrefix + "." + node + "." + suffix)
		})
	}
	status := map[string]float64{}
	for name, v := range row {
		if n, ok := strings.CutPrefix(name, results.StatusPrefix); ok {
			// MySQL's names are case-insensitive: status.com_select works too.
			status[n] = v
			status[strings.ToLower(n)] = v
		}
	}
	env[results.StatusFamily] = status
	return env
}

// metricNames are the metrics an assertion may name: every workload's, then w's kind's own.
func metricNames(w *spec.Workload) []string {
	names := slices.Clone(spec.AssertionMetrics)
	if w != nil && w.Kind != nil {
		for _, m := range w.Kind.Metrics {
			names = append(names, m.Name)
		}
	}
	return names
}

// missingStatus says which status.NAME of an assertion the row has no column for ("" when
// it has them all): status is a map, whose missing key would read as 0.
func missingStatus(src string, status map[string]float64) string {
	var miss []string
	for _, m := range spec.StatusRef.FindAllStringSubmatch(src, -1) {
		if _, ok := status[m[1]]; !ok {
			if _, ok := status[strings.ToLower(m[1])]; !ok {
				miss = append(miss, results.StatusPrefix+m[1])
			}
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "no value for " + strings.Join(miss, ", ") + " (not a watched column of this target)"
}
