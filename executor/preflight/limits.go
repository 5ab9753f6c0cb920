package preflight

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// Limits are a server's connection and prepared statement limits as they stand.
type Limits struct {
	MaxConnections, MaxPrepared int
	Prepared                    int // statements prepared on the server already
}

// ReadLimits reads the limits of the server db is connected to.
func ReadLimits(ctx context.Context, db *sql.DB) (Limits, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var l Limits
	vars, err := target.Variables(ctx, db)
	if err != nil {
		return l, err
	}
	l.MaxConnections, _ = strconv.Atoi(vars["max_connections"])
	l.MaxPrepared, _ = strconv.Atoi(vars["max_prepared_stmt_count"])
	var name string
	if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'").Scan(&name, &l.Prepared); err != nil {
		return l, fmt.Errorf("read Prepared_stmt_count: %w", err)
	}
	if l.MaxConnections <= 0 || l.MaxPrepared <= 0 {
		return l, fmt.Errorf("max_connections %q, max_prepared_stmt_count %q are not numbers", vars["max_connections"], vars["max_prepared_stmt_count"])
	}
	return l, nil
}

// CheckLimits says which iterations of p would open more connections than their target's
// server accepts, or prepare more statements than it keeps: limits are the server's now
// (ok false: unknown, not checked), or what the iteration's server_config or globals set;
// others are the connections the run holds open on a target besides the workload's.
func CheckLimits(p *spec.Plan, limits func(name string) (Limits, bool), others func(name string) int) error {
	var errs []error
	for i := range p.Iterations {
		it := &p.Iterations[i]
		if it.Workload == nil {
			continue
		}
		name := p.TargetOf(it)
		lim, ok := limits(name)
		if !ok {
			continue
		}
		maxConn := override(it, "max_connections", lim.MaxConnections)
		threads, more := max(it.Workload.Threads, 1), others(name)
		if threads+more > maxConn {
			errs = append(errs, fmt.Errorf("iteration %d: %d workload threads + %d watcher and control connections = %d connections to %s, over its max_connections of %d: lower threads, or raise max_connections (server_config, globals, or the server's my.cnf)",
				it.Index, threads, more, threads+more, name, maxConn))
		}
		if per := prepared(it.Workload); per > 0 {
			maxStmt := override(it, "max_prepared_stmt_count", lim.MaxPrepared)
			if need := threads*per + lim.Prepared; need > maxStmt {
				errs = append(errs, fmt.Errorf("iteration %d: %d threads x %d prepared statements each (+ %d already prepared on the server) = %d, over max_prepared_stmt_count %d on %s: raise max_prepared_stmt_count, lower threads or tables, or set the workload option ps_mode: disable",
					it.Index, threads, per, lim.Prepared, need, maxStmt, name))
			}
		}
	}
	return dedupe(errs)
}

// override is the iteration's server_config or globals value of a variable, else the server's.
func override(it *spec.Iteration, name string, current int) int {
	for _, set := range []spec.Settings{it.ServerConfig, it.Globals} {
		for _, kv := range set {
			if strings.ReplaceAll(kv.Name, "-", "_") == name {
				if n, err := strconv.Atoi(fmt.Sprint(kv.Value)); err == nil {
					current = n
				}
			}
		}
	}
	return current
}

// dedupe joins errors "iteration N: MESSAGE", keeping one of each message (a matrix repeats
// the same iteration's figures); nil when there are none.
func dedupe(errs []error) error {
	seen := map[string]bool{}
	var out []error
	for _, e := range errs {
		_, msg, _ := strings.Cut(e.Error(), ": ")
		if !seen[msg] {
			seen[msg] = true
			out = append(out, e)
		}
	}
	return errors.Join(out...)
}

// prepared is how many server-side prepared statements one connection of w keeps, as its
// kind declares it (spec.Kind.Prepared): the pre-flight knows no kind by its package.
func prepared(w *spec.Workload) int {
	if w == nil || w.Kind == nil || w.Kind.Prepared == nil {
		return 0
	}
	return w.Kind.Prepared(w)
}
