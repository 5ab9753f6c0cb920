package executor

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	sqlstep "github.com/quadrant-bench/quadrant/executor/step/sql"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// wait polls until its condition holds. The condition sees status.NAME (SHOW GLOBAL
// STATUS), replica.NAME (SHOW REPLICA STATUS, both MariaDB and MySQL spellings) and
// row.COLUMN (the first row of sql:).
func (sr *stepRunner) wait(ctx context.Context, w *spec.Wait, stepTarget string, sc stepScope, where string) error {
	name := w.Target
	if name == "" {
		name = stepTarget
	}
	s := sr.fleet.servers[name]
	if s == nil {
		return fmt.Errorf("no target to poll: give the wait step a target")
	}
	interval, timeout := w.Interval, w.Timeout
	if interval <= 0 {
		interval = time.Second
	}
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	sr.log.logf("%s: waiting until %s on %s (timeout %s)", where, w.Until.Source, s.Name(), timeout)
	began := time.Now()
	deadline := began.Add(timeout)
	t := sr.log.track(where+": until "+w.Until.Source, "", 0)
	t.w.Deadline = deadline
	defer t.finish()
	var last map[string]any
	for {
		env, err := sr.waitEnv(ctx, s, w)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			sr.log.logFile("%s: poll: %v", where, err)
		} else {
			last = env
			t.update(func(w2 *Work) { w2.State = conditionValues(w.Until.Source, env) })
			ok, err := w.Until.EvalBool(env)
			if err != nil {
				return err
			}
			if ok {
				took := time.Since(began).Seconds()
				sr.log.logf("%s: condition true after %.3fs", where, took)
				if w.RecordAs != "" && sc.metrics != nil {
					sc.metrics[w.RecordAs] = took
				}
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s still false after %s%s", w.Until.Source, timeout, describeEnv(last))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

func (sr *stepRunner) waitEnv(ctx context.Context, s *liveTarget, w *spec.Wait) (map[string]any, error) {
	status, err := s.status(ctx)
	if err != nil {
		return nil, err
	}
	replica := map[string]any{}
	// Only a wait on replica.* reads the replica status: an account without the privilege
	// to read it still waits on status.* and row.*.
	if spec.ReplicaRef.MatchString(w.Until.Source) {
		st, ok, err := target.ReadReplicaStatus(ctx, s.db)
		if err != nil {
			return nil, err
		}
		if ok {
			for k, v := range st.BothSpellings() {
				replica[k] = typed(v)
			}
		}
	}
	row := map[string]any{}
	if w.SQL != "" {
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		cols, rows, err := sqlstep.Query(ctx, conn, w.SQL)
		conn.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", abbreviate(w.SQL, 200), err)
		}
		if len(rows) > 0 {
			for i, c := range cols {
				row[c] = typed(rows[0][i])
			}
		}
	}
	return map[string]any{"status": status, "replica": replica, "row": row}, nil
}

// conditionValues shows what a wait's condition reads now: "replica.Seconds_Behind_Master = 412".
func conditionValues(cond string, env map[string]any) string {
	var parts []string
	seen := map[string]bool{}
	for _, m := range conditionName.FindAllStringSubmatch(cond, -1) {
		if seen[m[0]] {
			continue
		}
		seen[m[0]] = true
		if vals, ok := env[m[1]].(map[string]any); ok {
			if v, ok := vals[m[2]]; ok {
				parts = append(parts, fmt.Sprintf("%s = %v", m[0], v))
			} else {
				parts = append(parts, m[0]+" not there")
			}
		}
	}
	return strings.Join(parts, ", ")
}

var conditionName = regexp.MustCompile(`\b(status|replica|row)\.([A-Za-z0-9_]+)`)

// describeEnv shows the polled row and replica state in a timeout message: they say why.
func describeEnv(env map[string]any) string {
	if env == nil {
		return ""
	}
	var parts []string
	if row, _ := env["row"].(map[string]any); len(row) > 0 {
		for _, k := range sortedKeys(row) {
			parts = append(parts, fmt.Sprintf("row.%s=%v", k, row[k]))
		}
	}
	if rep, _ := env["replica"].(map[string]any); len(rep) > 0 {
		for _, k := range []string{"Seconds_Behind_Master", "Slave_IO_Running", "Slave_SQL_Running", "Last_Error"} {
			if v, ok := rep[k]; ok {
				parts = append(parts, fmt.Sprintf("replica.%s=%v", k, v))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (last poll: " + strings.Join(parts, ", ") + ")"
}
