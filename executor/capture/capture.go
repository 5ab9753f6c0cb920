// Package capture records what a server runs, through SQL only (so it works on a server one
// cannot log into), into a quadrant capture file: the slow log written to a TABLE with
// long_query_time=0 for the duration (the settings saved and restored), or where that is not
// allowed, performance_schema.events_statements_history_long polled.
package capture

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/internal/rowset"
	"github.com/quadrant-bench/quadrant/executor/traffic"
)

// Methods, as --method names them.
const (
	Auto     = "auto"
	SlowLog  = "slow_log"
	PerfSchm = "performance_schema"
)

// Filter keeps statements by schema, user and time window (offsets from the first
// statement captured); empty lists keep all, a zero To has no end.
type Filter struct {
	Schemas, Users []string
	From, To       time.Duration
}

// Keep says whether s passes the filter; first is the first statement's start.
func (f *Filter) Keep(s *traffic.Statement, first time.Time) bool {
	if len(f.Schemas) > 0 && !slices.Contains(f.Schemas, s.Schema) {
		return false
	}
	if len(f.Users) > 0 && !slices.Contains(f.Users, s.User) {
		return false
	}
	if !s.Start.IsZero() && !first.IsZero() {
		off := s.Start.Sub(first)
		if off < f.From || f.To > 0 && off > f.To {
			return false
		}
	}
	return true
}

// Options drive Run.
type Options struct {
	Duration time.Duration
	Method   string
	Filter   Filter
	Logf     func(format string, args ...any)
	// Poll is performance_schema's polling interval (default 100ms).
	Poll time.Duration
	// Started, if set, is called once statements are being recorded: with the slow log, only
	// connections opened from then on are.
	Started func()
	// Stopped, if set, is called once recording has ended (after Started), before the end
	// checksums: what Started began must be over for them to be the end state.
	Stopped func()
	// StateBudget bounds the time spent on CHECKSUM TABLE at the start and again at the end
	// (0: DefaultStateBudget; negative: no checksums).
	StateBudget time.Duration
}

// DefaultStateBudget is how long a capture checksums tables at its start, and again at
// its end, at most: CHECKSUM TABLE reads the whole table.
const DefaultStateBudget = 10 * time.Second

func (o *Options) started() {
	if o.Started != nil {
		o.Started()
		o.Started = nil
	}
}

func (o *Options) stopped() {
	if o.Stopped != nil {
		o.Stopped()
	}
}

// once makes Started and Stopped each run once, Stopped only after Started, whichever copy
// of o calls them.
func (o *Options) once() {
	start, stop := o.Started, o.Stopped
	var began, ended bool
	o.Started = func() {
		began = true
		if start != nil {
			start()
		}
	}
	o.Stopped = func() {
		if began && !ended {
			ended = true
			if stop != nil {
				stop()
			}
		}
	}
}

// Result says what a capture recorded.
type Result struct {
	Method     string
	Statements int64
	Sessions   int
	// Lost counts polls that found performance_schema's ring full: statements were dropped before a poll read them.
	Lost int64
	// Truncated counts statements whose text performance_schema cut (not written).
	Truncated int64
}

// ErrUnavailable is wrapped when the server offers no way to capture.
var ErrUnavailable = errors.New("no way to capture statements on this server")

