package executor

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/preflight"
)

// preflight checks, before setup touches anything, what would otherwise fail an iteration
// minutes into the run or spoil its figures (executor/preflight): an assertion on an
// unwatched status, more connections than the server accepts, more prepared statements
// than it keeps, a client machine already busy.
func (r *runner) preflight(ctx context.Context) error {
	if load, err := loadAverage(); err == nil && load > float64(runtime.NumCPU()) {
		r.logf("warning: this machine is already busy: load average %.1f over %d cores before the run; quadrant's workers compete with that load, so results may be client-bound and noisy", load, runtime.NumCPU())
	}
	watched := map[string][]string{} // target -> status names, as the server spells them
	for _, ti := range r.info.Targets {
		for _, c := range ti.Watched {
			if n, ok := strings.CutPrefix(c.Name, "status."); ok {
				watched[ti.Name] = append(watched[ti.Name], n)
			}
		}
	}
	if err := preflight.AssertedStatus(r.plan, watched); err != nil {
		return &PlanError{Err: fmt.Errorf("pre-flight: %w", err)}
	}
	if err := preflight.CheckLimits(r.plan, limitsOf(ctx, r.targets, r.logf), r.otherConns); err != nil {
		return fmt.Errorf("pre-flight: %w", err)
	}
	return nil
}

// limitsOf reads each target's limits once, when CheckLimits first asks; ok false:
// unknown (a warning says they are not checked).
func limitsOf(ctx context.Context, servers map[string]*liveTarget, logf func(string, ...any)) func(name string) (preflight.Limits, bool) {
	type read struct {
		lim preflight.Limits
		ok  bool
	}
	cache := map[string]read{}
	return func(name string) (preflight.Limits, bool) {
		if c, done := cache[name]; done {
			return c.lim, c.ok
		}
		var c read
		if s := servers[name]; s != nil {
			var err error
			if c.lim, err = preflight.ReadLimits(ctx, s.db); err != nil {
				logf("warning: pre-flight: %s: %v (connection and prepared statement limits not checked)", name, err)
			}
			c.ok = err == nil
		}
		cache[name] = c
		return c.lim, c.ok
	}
}

// otherConns are the connections the run holds open on a target besides the workload's:
// the samplers' that stay open during a workload, and the executor's own; on MariaDB with
// digests watched, one more for the prepared statements' poll, which runs on the control
// pool while the executor may use it too (collect/evidence.go).
func (r *runner) otherConns(name string) int {
	n := 1
	if s := r.targets[name]; s != nil && r.plan.Watch.Digests != nil && strings.Contains(s.info.Flavor, "MariaDB") {
		n++
	}
	return n + r.watch.Conns(name)
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

// checkPrivileges refuses the run, before setup touches anything, when the account of a dsn
// target lacks what the plan asks of it: otherwise setup loads tables and every iteration
// then fails on its first SET GLOBAL. Sandboxes run as quadrant's root and are not asked.
func (r *runner) checkPrivileges(ctx context.Context) error {
	var lines []string
	for _, name := range r.fleet.order {
		s := r.targets[name]
		if s.sb != nil {
			continue
		}
		if s.hosting.Managed() && preflight.Restarts(r.plan, name) {
			r.logf("warning: target %s is %s: server_config and restart steps run its restart command with the options in QUADRANT_MY_CNF; the server takes them only through %s, which the command must do", name, s.hosting.Name(), s.hosting.Settings())
		}
		res, err := preflight.CheckAccount(ctx, r.plan, name, s.db, s.info, s.Config().DBName)
		if err != nil {
			r.logf("warning: pre-flight: %v (the account's privileges not checked)", err)
			continue
		}
		if len(res.Lacks) > 0 {
			lines = append(lines, fmt.Sprintf("the account %s on target %s lacks what these plan lines need:\n    %s", res.Account, name, strings.Join(res.Lacks, "\n    ")))
		}
	}
	tables := r.existingTables(ctx)
	if len(lines) == 0 && len(tables) == 0 {
		return nil
	}
	var parts []string
	if len(lines) > 0 {
		parts = append(parts, strings.Join(lines, "\n  ")+"\n  grant them to the account (GRANT ... ON ... TO ...), use an account that has them, or take those lines out of the plan")
	}
	return &PlanError{Err: fmt.Errorf("pre-flight: nothing was run: %s", strings.Join(append(parts, tables...), "\n  "))}
}
