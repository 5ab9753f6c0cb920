package executor

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// restorer brings targets back to the state at the end of setup before the iterations whose
// plan says restore:, so that a write workload's second iteration does not run on the first
// one's leftovers: a sandbox from the copy of its data taken when setup ended, a dsn target
// by the plan's restore steps.
type restorer struct {
	// fresh says no iteration has run on the targets since setup ended: the first one needs
	// no restore. It is cleared as an iteration starts, and not set again by a restore,
	// so a failed restore is tried again before the next iteration.
	fresh bool
}

// snapshot copies, once setup has ended, the data of every sandbox that an iteration still
// to run restores. A sandbox restarts for it, so the first iteration, which runs without a
// restore, starts from a freshly started server as the restored ones do. Like the servers'
// config, it is the leader's business in a sharded run.
func (r *runner) snapshot(ctx context.Context) error {
	r.restore = &restorer{fresh: true}
	if !r.leader() {
		return nil
	}
	want := map[string]bool{}
	for i := range r.plan.Iterations {
		it := &r.plan.Iterations[i]
		if i < len(r.info.Iterations) && results.Finished(r.info.Iterations[i].Status) {
			continue
		}
		for _, name := range r.plan.RestoreTargets(it.Restore) {
			want[name] = true
		}
	}
	for _, c := range r.fleet.clusters {
		if !want[c.Name()] {
			continue
		}
		r.logf("restore: copying sandbox %s's data as setup left it (a restart)", c.Name())
		cp, err := c.Snapshot(ctx)
		r.fleet.restarted(c)
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		rec := restoreRecord(c.Name(), cp)
		r.logf("restore: sandbox %s copied: %s", c.Name(), describeRestore(rec))
		r.info.Snapshots = append(r.info.Snapshots, rec)
	}
	r.saveInfo()
	return nil
}

// restore brings the targets of the iteration's restore back to the end of setup: each
// sandbox from its copy (replicas included), then the plan's restore steps, which bring
// the dsn targets back. The first iteration after setup starts there already.
func (x *iteration) restore(ctx context.Context) error {
	r, it := x.r, x.it
	x.info.Restore = nil
	if r.restore == nil {
		return nil
	}
	fresh := r.restore.fresh
	r.restore.fresh = false // this iteration runs on the targets from now on
	if it.Restore == nil || fresh {
		return nil
	}
	defer r.saveInfo() // a kill after a restore still finds it in run.json
	for _, name := range r.plan.RestoreTargets(it.Restore) {
		c := r.fleet.cluster(name)
		if c == nil {
			continue // a dsn target: the steps below bring it back
		}
		r.logf("iteration %d: restore: putting sandbox %s's data back as setup left it (a restart)", it.Index, name)
		cp, err := c.Restore(ctx)
		r.fleet.restarted(c)
		if err != nil {
			return err // names the sandbox and what failed
		}
		rec := restoreRecord(name, cp)
		x.info.Restore = append(x.info.Restore, rec)
		r.logf("iteration %d: restore: sandbox %s back: %s", it.Index, name, describeRestore(rec))
	}
	if steps := it.Restore.Steps; len(steps) > 0 {
		began := time.Now()
		if err := r.steps.run(ctx, steps, stepScope{phase: spec.PhaseRestore, target: x.target, it: it, metrics: x.records}); err != nil {
			return fmt.Errorf("restore steps: %w", err)
		}
		var on []string
		for _, st := range steps {
			if t := cmp.Or(st.Target, x.target); (st.Kind == nil || !st.Kind.RestoresAny) && !slices.Contains(on, t) {
				on = append(on, t)
			}
		}
		rec := results.Restore{Target: strings.Join(on, ","), Method: results.RestoreSteps, Seconds: time.Since(began).Seconds()}
		x.info.Restore = append(x.info.Restore, rec)
		r.logf("iteration %d: restore: steps done in %.2fs", it.Index, rec.Seconds)
	}
	return nil
}

func restoreRecord(name string, cp sandbox.Copied) results.Restore {
	return results.Restore{Target: name, Method: cp.Method, Seconds: cp.Total.Seconds(), CopySeconds: cp.Copy.Seconds(), Bytes: cp.Bytes, Files: cp.Files}
}

// describeRestore is a copy in a log line: how much, how, how long.
func describeRestore(rec results.Restore) string {
	how := rec.Method
	if how == sandbox.MethodCopy {
		how = "copy (the filesystem cannot clone files)"
	}
	return fmt.Sprintf("%s in %d files by %s, %.2fs (%.2fs with the stop and the start)",
		byteCount(rec.Bytes), rec.Files, how, rec.CopySeconds, rec.Seconds)
}

func byteCount(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}

// cluster is the sandbox target name, nil for a dsn target.
func (f *fleet) cluster(name string) *sandbox.Cluster {
	for _, c := range f.clusters {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// restarted drops the pools' idle connections to the servers of c, which a stop broke.
func (f *fleet) restarted(c *sandbox.Cluster) {
	for _, srv := range c.Servers() {
		if s := f.targets[srv.Name()]; s != nil {
			s.dropIdle()
		}
	}
}