// Run captures for o.Duration (or until ctx ends) on one connection of db and writes every
// statement of the other connections to w, in start order.
func Run(ctx context.Context, db *sql.DB, w *traffic.Writer, o Options) (*Result, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	o.once()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("capture: connect: %w", err)
	}
	defer conn.Close()
	var self uint64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&self); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	var sts []traffic.Statement
	res := &Result{}
	before, err := startState(ctx, conn, o)
	if err != nil {
		// A capture account may lack SELECT on the tables: the traffic is still worth having.
		o.Logf("capture: warning: the tables' start state is not recorded (a replay cannot check its target's data): %v", err)
		before = nil
	}
	var slowErr error
	if o.Method == Auto || o.Method == SlowLog || o.Method == "" {
		res.Method = SlowLog
		sts, slowErr = slowLog(ctx, conn, self, o)
		if slowErr != nil && o.Method == SlowLog {
			return nil, fmt.Errorf("capture through the slow log table: %w", slowErr)
		}
	}
	if slowErr != nil || o.Method == PerfSchm {
		if slowErr != nil {
			o.Logf("capture: the slow log table is not available (%v); trying performance_schema", slowErr)
		}
		res.Method = PerfSchm
		var psErr error
		sts, psErr = perfSchema(ctx, conn, self, o, res)
		if psErr != nil {
			if slowErr == nil {
				return nil, fmt.Errorf("capture through performance_schema: %w", psErr)
			}
			return nil, fmt.Errorf("%w: the slow log to TABLE needs the privilege to SET GLOBAL log_output, slow_query_log and long_query_time (%v); performance_schema needs performance_schema=ON in my.cnf and UPDATE on performance_schema.setup_consumers (%v)", ErrUnavailable, slowErr, psErr)
		}
	}
	o.stopped()
	slices.SortStableFunc(sts, func(a, b traffic.Statement) int { return a.Start.Compare(b.Start) })
	var first time.Time
	if len(sts) > 0 {
		first = sts[0].Start
	}
	kept := sts[:0]
	for i := range sts {
		if o.Filter.Keep(&sts[i], first) {
			kept = append(kept, sts[i])
		}
	}
	if before != nil {
		st, err := endState(ctx, conn, o, before, kept)
		if err != nil {
			o.Logf("capture: warning: the tables' state is not recorded (a replay cannot check its target's data): %v", err)
		} else if err := w.SetState(st); err != nil {
			return nil, err
		}
	}
	sessions := map[uint64]bool{}
	for i := range kept {
		if err := w.Write(&kept[i]); err != nil {
			return nil, fmt.Errorf("capture: write: %w", err)
		}
		res.Statements++
		sessions[kept[i].Session] = true
	}
	res.Sessions = len(sessions)
	return res, w.Flush()
}

