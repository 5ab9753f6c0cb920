package results

import (
	"fmt"
	"strings"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// MetricsMarkdown is docs/metrics.md, generated from measure.Metrics and measure.Families
// and the kinds' own metrics (own, in the order of the kinds): the workload's columns of
// timeseries/TARGET.csv and summary.csv. The kinds' registry generates it
// (go generate ./executor/kinds).
func MetricsMarkdown(own []measure.Metric) []byte {
	var b strings.Builder
	b.WriteString("# Measured columns\n\n<!-- Generated from results/measure/metrics.go and the workload kinds' declarations by `go generate ./executor/kinds`; do not edit. -->\n\n" +
		"Every workload figure quadrant writes, in column order. The time series (`timeseries/TARGET.csv`) has them on the " +
		"workload's target, per report interval, after `iteration`, `elapsed_s` and `time`; the summary (`summary.csv`) " +
		"has them per iteration, over the measured part (warmup excluded), after `iteration`, `repeat`, the matrix axes, " +
		"`target`, `status` and `duration_s`, followed by the plan's `record_as` names. Watched columns (`status.*`, " +
		"`repl.*`, `wsrep.*`, `host.*`, `proc.*`, custom queries) follow; run.json lists them per target with their kind. Latencies are per transaction; in open loop (`rate`) they count from each " +
		"transaction's intended start, so queueing counts, and `histograms/` also keeps the service time. An empty " +
		"cell is a value that was not measured, never a zero: a watched cell is empty too when its sampler's source did " +
		"not answer at that tick (a lost connection costs those samples, not the run; run.json's iteration `watch_gaps` " +
		"counts them per sampler, see [results.md](results.md), and [faults.md](faults.md)).\n\n" +
		"| column | time series | summary | meaning | compared by default | better |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, m := range measure.MetricsOf(&measure.Own{Metrics: own}) {
		ts, sum := "—", "—"
		if m.Interval != nil {
			ts = fmt.Sprintf("%s, %s", m.IntervalUnit, m.Kind)
		}
		if m.Total != nil {
			sum = m.TotalUnit
		}
		cmp := ""
		if m.Compare {
			cmp = "yes"
		}
		if m.Headline {
			cmp = "yes, first: the headline where a workload has it"
		}
		better := ""
		switch m.Better {
		case measure.Higher:
			better = "higher"
		case measure.Lower:
			better = "lower"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", m.Name, ts, sum, m.Doc, cmp, better)
	}
	b.WriteString("\nColumns named by key:\n\n| columns | time series | summary | meaning |\n| --- | --- | --- | --- |\n")
	for _, f := range measure.Families {
		ts, sum := "—", "—"
		if f.Interval != nil {
			ts = "yes"
		}
		if f.Total != nil {
			sum = "yes"
		}
		doc := f.Doc
		if f.Headline {
			doc += "; with a headline metric (tpmC), part of the headline and compared by default"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.Pattern, ts, sum, doc)
	}
	b.WriteString("\n## Cost per transaction\n\nWhat a transaction cost, from watched counters of a target (a sandbox's server process, a dsn " +
		"target's with `pid`/`pid_file`, quadrant's own process, SHOW GLOBAL STATUS), after the watched columns. In the time " +
		"series: the counter's increase over the interval divided by the workload's transactions of that interval (empty " +
		"when there were none); in the summary: the increase over the measured intervals divided by their transactions. " +
		"On a replica's rows they are per transaction of the primary's workload. run.json lists them with kind " +
		"`per_transaction` and the counters they divide; a host figure (`host.*`) never feeds them.\n\n" +
		"| column | unit | from | meaning |\n| --- | --- | --- | --- |\n")
	for _, c := range measure.Costs {
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s |\n", c.Name, c.Unit, strings.Join(c.From, "` + `"), c.Doc)
	}
	return []byte(b.String())
}
