package capture

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/internal/rowset"
	"github.com/quadrant-bench/quadrant/executor/traffic"
)

// psConsumers are enabled for the capture (and put back as they were): the history_long ring
// and the consumers it depends on.
var psConsumers = []string{"global_instrumentation", "thread_instrumentation", "events_statements_current", "events_statements_history_long"}

// perfSchema polls events_statements_history_long, a ring of the server's last completed
// statements (performance_schema_events_statements_history_long_size, 10000 by default):
// statements that come faster than a poll reads them are lost, and a warning says so. Sessions
// are performance_schema thread ids; statements run by stored programs are left out (their
// CALL is captured).
func perfSchema(ctx context.Context, conn *sql.Conn, self uint64, o Options, res *Result) ([]traffic.Statement, error) {
	var on string
	if err := conn.QueryRowContext(ctx, "SELECT @@GLOBAL.performance_schema").Scan(&on); err != nil {
		return nil, err
	}
	if on != "1" && !strings.EqualFold(on, "ON") {
		return nil, errors.New("performance_schema is OFF (it is set in my.cnf and needs a restart)")
	}
	var size, maxText int
	if err := conn.QueryRowContext(ctx, "SELECT @@GLOBAL.performance_schema_events_statements_history_long_size, @@GLOBAL.performance_schema_max_sql_text_length").Scan(&size, &maxText); err != nil {
		return nil, err
	}
	set, err := readSet(ctx, conn, "SELECT * FROM performance_schema.setup_consumers")
	if err != nil {
		return nil, fmt.Errorf("read performance_schema.setup_consumers: %w", err)
	}
	was, err := consumers(set)
	if err != nil {
		return nil, err
	}
	restore := func() {
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, c := range psConsumers {
			if _, err := conn.ExecContext(rctx, "UPDATE performance_schema.setup_consumers SET ENABLED = ? WHERE NAME = ?", was[c], c); err != nil {
				o.Logf("capture: warning: restoring performance_schema consumer %s=%s failed: %v", c, was[c], err)
			}
		}
	}
	defer restore()
	if _, err := conn.ExecContext(ctx, "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME IN ('global_instrumentation', 'thread_instrumentation', 'events_statements_current', 'events_statements_history_long')"); err != nil {
		return nil, err
	}
	var own uint64
	var timer0 int64
	var wall0 string
	if err := conn.QueryRowContext(ctx, "SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = ?", self).Scan(&own); err != nil {
		return nil, fmt.Errorf("own thread: %w", err)
	}
	// NOW(6) is when its statement started, which the ring then holds with its TIMER_START.
	if err := conn.QueryRowContext(ctx, "SELECT NOW(6)").Scan(&wall0); err != nil {
		return nil, err
	}
	if err := conn.QueryRowContext(ctx, "SELECT TIMER_START FROM performance_schema.events_statements_history_long WHERE THREAD_ID = ? ORDER BY EVENT_ID DESC LIMIT 1", own).Scan(&timer0); err != nil {
		return nil, fmt.Errorf("timer base (is this connection's thread instrumented?): %w", err)
	}
	base, err := time.Parse("2006-01-02 15:04:05.999999", wall0)
	if err != nil {
		return nil, err
	}
	// Timers are picoseconds; a statement's wall start is base plus its distance from timer0.
	o.Logf("capture: polling performance_schema.events_statements_history_long (%d statements deep) for %s", size, o.Duration)
	h := &history{base: base, timer0: timer0, maxText: maxText, seen: map[uint64]uint64{}, users: map[uint64]string{}}
	var out []traffic.Statement
	poll := func() error {
		sts, full, err := h.poll(ctx, conn, own, size)
		out = append(out, sts...)
		if full {
			res.Lost++
		}
		return err
	}
	interval := o.Poll
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	o.started()
	if err := wait(ctx, o.Duration, interval, poll); err != nil {
		return nil, err
	}
	o.stopped() // what it began has ended: the last two polls read its last statements
	for range 2 {
		if err := poll(); err != nil && ctx.Err() == nil {
			return nil, err
		}
	}
	if res.Lost > 0 {
		o.Logf("capture: warning: %d polls found the history ring full: statements were lost; raise performance_schema_events_statements_history_long_size or capture through the slow log", res.Lost)
	}
	res.Truncated = h.truncated
	if res.Truncated > 0 {
		o.Logf("capture: warning: %d statements longer than performance_schema_max_sql_text_length=%d were cut by the server and left out", res.Truncated, maxText)
	}
	return out, nil
}

// consumers is what setup_consumers says of the consumers the capture turns on, or an error naming
// those it lacks. The names are the same on MariaDB 10.11 and MySQL 8.0 and 8.4.
func consumers(set *rowset.Set) (map[string]string, error) {
	all, err := set.Pairs("performance_schema.setup_consumers", "NAME", "ENABLED")
	if err != nil {
		return nil, err
	}
	was := map[string]string{}
	var missing []string
	for _, c := range psConsumers {
		en, ok := all[c]
		if !ok {
			missing = append(missing, c)
		}
		was[c] = en
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("performance_schema.setup_consumers has no consumer %s", strings.Join(missing, ", "))
	}
	return was, nil
}

