package step

import (
	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// The services below are what a step kind may ask of the run besides a log: each is one
// small interface, and each may be nil where the run has none to give (a test's Env, a
// step in setup has no iteration to Record into); Env.Record's metrics are declared by
// the kind (spec.StepKind.Records).. A kind checks before it uses one.

// Servers reaches the plan's targets' servers beyond a pool of connections: a failover drill kills
// a sandbox's primary and promotes a replica, a user's promote command needs the address.
type Servers interface {
	// Cluster is the sandbox cluster whose primary is the target name; nil for a dsn
	// target or a replica's name.
	Cluster(name string) *sandbox.Cluster
	// Config is a fresh copy of the connection config of the target name (the one its
	// workload uses), with its credentials.
	Config(name string) (*mysql.Config, error)
	// Front is the address the run keeps in front of the target name, which follows its
	// primary when a step moves it (a failover), nil when it keeps none.
	Front(name string) Front
}

// Front is a quadrant-owned address in front of a cluster: the workload connects to it,
// and a step that moves the primary points it at the new one. Connections open through it
// when it switches are cut, so their clients reconnect, to the new primary (a workload
// counts them: on_error.reconnect).
type Front interface {
	// Addr is the host:port clients connect to.
	Addr() string
	// Switch points the front at upstream (host:port) and cuts the connections it carries;
	// "" points it nowhere: every connection is closed at once until the next Switch.
	Switch(upstream string)
}
