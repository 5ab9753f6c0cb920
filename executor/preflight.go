package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/executor/workload/kinds"
	"github.com/quadrant-bench/quadrant/spec"
)

// preflight checks, before setup touches anything, what would otherwise fail an iteration minutes into the
// run or spoil its figures: more connections than the server accepts, more prepared statements than it
// keeps, a client machine already busy. Limits are the server's now, or what the iteration's server_config
// or globals set.
func (r *runner) preflight(ctx context.Context) error {
	if load, err := loadAverage(); err == nil && load > float64(runtime.NumCPU()) {
		r.logf("warning: this machine is already busy: load average %.1f over %d cores before the run; quadrant's workers compete with that load, so results may be client-bound and noisy", load, runtime.NumCPU())
	}
	if errs := r.assertedStatus(); len(errs) > 0 {
		return &PlanError{Err: fmt.Errorf("pre-flight: %w", dedupe(errs))}
	}
	limits := map[string]serverLimits{}
	var errs []error
	for i := range r.plan.Iterations {
		it := &r.plan.Iterations[i]
		name := r.plan.TargetOf(it)
		s := r.servers[name]
		if it.Workload == nil || s == nil {
			continue
		}
		lim, ok := limits[name]
		if !ok {
			var err error
			if lim, err = readLimits(ctx, s); err != nil {
				r.logf("warning: pre-flight: %s: %v (connection and prepared statement limits not checked)", name, err)
				lim.unknown = true
			}
			limits[name] = lim
		}
		if lim.unknown {
			continue
		}
		maxConn := override(it, "max_connections", lim.maxConnections)
		threads := max(it.Workload.Threads, 1)
		watchers := r.watcherConns(name) + 1 // and the executor's own connection
		if threads+watchers > maxConn {
			errs = append(errs, fmt.Errorf("iteration %d: %d workload threads + %d watcher and control connections = %d connections to %s, over its max_connections of %d: lower threads, or raise max_connections (server_config, globals, or the server's my.cnf)",
				it.Index, threads, watchers, threads+watchers, name, maxConn))
		}
		if per := kinds.Prepared(it.Workload); per > 0 {
			maxStmt := override(it, "max_prepared_stmt_count", lim.maxPrepared)
			if need := threads*per + lim.prepared; need > maxStmt {
				errs = append(errs, fmt.Errorf("iteration %d: %d threads x %d prepared statements each (+ %d already prepared on the server) = %d, over max_prepared_stmt_count %d on %s: raise max_prepared_stmt_count, lower threads or tables, or set the workload option ps_mode: disable",
					it.Index, threads, per, lim.prepared, need, maxStmt, name))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("pre-flight: %w", dedupe(errs))
	}
	return nil
}

// assertedStatus finds the status.NAME assertions read that are no watched column of the
// iteration's target (the server has no such variable, or watch.status does not take it):
// read as a missing map key they would be 0 and fail, or pass, for the wrong reason.
func (r *runner) assertedStatus() []error {
	watched := map[string][]string{} // target -> status names, as the server spells them
	for _, ti := range r.info.Targets {
		for _, c := range ti.Watched {
			if n, ok := strings.CutPrefix(c.Name, "status."); ok {
				watched[ti.Name] = append(watched[ti.Name], n)
			}
		}
	}
	var errs []error
	for i := range r.plan.Iterations {
		it := &r.plan.Iterations[i]
		name := r.plan.TargetOf(it)
		for _, a := range it.Assert {
			for _, m := range spec.StatusRef.FindAllStringSubmatch(a.Source, -1) {
				if slices.ContainsFunc(watched[name], func(w string) bool { return strings.EqualFold(w, m[1]) }) {
					continue
				}
				msg := fmt.Sprintf("%s: assert %q: status.%s is not a watched column of target %s (the server has no such status variable, or watch.status does not take it)", a.Pos, a.Source, m[1], name)
				if sg := spec.Suggest(m[1], watched[name]); sg != "" {
					msg += sg
				}
				errs = append(errs, fmt.Errorf("iteration %d: %s", it.Index, msg))
			}
		}
	}
	return errs
}

// dedupe joins errors, keeping one of each message (a matrix repeats the same iteration's figures).
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

type serverLimits struct {
	maxConnections, maxPrepared, prepared int
	unknown                               bool
}

func readLimits(ctx context.Context, s *liveTarget) (serverLimits, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var l serverLimits
	vars, err := target.Variables(ctx, s.db)
	if err != nil {
		return l, err
	}
	l.maxConnections, _ = strconv.Atoi(vars["max_connections"])
	l.maxPrepared, _ = strconv.Atoi(vars["max_prepared_stmt_count"])
	var name string
	if err := s.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'").Scan(&name, &l.prepared); err != nil {
		return l, fmt.Errorf("read Prepared_stmt_count: %w", err)
	}
	if l.maxConnections <= 0 || l.maxPrepared <= 0 {
		return l, fmt.Errorf("max_connections %q, max_prepared_stmt_count %q are not numbers", vars["max_connections"], vars["max_prepared_stmt_count"])
	}
	return l, nil
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

// watcherConns are the connections the samplers of a target hold open during a workload.
func (r *runner) watcherConns(name string) int {
	n := 0
	for _, sm := range r.watch.all {
		if sm.target == name && (sm.what == "status" || sm.what == "queries" || sm.what == "replication") {
			n++
		}
	}
	return n
}

// loadAverage is this machine's one-minute load average.
func loadAverage() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/loadavg is empty")
	}
	return strconv.ParseFloat(f[0], 64)
}
