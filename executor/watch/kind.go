package watch

import (
	"context"
	"database/sql"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// SamplerKind is a sampler as its package declares it: what it needs (the plan's watch:
// keys it reads, the targets it applies to, which its Open decides) and what it produces
// (its column prefix, the Sampler Open returns). A sampler is its package plus one line in
// the list the collection reads (executor/kinds.Samplers); the collection knows no sampler
// by name.
type SamplerKind struct {
	// Name is the sampler's name in the log and in run.json's watch_gaps ("status").
	Name string
	// Keys are the plan's watch: keys it reads (none: it is always on).
	Keys []string
	// Produces is the prefix of its columns ("status.", "host."), for the docs.
	Produces string
	// PerRun says it samples once for the run (this machine, quadrant itself), on the
	// workload's target's rows; otherwise Open is asked once per target.
	PerRun bool
	// Doc says what it samples and when it applies.
	Doc string
	// Columns are the columns it gives, when it names them itself, for docs/metrics.md
	// (ColumnsMarkdown); nil when the plan or the server names them (status.NAME, query.NAME).
	Columns []ColumnDoc
	// Open makes the sampler for target t (nil for a PerRun kind) under the plan's watch w;
	// a nil Opened, nil error: it does not apply there.
	Open func(w *spec.Watch, t *Target, env Env) (*Opened, error)
	// Started, when set, is told once the sampler started (a status glob that matched
	// nothing is the plan's to know).
	Started func(s Sampler, t *Target, env Env)
}

// ColumnDoc is one column a sampler gives, as docs/metrics.md lists it.
type ColumnDoc struct {
	Name string
	Kind Kind
	// Unit is the unit of the value a gauge reads, or of what a counter counts: its time
	// series is that per second, its summary the increase.
	Unit string
	Doc  string
}

// Opened is one sampler a kind opened, with what the collection does with it.
type Opened struct {
	Sampler Sampler
	// What names it in the log and watch_gaps when the kind's Name does not say enough
	// ("snmp 10.0.0.5:161"); "" is the kind's Name.
	What string
	// Follows says it reads its target through the target's front, so that it follows the
	// primary a failover moves (its Sampler a Mover when its counters must start anew).
	Follows bool
	// Conns is how many connections it holds open on the target's server while a workload
	// runs (the preflight counts them against max_connections).
	Conns int
	// Local says a PerRun sampler reads this machine: its rows are a workload target's on
	// this machine only.
	Local bool
}

// Target is one target of the run as the samplers see it; the fleet gives them in plan
// order (replicas after their primary).
type Target struct {
	Name string
	// Plan is the plan's target; a replica's is its primary's (they share a host and its
	// SNMP agent). nil: none.
	Plan    *spec.Target
	Replica bool
	// Config is how samplers connect: through the target's front when it has one (a
	// failover moves the primary: its samplers follow); Front is that front.
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

// Env is what a kind's Open gets besides the plan and the target.
type Env struct {
	// Targets are all the run's, in plan order (a PerRun kind looks for one on this machine).
	Targets []Target
	// Logf goes to log.txt and the console.
	Logf func(format string, args ...any)
	// Once reports whether key is seen for the first time in this run: one sampler per SNMP
	// agent, however many targets run on its host.
	Once func(key string) bool
}

// Machine is what a sampler says of the host it reads (an SNMP agent's HOST-RESOURCES-MIB and
// sysDescr), for run.json's server machine of a target.
type Machine struct {
	Hostname    string // sysName
	Description string // sysDescr: "Linux db1 6.1.0-18-amd64 #1 SMP ... x86_64"
	Kernel      string // "Linux 6.1.0-18-amd64" from a Linux sysDescr, else the sysDescr
	CPUs        int    // rows of hrProcessorTable
	CPUModel    string // hrDeviceDescr of the first processor, without net-snmp's "Vendor: " prefix
	MemoryBytes uint64 // hrMemorySize
}

// MachineReader is a Sampler that can say what machine it reads, once started.
type MachineReader interface {
	Machine(ctx context.Context) (Machine, error)
}
