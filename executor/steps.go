package executor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/quadrant-bench/quadrant/executor/step"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/tail"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// stepScope is where a list of steps runs: its phase (setup, before, after, during,
// teardown), the default target, and the iteration (nil in setup and teardown) whose
// record_as metrics the steps fill.
type stepScope struct {
	phase   string
	target  string
	it      *spec.Iteration
	metrics map[string]float64
}

func (sc stepScope) index() int {
	if sc.it == nil {
		return 0
	}
	return sc.it.Index
}

func (sc stepScope) where(st *spec.Step) string {
	if sc.it != nil {
		return fmt.Sprintf("iteration %d: %s: %s (%s)", sc.it.Index, sc.phase, st.KindKey(), st.Src.Pos)
	}
	return fmt.Sprintf("%s: %s (%s)", sc.phase, st.KindKey(), st.Src.Pos)
}

// stepRunner runs a plan's steps (sql, sql_file, set_global, restart, drop_caches, shell,
// sleep, wait, workload, capture, generate, verify) on the fleet's targets, with what they need and no more:
// the log, the globals it restores, the results folder for save_as, and how to run a
// workload.
type stepRunner struct {
	fleet   *fleet
	log     *runLog
	globals *globals
	out     *results.Writer // save_as results
	// runs reports whether this process runs a step: a shard other than the leader runs
	// only the prepares split between the shards.
	runs func(*spec.Step) bool
	// workload runs a workload on a target (see runner.runWorkload).
	workload func(ctx context.Context, s *liveTarget, w *spec.Workload, step string, onInterval func(*measure.Interval), ready func(context.Context) error) (*measure.Total, error)
	// shard is this process's part of a sharded run, and meet its rendezvous with the
	// others (see runner.meet): a generate step splits its rows between the shards.
	shard shard.Shard
	meet  func(ctx context.Context, point string) error
	// generates counts the split generate steps run so far: they name their meeting points,
	// the same in every shard since every shard runs them in the same order.
	generates int
}

// declared runs a step of a kind the executor does not know by its type: its kind's
// declared runner (spec.StepKind.Impl, a step.Runner).
func (sr *stepRunner) declared(ctx context.Context, st *spec.Step, where string) error {
	if st.Kind == nil {
		return fmt.Errorf("step of no kind")
	}
	r, ok := st.Kind.Impl.(step.Runner)
	if !ok {
		return fmt.Errorf("step kind %s declares nothing that runs it (its Impl is not a step.Runner)", st.Kind.Key)
	}
	return r.Run(ctx, st, step.Env{Where: where, Logf: sr.log.logf})
}

// run runs list in order and stops at the first failure.
func (sr *stepRunner) run(ctx context.Context, list []spec.Step, sc stepScope) error {
	for i := range list {
		if err := ctx.Err(); err != nil {
			return errInterrupted
		}
		if !sr.runs(&list[i]) {
			continue
		}
		if err := sr.step(ctx, &list[i], sc); err != nil {
			return err
		}
	}
	return nil
}

