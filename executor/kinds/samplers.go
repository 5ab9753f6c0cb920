package kinds

// The samplers: a new one is a package under executor/watch that declares its
// watch.SamplerKind, and one line in SamplersWith. The collection (executor/collect) opens
// what the run gives it, these unless executor.Options.Samplers replaces them (a test's own
// sampler, SamplersWith).

import (
	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/executor/watch/hostwatch"
	"github.com/quadrant-bench/quadrant/executor/watch/mysqlwatch"
	"github.com/quadrant-bench/quadrant/executor/watch/procwatch"
	"github.com/quadrant-bench/quadrant/executor/watch/snmpwatch"
	"github.com/quadrant-bench/quadrant/executor/watch/wsrepwatch"
)

// Samplers are the built-in samplers, in the order their columns come: per target, then the
// run's own; each call gives fresh copies, which a caller may change.
func Samplers() []*watch.SamplerKind { return SamplersWith() }

// SamplersWith is Samplers and extra after them.
func SamplersWith(extra ...*watch.SamplerKind) []*watch.SamplerKind {
	list := []watch.SamplerKind{
		mysqlwatch.StatusKind,
		mysqlwatch.QueriesKind,
		mysqlwatch.ReplicationKind,
		wsrepwatch.Kind,
		procwatch.ProcessKind,
		snmpwatch.Kind,
		procwatch.ClientKind,
		hostwatch.Kind,
	}
	out := make([]*watch.SamplerKind, 0, len(list)+len(extra))
	for i := range list {
		out = append(out, &list[i])
	}
	return append(out, extra...)
}
