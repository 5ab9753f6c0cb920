// Package wsrepwatch samples a Galera node's wsrep status (SHOW GLOBAL STATUS LIKE 'wsrep%'):
// flow control, certification failures and brute-force aborts, the queues, the cluster's
// size and state and the group's replication latency, as the wsrep.* columns of every
// target whose server has wsrep_on=ON (each node of a Galera sandbox, a dsn target that is a
// Galera node); on any other server it opens nothing.
package wsrepwatch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the wsrep sampler: always on, on the targets that are Galera nodes.
var Kind = watch.SamplerKind{
	Name: "wsrep", Produces: "wsrep.",
	Doc: "a Galera node's wsrep status (SHOW GLOBAL STATUS LIKE 'wsrep%'), on every target whose server has wsrep_on=ON " +
		"(each node of a Galera sandbox, a dsn target that is a Galera node), with no watch: key; on any other server it gives no column",
	Columns: docs(),
	Open:    open,
}

// open applies where the server says wsrep_on is ON: a server without the variable (MySQL, a
// MariaDB without Galera) or with it OFF is no Galera node and gets no sampler.
func open(_ *spec.Watch, t *watch.Target, env watch.Env) (*watch.Opened, error) {
	if t.DB == nil || t.Config == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	on, err := wsrepOn(ctx, t.DB)
	if err != nil {
		env.Logf("warning: target %s: wsrep watch: cannot tell whether it is a Galera node (SHOW GLOBAL VARIABLES LIKE 'wsrep_on': %v): it has no wsrep.* columns", t.Name, err)
		return nil, nil
	}
	if !on {
		return nil, nil
	}
	return &watch.Opened{Sampler: New(t.Config.FormatDSN()), Follows: true, Conns: 1}, nil
}

// wsrepOn reports whether the server has wsrep_on=ON.
func wsrepOn(ctx context.Context, db *sql.DB) (bool, error) {
	var name, value string
	err := db.QueryRowContext(ctx, "SHOW GLOBAL VARIABLES LIKE 'wsrep\\_on'").Scan(&name, &value)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("wsrep_on: %w", err)
	}
	return strings.EqualFold(value, "ON"), nil
}