func (sr *stepRunner) step(ctx context.Context, st *spec.Step, sc stepScope) error {
	where := sc.where(st)
	name := st.Target
	if name == "" {
		name = sc.target
	}
	var s *liveTarget
	if name != "" {
		s = sr.fleet.servers[name]
	}
	needServer := func() error {
		if s == nil {
			return fmt.Errorf("%s: no target: give the step a target: (the plan has %d)", where, len(sr.fleet.servers))
		}
		return nil
	}
	if st.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, st.Timeout)
		defer cancel()
	}
	began := time.Now()
	var err error
	switch a := st.Body.(type) {
	case *spec.SQL:
		if err = needServer(); err == nil {
			err = sr.sqlStatements(ctx, s, st, sc, listOf(a.Statements))
		}
	case *spec.SQLFile:
		if err = needServer(); err == nil {
			err = sr.sqlFile(ctx, s, st, sc, a.Path)
		}
	case *spec.SetGlobal:
		if err = needServer(); err == nil {
			for _, kv := range a.Settings {
				sr.log.logFile("%s: SET GLOBAL %s = %v on %s", where, kv.Name, kv.Value, s.Name())
				if err = sr.globals.set(ctx, s, kv.Name, kv.Value); err != nil {
					break
				}
			}
		}
	case *spec.Restart:
		if err = needServer(); err == nil {
			err = sr.fleet.restart(ctx, s, a.Config)
		}
	case *spec.DropCaches:
		err = dropCaches(ctx)
	case *spec.Shell:
		err = sr.shell(ctx, a.Command, sc, where)
	case *spec.Sleep:
		sr.log.logFile("%s: sleep %s", where, a.Duration)
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(a.Duration):
		}
	case *spec.Wait:
		err = sr.wait(ctx, a, name, sc, where)
	case *spec.Workload:
		if err = needServer(); err == nil {
			sr.log.logf("%s: %s on %s", where, a, s.Name())
			_, err = sr.workload(ctx, s, a, where, nil, nil)
		}
	case *spec.Capture:
		if err = needServer(); err == nil {
			err = sr.capture(ctx, s, a, where)
		}
	case *spec.Generate:
		if err = needServer(); err == nil {
			err = sr.generate(ctx, s, a, where, sc.phase != spec.PhaseDuring)
		}
	case *spec.Verify:
		err = sr.verify(ctx, a, where)
	default:
		err = sr.declared(ctx, st, where)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, errInterrupted) {
			return errInterrupted
		}
		if errors.Is(err, context.DeadlineExceeded) && st.Timeout > 0 {
			return fmt.Errorf("%s: did not finish within its timeout of %s", where, st.Timeout)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	sr.log.logFile("%s: done in %.3fs", where, time.Since(began).Seconds())
	return nil
}

// statements yields one statement at a time (and its line in a file, 0 otherwise);
// io.EOF ends it.
type statements func() (stmt string, line int, err error)

func listOf(list []string) statements {
	i := 0
	return func() (string, int, error) {
		if i >= len(list) {
			return "", 0, io.EOF
		}
		i++
		return list[i-1], 0, nil
	}
}

// sqlStatements runs statements on one connection, so session state (USE, SET @x)
// carries from one to the next, and keeps the last result set when save_as asks.
func (sr *stepRunner) sqlStatements(ctx context.Context, s *liveTarget, st *spec.Step, sc stepScope, next statements) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", s.Name(), err)
	}
	defer conn.Close()
	var savedCols []string
	var savedRows [][]string
	for {
		stmt, line, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		sr.log.logFile("sql on %s: %s", s.Name(), quoteStmt(st, stmt, 500))
		cols, rows, err := query(ctx, conn, stmt)
		err = quoteErr(st, err)
		if err != nil {
			if code := mysqlCode(err); code != 0 && contains(st.IgnoreErrors, code) {
				sr.log.logFile("ignored error %d (ignore_errors): %v", code, err)
				continue
			}
			if line > 0 {
				return fmt.Errorf("line %d: %s: %w", line, quoteStmt(st, stmt, 200), err)
			}
			return fmt.Errorf("%s: %w", quoteStmt(st, stmt, 200), err)
		}
		if len(cols) > 0 {
			savedCols, savedRows = cols, rows
		}
	}
	if st.SaveAs != "" && savedCols != nil {
		// what the server returns may hold a secret the plan put in a statement: masked as in the log
		cols, rows := sr.log.redactTable(savedCols, savedRows)
		if err := sr.out.SaveResult(st.SaveAs, sc.index(), cols, rows); err != nil {
			return fmt.Errorf("save_as %s: %w", st.SaveAs, err)
		}
	}
	return nil
}

// query runs one statement through the text protocol (any statement works, unlike
// prepared statements) and reads its result set, if any, as strings.
func query(ctx context.Context, conn *sql.Conn, stmt string) ([]string, [][]string, error) {
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || len(cols) == 0 {
		return nil, nil, err
	}
	var out [][]string
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	return cols, out, rows.Err()
}