// history turns polls of events_statements_history_long into statements. A poll sees again what
// the last one read (the ring keeps it), so it remembers each thread's last event; and a thread's
// user, which performance_schema.threads forgets once the connection closes.
type history struct {
	base      time.Time // the wall clock at timer0
	timer0    int64     // picoseconds
	cut       int64     // a poll takes the statements that ended before it (picoseconds)
	maxText   int       // performance_schema_max_sql_text_length
	seen      map[uint64]uint64
	users     map[uint64]string
	truncated int64
}

const historyTable = "performance_schema.events_statements_history_long"

// poll reads the ring once: the statements new since the last poll, and whether the ring was
// full (statements may have been lost before it).
//
// A poll reads the ring slot by slot while the server writes it: it can read a thread's
// newer statement from a slot written after the scan passed the slot of the one before it,
// which, once the ring has wrapped, still held an older statement. Each poll therefore takes
// only the statements that ended before the previous poll began (the start of this
// connection's last statement: all of them were in the ring by then); the rest wait for the
// next poll. Measured without: a 2 s capture of four contended sessions lost every statement
// that ended during one 7 ms poll, and the replay of it deadlocked.
//
// MySQL 8, with its transaction instrumentation (on by default), nests an autocommit
// statement in its TRANSACTION event where MariaDB leaves NESTING_EVENT_TYPE NULL: only
// statements nested in a statement (a stored program's) are left out.
func (h *history) poll(ctx context.Context, conn *sql.Conn, own uint64, size int) ([]traffic.Statement, bool, error) {
	if err := conn.QueryRowContext(ctx, "SELECT TIMER_START FROM "+historyTable+" WHERE THREAD_ID = ? ORDER BY EVENT_ID DESC LIMIT 1", own).Scan(&h.cut); err != nil {
		return nil, false, fmt.Errorf("the last poll's start: %w", err)
	}
	set, err := readSet(ctx, conn, `SELECT h.*, t.PROCESSLIST_USER
		FROM `+historyTable+` h LEFT JOIN performance_schema.threads t ON t.THREAD_ID = h.THREAD_ID
		WHERE h.THREAD_ID <> ? AND h.TIMER_START >= ? AND (h.NESTING_EVENT_TYPE IS NULL OR h.NESTING_EVENT_TYPE <> 'STATEMENT')
		ORDER BY h.THREAD_ID, h.EVENT_ID`, own, h.timer0)
	if err != nil {
		return nil, false, err
	}
	sts, err := h.add(set)
	return sts, len(set.Rows) >= size, err
}

// add reads one poll by column name: MySQL 8's ring has columns MariaDB's lacks (STATEMENT_ID,
// CPU_TIME, EXECUTION_ENGINE...), in another order.
func (h *history) add(set *rowset.Set) ([]traffic.Statement, error) {
	idx, err := set.Need(historyTable, "THREAD_ID", "EVENT_ID", "TIMER_START", "TIMER_WAIT", "SQL_TEXT", "CURRENT_SCHEMA",
		"ROWS_SENT", "ROWS_EXAMINED", "MYSQL_ERRNO", "PROCESSLIST_USER")
	if err != nil {
		return nil, err
	}
	var out []traffic.Statement
	for _, r := range set.Rows {
		thread, ok1 := rowset.Uint(r[idx[0]])
		event, ok2 := rowset.Uint(r[idx[1]])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: THREAD_ID %q, EVENT_ID %q: not numbers", historyTable, r[idx[0]].String, r[idx[1]].String)
		}
		if event <= h.seen[thread] {
			continue
		}
		start, _ := rowset.Int(r[idx[2]])
		wait, _ := rowset.Int(r[idx[3]])
		if start != 0 && start+wait >= h.cut {
			continue // the next poll's, as are the thread's later ones (they ended later still)
		}
		h.seen[thread] = event
		if user := r[idx[9]]; user.Valid {
			h.users[thread] = user.String
		}
		text := r[idx[4]]
		if !text.Valid || text.String == "" {
			continue
		}
		if len(text.String) >= h.maxText {
			h.truncated++
			continue
		}
		// Untimed statements (an instrument with TIMED = NO) have NULL timers: start at timer0.
		if start == 0 {
			start = h.timer0
		}
		// The clock is the server's timer from timer0 (+1, 0 being unknown), exact to the
		// picosecond across threads: the commit order replay keeps is read from it.
		st := traffic.Statement{Session: thread, Start: h.base.Add(time.Duration((start - h.timer0) / 1000)),
			Duration: time.Duration(wait / 1000), Schema: r[idx[5]].String, User: h.users[thread], Text: text.String,
			RowsSent: -1, RowsExamined: -1, Error: -1, ClockStart: start - h.timer0 + 1, ClockEnd: start + wait - h.timer0 + 1}
		if n, ok := rowset.Int(r[idx[8]]); ok {
			st.Error = int(n)
		}
		if n, ok := rowset.Int(r[idx[6]]); ok {
			st.RowsSent = n
		}
		if n, ok := rowset.Int(r[idx[7]]); ok {
			st.RowsExamined = n
		}
		out = append(out, st)
	}
	return out, nil
}
