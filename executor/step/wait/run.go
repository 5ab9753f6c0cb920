package wait

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/step"
	sqlstep "github.com/quadrant-bench/quadrant/executor/step/sql"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// run polls until the condition holds. The condition sees status.NAME (SHOW GLOBAL
// STATUS), replica.NAME (SHOW REPLICA STATUS, both MariaDB and MySQL spellings) and
// row.COLUMN (the first row of sql:).
func run(ctx context.Context, st *spec.Step, env step.Env) error {
	w := Of(st)
	t := env.Target
	if w.Target != "" {
		t = env.Targets.Target(w.Target)
	}
	if t == nil {
		return fmt.Errorf("no target to poll: give the wait step a target")
	}
	interval, timeout := w.Interval, w.Timeout
	if interval <= 0 {
		interval = time.Second
	}
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	env.Logf("%s: waiting until %s on %s (timeout %s)", env.Where, w.Until.Source, t.Name(), timeout)
	began := time.Now()
	deadline := began.Add(timeout)
	p := env.Track(env.Where+": until "+w.Until.Source, "", 0)
	p.Deadline(deadline)
	defer p.Finish()
	var last map[string]any
	for {
		vals, err := poll(ctx, t, w)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			env.LogFile("%s: poll: %v", env.Where, err)
		} else {
			last = vals
			p.Update(0, 0, conditionValues(w.Until.Source, vals))
			ok, err := w.Until.EvalBool(vals)
			if err != nil {
				return err
			}
			if ok {
				took := time.Since(began).Seconds()
				env.Logf("%s: condition true after %.3fs", env.Where, took)
				if w.RecordAs != "" && env.Record != nil {
					env.Record(w.RecordAs, took)
				}
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s still false after %s%s", w.Until.Source, timeout, describe(last))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// poll reads what the condition sees now.
func poll(ctx context.Context, t step.Target, w *Wait) (map[string]any, error) {
	status, err := t.Status(ctx)
	if err != nil {
		return nil, err
	}
	replica := map[string]any{}
	// Only a wait on replica.* reads the replica status: an account without the privilege
	// to read it still waits on status.* and row.*.
	if spec.ReplicaRef.MatchString(w.Until.Source) {
		st, ok, err := target.ReadReplicaStatus(ctx, t.DB())
		if err != nil {
			return nil, err
		}
		if ok {
			for k, v := range st.BothSpellings() {
				replica[k] = target.Typed(v)
			}
		}
	}
	row := map[string]any{}
	if w.SQL != "" {
		conn, err := t.DB().Conn(ctx)
		if err != nil {
			return nil, err
		}
		cols, rows, err := sqlstep.Query(ctx, conn, w.SQL)
		conn.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sqlstep.Abbreviate(w.SQL, 200), err)
		}
		if len(rows) > 0 {
			for i, c := range cols {
				row[c] = target.Typed(rows[0][i])
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

// describe shows the polled row and replica state in a timeout message: they say why.
func describe(env map[string]any) string {
	if env == nil {
		return ""
	}
	var parts []string
	if row, _ := env["row"].(map[string]any); len(row) > 0 {
		keys := make([]string, 0, len(row))
		for k := range row {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
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
