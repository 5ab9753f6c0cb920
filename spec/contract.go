package spec

import (
	"sort"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Names fixed by the plan format contract, exported so the executor and the workload engine
// can be checked against them.

// AssertionMetrics are the iteration metrics an `assert:` may use by name (all float64),
// besides status.NAME and the plan's record_as names: every summary metric of the
// results folder's metric table.
var AssertionMetrics = measure.AssertionNames()

// Generator is a function available to transaction `args`. Sig is a pointer to a func value
// of the exact signature (as expr.Function takes it): the engine registers its implementation
// with the same type.
type Generator struct {
	Name string
	Sig  any
	Doc  string
}

// Generators is the contract's table of argument generator functions.
var Generators = []Generator{
	{"rand_int", new(func(lo, hi int) int), "uniform random integer in [lo, hi] (sysbench's default distribution)"},
	{"rand_uniform", new(func(lo, hi int) int), "uniform random integer in [lo, hi]"},
	{"rand_gauss", new(func(lo, hi int) int), "gaussian random integer in [lo, hi]"},
	{"rand_special", new(func(lo, hi int) int), "sysbench 'special' distribution in [lo, hi]"},
	{"rand_zipf", new(func(lo, hi int, theta float64) int), "zipfian random integer in [lo, hi] with exponent theta"},
	{"rand_string", new(func(pattern string) string), "random string: # becomes a digit, @ a letter"},
	{"seq", new(func() int), "per-workload counter, 1, 2, 3, ..."},
	{"thread_id", new(func() int), "0-based number of the worker thread"},
}

// KnownSNMPMetrics maps the named host metrics of `watch: {host: [...]}` to what they read over SNMP
// (UCD-SNMP-MIB, UCD-DISKIO-MIB, IF-MIB) and from /proc; cpu_* are computed from tick counters by the
// executor, disk_* and net_* give one column per disk or interface (host.NAME.DEVICE).
var KnownSNMPMetrics = map[string]string{
	"load1":          ".1.3.6.1.4.1.2021.10.1.3.1; /proc/loadavg",
	"load5":          ".1.3.6.1.4.1.2021.10.1.3.2; /proc/loadavg",
	"load15":         ".1.3.6.1.4.1.2021.10.1.3.3; /proc/loadavg",
	"cpu_util":       "100 - idle% from ssCpuRaw* ticks; /proc/stat",
	"cpu_user":       ".1.3.6.1.4.1.2021.11.50.0 (ticks); /proc/stat user+nice",
	"cpu_system":     ".1.3.6.1.4.1.2021.11.52.0 (ticks); /proc/stat system+irq+softirq",
	"cpu_iowait":     ".1.3.6.1.4.1.2021.11.54.0 (ticks); /proc/stat iowait",
	"mem_total":      ".1.3.6.1.4.1.2021.4.5.0; /proc/meminfo MemTotal (MiB)",
	"mem_avail":      ".1.3.6.1.4.1.2021.4.27.0; /proc/meminfo MemAvailable (MiB)",
	"disk_read_kbs":  "KB/s per disk: diskIONReadX (.1.3.6.1.4.1.2021.13.15.1.1.12), 32-bit diskIONRead unwrapped where there is no 64-bit one; /proc/diskstats",
	"disk_write_kbs": "KB/s per disk: diskIONWrittenX (.1.3.6.1.4.1.2021.13.15.1.1.13) or diskIONWritten; /proc/diskstats",
	"disk_reads":     "reads/s per disk: diskIOReads (.1.3.6.1.4.1.2021.13.15.1.1.5, Counter32 unwrapped); /proc/diskstats",
	"disk_writes":    "writes/s per disk: diskIOWrites (.1.3.6.1.4.1.2021.13.15.1.1.6); /proc/diskstats",
	"net_rx_kbs":     "KB/s received per interface but lo: ifHCInOctets (.1.3.6.1.2.1.31.1.1.1.6), or ifInOctets unwrapped; /proc/net/dev",
	"net_tx_kbs":     "KB/s sent per interface but lo: ifHCOutOctets (.1.3.6.1.2.1.31.1.1.1.10), or ifOutOctets; /proc/net/dev",
}

// SNMPMetricNames lists KnownSNMPMetrics, sorted.
func SNMPMetricNames() []string {
	out := make([]string, 0, len(KnownSNMPMetrics))
	for k := range KnownSNMPMetrics {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TxNames are the names of the workload's transactions, as tx.NAME.* metrics have them;
// none for a kind without transactions.
func (w *Workload) TxNames() []string {
	if w == nil || w.Kind == nil || w.Kind.TxNames == nil {
		return nil
	}
	return w.Kind.TxNames(w)
}

// StmtNames are the statement classes of the workload's stmt.CLASS.* metrics (the OLTP
// builtins' with options: {statement_stats: on}); nil for a kind that times no statements.
func (w *Workload) StmtNames() []string {
	if w == nil || w.Kind == nil || w.Kind.Statements == nil {
		return nil
	}
	classes, _ := w.Kind.Statements(w)
	return classes
}

// StatementStats says whether the workload times its statements (the OLTP builtins with
// options: {statement_stats: on}).
func (w *Workload) StatementStats() bool {
	if w == nil || w.Kind == nil || w.Kind.Statements == nil {
		return false
	}
	_, on := w.Kind.Statements(w)
	return on
}

// StmtMetrics is what `assert:` sees as stmt: stmt.CLASS.SUFFIX for every statement class
// and every per-statement figure of the metric table (stmt.point_select.p99_ms).
func StmtMetrics(classes []string, value func(class, suffix string) float64) map[string]any {
	return namedMetrics(classes, measure.StmtSuffixes, value)
}

// TxMetrics is what `assert:` sees as tx: tx.NAME.SUFFIX for every transaction name and
// every per-transaction figure of the metric table (tx.new_order.p90_ms).
func TxMetrics(names []string, value func(name, suffix string) float64) map[string]any {
	return namedMetrics(names, measure.TxSuffixes, value)
}

// NodeMetrics is what `assert:` sees as node: node.NAME.SUFFIX for every node a spread
// workload's threads run on and every per-node figure (node.db_node2.cert_failures).
func NodeMetrics(nodes []string, value func(node, suffix string) float64) map[string]any {
	return namedMetrics(nodes, measure.NodeSuffixes, value)
}

// namedMetrics is a family's map of maps: NAME -> SUFFIX -> value.
func namedMetrics(names, suffixes []string, value func(name, suffix string) float64) map[string]any {
	m := make(map[string]any, len(names))
	for _, n := range names {
		per := make(map[string]any, len(suffixes))
		for _, sfx := range suffixes {
			per[sfx] = value(n, sfx)
		}
		m[n] = per
	}
	return m
}
