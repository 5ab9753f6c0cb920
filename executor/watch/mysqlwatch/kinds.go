package mysqlwatch

import (
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/spec"
)

// StatusKind samples SHOW GLOBAL STATUS on every target (watch.status, counters, gauges),
// through its front when it has one.
var StatusKind = watch.SamplerKind{
	Name: "status", Keys: []string{"status", "counters", "gauges"}, Produces: "status.",
	Doc: "SHOW GLOBAL STATUS of every target: the names watch.status matches (a curated set by default), counters as rates per second",
	Open: func(w *spec.Watch, t *watch.Target, _ watch.Env) (*watch.Opened, error) {
		st, err := NewStatus(StatusConfig{DSN: t.Config.FormatDSN(), Status: w.Status, Counters: w.Counters, Gauges: w.Gauges})
		if err != nil {
			return nil, fmt.Errorf("watch.status: %w", err)
		}
		return &watch.Opened{Sampler: st, Follows: true, Conns: 1}, nil
	},
	// A glob that matches nothing gives no column: the plan's author is told, with the server.
	Started: func(s watch.Sampler, t *watch.Target, env watch.Env) {
		st, ok := s.(*Status)
		if !ok {
			return
		}
		for _, g := range st.Unmatched() {
			env.Logf("warning: watch.status: %q matches no status variable of target %s (%s %s): it gives no column; see SHOW GLOBAL STATUS LIKE for what this server has",
				g, t.Name, t.Flavor, t.Version)
		}
	},
}

// QueriesKind samples the plan's watch.queries on every target.
var QueriesKind = watch.SamplerKind{
	Name: "queries", Keys: []string{"queries"}, Produces: "query.",
	Doc: "the plan's own queries (watch.queries) on every target: the first column of the first row",
	Open: func(w *spec.Watch, t *watch.Target, _ watch.Env) (*watch.Opened, error) {
		if len(w.Queries) == 0 {
			return nil, nil
		}
		var qs []Query
		for _, q := range w.Queries {
			qs = append(qs, Query{Name: q.Name, SQL: q.SQL})
		}
		q, err := NewQueries(QueriesConfig{DSN: t.Config.FormatDSN(), Queries: qs})
		if err != nil {
			return nil, fmt.Errorf("watch.queries: %w", err)
		}
		return &watch.Opened{Sampler: q, Follows: true, Conns: 1}, nil
	},
}

// ReplicationKind samples a replica's lag and threads (watch.replication).
var ReplicationKind = watch.SamplerKind{
	Name: "replication", Keys: []string{"replication"}, Produces: "repl.",
	Doc: "a replica's lag and thread state (watch.replication), on every replica target",
	Open: func(w *spec.Watch, t *watch.Target, _ watch.Env) (*watch.Opened, error) {
		if !w.Replication || !t.Replica {
			return nil, nil
		}
		return &watch.Opened{Sampler: NewReplication(ReplicationConfig{DSN: t.Config.FormatDSN()}), Conns: 1}, nil
	},
}
