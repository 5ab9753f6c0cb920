// Package collect takes an iteration's measurements besides the workload's own: the
// samplers of its targets (watch:), a time-series row per target and interval, the
// performance_schema evidence (digests, waits), and what the intervals say of the run's
// health (a host stall, an open loop behind its schedule, a server unreachable). The
// executor's fleet gives it the targets (Target) and the run its log and results folder
// (Run); it reaches nothing else of the run.
package collect

import (
	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/results"
)

// Target is one target of the run as the collection and its samplers see it (watch.Target).
type Target = watch.Target

// Run is what the run gives the collection: where it writes and how it speaks.
type Run struct {
	Out *results.Writer
	// Logf goes to log.txt and the console, LogFile to log.txt only; both redact the
	// run's secrets, as Redact does for text written elsewhere (digests.csv).
	Logf, LogFile func(format string, args ...any)
	Redact        func(string) string
	// Failed stops the run: a results file could not be written.
	Failed func(error)
}