// wait sleeps for the capture's duration, or until ctx ends (an interrupted capture keeps
// what it has).
func wait(ctx context.Context, d time.Duration, tick time.Duration, each func() error) error {
	end := time.Now().Add(d)
	t := time.NewTicker(tick)
	defer t.Stop()
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if each != nil {
				if err := each(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// slowLog switches the slow log to a table with long_query_time=0 for the duration, then reads
// the statements logged since the start. The three globals are restored whatever happens.
// long_query_time is read by a connection when it opens: connections opened before the capture
// keep theirs, and only their statements slower than it are logged.
func slowLog(ctx context.Context, conn *sql.Conn, self uint64, o Options) ([]traffic.Statement, error) {
	var output, enabled, lqt, since string
	if err := conn.QueryRowContext(ctx, "SELECT @@GLOBAL.log_output, @@GLOBAL.slow_query_log, @@GLOBAL.long_query_time, NOW(6)").Scan(&output, &enabled, &lqt, &since); err != nil {
		return nil, err
	}
	newOutput := "TABLE"
	if up := strings.ToUpper(output); strings.Contains(up, "TABLE") {
		newOutput = output
	} else if up != "NONE" && up != "" {
		newOutput = output + ",TABLE"
	}
	restore := func() {
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, q := range []string{"SET GLOBAL slow_query_log = " + enabled, "SET GLOBAL long_query_time = " + lqt, "SET GLOBAL log_output = '" + output + "'"} {
			if _, err := conn.ExecContext(rctx, q); err != nil {
				o.Logf("capture: warning: restoring %s failed: %v; restore it by hand", q, err)
			}
		}
	}
	for i, q := range []string{"SET GLOBAL log_output = '" + newOutput + "'", "SET GLOBAL long_query_time = 0", "SET GLOBAL slow_query_log = 1"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			if i > 0 {
				restore()
			}
			return nil, err
		}
	}
	o.Logf("capture: slow log to TABLE with long_query_time=0 for %s (was log_output=%s slow_query_log=%s long_query_time=%s; restored at the end); connections opened before now keep their long_query_time", o.Duration, output, enabled, lqt)
	o.started()
	err := wait(ctx, o.Duration, 100*time.Millisecond, nil)
	o.stopped()
	restore()
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	set, err := readSet(rctx, conn, "SELECT * FROM mysql.slow_log WHERE start_time >= ? AND thread_id <> ?", since, self)
	if err != nil {
		return nil, fmt.Errorf("read mysql.slow_log: %w", err)
	}
	sts, err := slowLogStatements(set)
	if err != nil {
		return nil, err
	}
	// The clock, from the capture's start: the table's microseconds (start_time, query_time).
	if base, err := time.Parse("2006-01-02 15:04:05.999999", since); err == nil {
		for i := range sts {
			if s := &sts[i]; !s.Start.IsZero() && s.Duration >= 0 && !s.Start.Before(base) {
				s.ClockStart = int64(s.Start.Sub(base))*1000 + 1
				s.ClockEnd = s.ClockStart + int64(s.Duration)*1000
			}
		}
	}
	return sts, nil
}

func readSet(ctx context.Context, conn *sql.Conn, q string, args ...any) (*rowset.Set, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rowset.Read(rows)
}

// slowLogStatements reads mysql.slow_log by column name: MariaDB's has rows_affected, which MySQL's
// lacks, and MySQL's sql_text is a MEDIUMBLOB where MariaDB's is MEDIUMTEXT (the same bytes).
func slowLogStatements(set *rowset.Set) ([]traffic.Statement, error) {
	idx, err := set.Need("mysql.slow_log", "start_time", "user_host", "query_time", "rows_sent", "rows_examined", "db", "thread_id", "sql_text")
	if err != nil {
		return nil, err
	}
	var out []traffic.Statement
	for _, r := range set.Rows {
		thread, ok := rowset.Uint(r[idx[6]])
		if !ok {
			return nil, fmt.Errorf("mysql.slow_log: thread_id %q: not a number", r[idx[6]].String)
		}
		st := traffic.Statement{Session: thread, Schema: r[idx[5]].String, User: userOf(r[idx[1]].String), Text: r[idx[7]].String,
			Duration: -1, RowsSent: -1, RowsExamined: -1, Error: -1}
		if t, ok := rowset.Time(r[idx[0]]); ok {
			st.Start = t
		}
		if d, ok := clockDuration(r[idx[2]].String); ok {
			st.Duration = d
		}
		if n, ok := rowset.Int(r[idx[3]]); ok {
			st.RowsSent = n
		}
		if n, ok := rowset.Int(r[idx[4]]); ok {
			st.RowsExamined = n
		}
		if isAdmin(st.Text) {
			continue
		}
		out = append(out, st)
	}
	return out, nil
}

// isAdmin: the slow log table also holds what is not a statement (Quit, Init DB as text).
func isAdmin(text string) bool {
	return text == "" || strings.HasPrefix(text, "# administrator command")
}

// userOf reads the user of a slow log user_host, "app[app] @ localhost [127.0.0.1]".
func userOf(uh string) string {
	if i := strings.IndexByte(uh, '['); i >= 0 {
		return strings.TrimSpace(uh[:i])
	}
	return strings.TrimSpace(uh)
}

// clockDuration reads a TIME(6) value, "HH:MM:SS.ffffff".
func clockDuration(v string) (time.Duration, bool) {
	p := strings.Split(v, ":")
	if len(p) != 3 {
		return 0, false
	}
	h, err1 := strconv.Atoi(p[0])
	m, err2 := strconv.Atoi(p[1])
	s, err3 := strconv.ParseFloat(p[2], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, false
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s*float64(time.Second)), true
}
