// Package collect takes an iteration's measurements besides the workload's own: the
// samplers of its targets (watch:), a time-series row per target and interval, the
// performance_schema evidence (digests, waits), and what the intervals say of the run's
// health (a host stall, an open loop behind its schedule, a server unreachable). The
// executor's fleet gives it the targets (Target) and the run its log and results folder
// (Run); it reaches nothing else of the run.
package collect

import (
	"database/sql"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// Target is one target of the run as the collection sees it; the fleet gives them in plan
// order (replicas after their primary).
type Target struct {
	Name string
	// Plan is the plan's target; a replica's is its primary's (they share a host and its
	// SNMP agent). nil: none.
	Plan    *spec.Target
	Replica bool
	// Config is how samplers connect: through the target's front when it has one (a
	// failover moves the primary: its samplers follow, follow.go); Front is that front.
	Config *mysql.Config
	Front  *link.Link
	// DB is the run's pool on the target: performance_schema checks and snapshots.
	DB              *sql.DB
	Flavor, Version string
	// Hosting is who runs the server: a managed one has no host or process to read.
	Hosting target.Hosting
	// Local says the server runs on this machine and gets host metrics from /proc.
	Local bool
	// SandboxPid is the pid of a sandbox's server (of the one its front points at, 0: none);
	// nil for a dsn target.
	SandboxPid func() (int, error)
}

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
