// Package watch defines what the executor samples next to a running workload: server status, replication,
// custom SQL metrics, host metrics (over SNMP or from /proc) and the server's and quadrant's own processes.
// Samplers are pull-based: the executor asks every sampler for one Sample on each tick of the workload's report
// interval, so one time-series row holds throughput, latency and everything watched for the same second.
//
// Implementations live in sub-packages (mysqlwatch, wsrepwatch, snmpwatch, hostwatch, procwatch), each declaring its
// SamplerKind (kind.go), listed in executor/kinds (Samplers); this package holds what they share: the interface,
// the declaration, the sample shape, counter arithmetic, glob matching, the status counter/gauge rule and the
// host metric names.
package watch

import (
	"context"
	"math"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Kind says how a column's values are to be read; the results folder records it in run.json.
// Gauge columns hold the value read at the tick, and their summary is the last value.
// Counter columns hold the per-second rate over the interval ending at the tick, and their
// summary is the increase since Baseline.
type Kind = measure.Kind

// The kinds a sampler's columns have.
const (
	Gauge   = measure.Gauge
	Counter = measure.Counter
)

// Column is one named numeric series, e.g. "status.Com_select", "repl.lag_s", "host.load1", "proc.cpu_us".
type Column struct {
	Name string
	Kind Kind
	// Source says where the values come from ("status", "process sandbox mariadbd (/proc/PID)",
	// "host /proc", "snmp 127.0.0.1:161"); run.json keeps it so a host figure is never read as a process one.
	Source string
}

// Sample is one tick of one sampler. Values is aligned with the sampler's Columns(); NaN means no value
// (empty cell): not measured, not yet computable, or the source was unreachable.
type Sample struct {
	At     time.Time
	Values []float64
}

// Sampler is one source of watched series on one target or host.
//
// Life cycle: Start once, then per measured workload: Baseline at the workload's start, Sample at every tick
// (Rebase between the warmup's last tick and the next), Summary at the end; Close when the run ends. Sample may be called concurrently with other samplers but not
// concurrently with itself.
type Sampler interface {
	// Start opens the sampler's own connection, checks credentials and fixes the column set. An error is
	// fatal for this sampler unless errors.Is(err, ErrUnavailable): then the source did not answer, the
	// sampler is usable (empty cells until it answers) and the error is the one warning for that outage.
	Start(ctx context.Context) error
	// Columns is the stable, ordered column set, valid after Start.
	Columns() []Column
	// Baseline reads the sources now as the starting point of the next rates and of Summary.
	Baseline(ctx context.Context) error
	// Sample reads the sources and returns one value per column, stamped with at (the workload's tick time).
	// The Sample is always usable. A non-nil error is a warning to log, returned once per outage: the
	// first failing tick returns it, later failing ticks return nil error and empty cells.
	Sample(ctx context.Context, at time.Time) (Sample, error)
	// Rebase makes the latest reading the start of Summary without reading anything, so a summary can
	// leave out a workload's warmup: the executor calls it between the last warmup tick's Sample and the
	// next one. Rates are unaffected.
	Rebase()
	// Summary is, per column name, the increase since Baseline (or Rebase) for counters and the last value
	// for gauges.
	// Columns without a value are absent.
	Summary() map[string]float64
	// Close releases the connection.
	Close() error
}

// Mover is a Sampler whose source may become another server under the same address (a target
// read through the front the run keeps before a cluster, which a failover points at the
// promoted replica): Moved, called as Rebase is, between two Samples, says it did, so
// counters start anew from the next reading rather than subtract one server's from another's.
type Mover interface {
	Moved()
}

// Health is what a sampler with a connection of its own (a server's, an SNMP agent's) tells
// the executor besides its samples: Down while its source does not answer, from the failing
// tick that returned the outage's warning until a tick that read it again. The executor
// counts the ticks of an outage as gaps and asks such a sampler less often until it answers.
type Health interface {
	Down() bool
}

// Empty returns n NaN values: a sample with every cell empty.
func Empty(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// LastValues is the Summary of gauge-only samplers: name -> last value, skipping empty ones.
func LastValues(cols []Column, last []float64) map[string]float64 {
	m := make(map[string]float64, len(cols))
	for i, c := range cols {
		if !math.IsNaN(last[i]) {
			m[c.Name] = last[i]
		}
	}
	return m
}
