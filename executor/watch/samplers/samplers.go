// Package samplers lists every built-in sampler: a new one is a package under
// executor/watch that declares its watch.SamplerKind, and one line in All. The collection
// (executor/collect) opens what this list gives it; executor.Options.Samplers replaces the
// list (a test's own sampler, With).
package samplers

import (
	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/executor/watch/hostwatch"
	"github.com/quadrant-bench/quadrant/executor/watch/mysqlwatch"
	"github.com/quadrant-bench/quadrant/executor/watch/procwatch"
	"github.com/quadrant-bench/quadrant/executor/watch/snmpwatch"
)

// All are the built-in samplers, in the order their columns come: per target, then the
// run's own; each call gives fresh copies, which a caller may change.
func All() []*watch.SamplerKind { return With() }

// With is All and extra after them.
func With(extra ...*watch.SamplerKind) []*watch.SamplerKind {
	list := []watch.SamplerKind{
		mysqlwatch.StatusKind,
		mysqlwatch.QueriesKind,
		mysqlwatch.ReplicationKind,
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