func (sr *stepRunner) sqlFile(ctx context.Context, s *liveTarget, st *spec.Step, sc stepScope, path string) error {
	f, err := sr.fleet.plan.Roots().Open(path) // a symlink swapped in since validation leads nowhere
	if err != nil {
		return err
	}
	defer f.Close()
	var size float64
	if fi, err := f.Stat(); err == nil {
		size = float64(fi.Size())
	}
	read := &countingReader{r: f}
	t := sr.log.track(sc.where(st), "bytes", size)
	defer t.finish()
	sp := sqltext.NewSplitter(read)
	sp.SetLimit(packetLimit(ctx, s)) // a statement the server would refuse is never held whole
	statements := 0
	return sr.sqlStatements(ctx, s, st, sc, func() (string, int, error) {
		stmt, line, err := sp.Next()
		if err != nil && err != io.EOF {
			err = tooLarge(s.Name(), err)
			err = fmt.Errorf("%s: %w", path, err)
		}
		if err == nil {
			statements++
			t.update(func(w *Work) { w.Done, w.State = float64(read.n), fmt.Sprintf("%d statements", statements) })
		}
		return string(stmt), line, err
	})
}

// countingReader counts the bytes read through it: how far into a SQL file a step is.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func mysqlCode(err error) int {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number)
	}
	return 0
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// dropCaches empties the OS page cache so the next iteration reads from storage. It
// needs root; without it the step fails, it never pretends.
func dropCaches(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("drop_caches needs root (it writes /proc/sys/vm/drop_caches): run quadrant as root, or remove the step")
	}
	if out, err := exec.CommandContext(ctx, "sync").CombinedOutput(); err != nil {
		return fmt.Errorf("sync: %v %s", err, out)
	}
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("drop_caches: %w (in a container /proc/sys is often read-only: run on the host, or remove the step)", err)
	}
	return nil
}

// shell runs a command with sh -c; its output goes to the log, and a failure shows its
// last lines.
func (sr *stepRunner) shell(ctx context.Context, command string, sc stepScope, where string) error {
	sr.log.logf("%s: shell: %s", where, command)
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = append(os.Environ(), sr.shellEnv(sc)...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if len(out) > 0 {
		sr.log.logFile("shell output:\n%s", strings.TrimRight(string(out), "\n"))
	}
	if err != nil {
		return fmt.Errorf("%q failed: %v\n%s", command, err, tail.Lines(string(out), 15))
	}
	return nil
}

// shellEnv is what a shell step knows of the run (docs/plan-reference.md, shell).
func (sr *stepRunner) shellEnv(sc stepScope) []string {
	var env []string
	if sc.it != nil {
		env = append(env, fmt.Sprintf("QUADRANT_ITERATION=%d", sc.it.Index), fmt.Sprintf("QUADRANT_REPEAT=%d", sc.it.Repeat))
		for _, av := range sc.it.Matrix {
			env = append(env, fmt.Sprintf("QUADRANT_MATRIX_%s=%v", strings.ToUpper(av.Axis), av.Value))
		}
	}
	for _, name := range sr.fleet.order {
		s := sr.fleet.servers[name]
		up := strings.ToUpper(name)
		env = append(env, fmt.Sprintf("QUADRANT_TARGET_%s_HOST=%s", up, s.Host()), fmt.Sprintf("QUADRANT_TARGET_%s_PORT=%d", up, s.Port()))
		if s.sb != nil {
			// A sandbox's password is random: a script reaches it through the option file, so
			// the password shows neither in the plan nor on a command line.
			env = append(env, fmt.Sprintf("QUADRANT_TARGET_%s_CNF=%s", up, s.sb.ClientConfigFile()))
			// Directories a step makes for the server (binary logs elsewhere, say) must be the
			// server's user's: quadrant may run as root, the server never does.
			env = append(env, fmt.Sprintf("QUADRANT_TARGET_%s_OS_USER=%s", up, s.sb.RunAs()))
			if ca := s.sb.CAFile(); ca != "" {
				env = append(env, fmt.Sprintf("QUADRANT_TARGET_%s_CA=%s", up, ca))
			}
		}
	}
	return env
}
