package capture

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

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
	was := map[string]string{}
	for _, c := range psConsumers {
		var en string
		if err := conn.QueryRowContext(ctx, "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = ?", c).Scan(&en); err != nil {
			return nil, fmt.Errorf("consumer %s: %w", c, err)
		}
		was[c] = en
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
	seen := map[uint64]uint64{} // thread -> last event id read
	users := map[uint64]string{}
	var out []traffic.Statement
	poll := func() error {
		rows, err := conn.QueryContext(ctx, `SELECT h.THREAD_ID, h.EVENT_ID, h.TIMER_START, h.TIMER_WAIT, h.SQL_TEXT, h.CURRENT_SCHEMA,
			h.ROWS_SENT, h.ROWS_EXAMINED, h.MYSQL_ERRNO, t.PROCESSLIST_USER
			FROM performance_schema.events_statements_history_long h LEFT JOIN performance_schema.threads t ON t.THREAD_ID = h.THREAD_ID
			WHERE h.THREAD_ID <> ? AND h.TIMER_START >= ? AND (h.NESTING_EVENT_TYPE IS NULL OR h.NESTING_EVENT_TYPE <> 'STATEMENT')
			ORDER BY h.THREAD_ID, h.EVENT_ID`, own, timer0)
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			n++
			var thread, event uint64
			var start, wait int64
			var text, schema, user sql.NullString
			var sent, examined, errno sql.NullInt64
			if err := rows.Scan(&thread, &event, &start, &wait, &text, &schema, &sent, &examined, &errno, &user); err != nil {
				return err
			}
			if event <= seen[thread] {
				continue
			}
			seen[thread] = event
			if user.Valid {
				users[thread] = user.String
			}
			if !text.Valid || text.String == "" {
				continue
			}
			if len(text.String) >= maxText {
				res.Truncated++
				continue
			}
			st := traffic.Statement{Session: thread, Start: base.Add(time.Duration((start - timer0) / 1000)),
				Duration: time.Duration(wait / 1000), Schema: schema.String, User: users[thread], Text: text.String,
				RowsSent: -1, RowsExamined: -1, Error: -1}
			if errno.Valid {
				st.Error = int(errno.Int64)
			}
			if sent.Valid {
				st.RowsSent = sent.Int64
			}
			if examined.Valid {
				st.RowsExamined = examined.Int64
			}
			out = append(out, st)
		}
		if n >= size {
			res.Lost++
		}
		return rows.Err()
	}
	interval := o.Poll
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	o.started()
	if err := wait(ctx, o.Duration, interval, poll); err != nil {
		return nil, err
	}
	if err := poll(); err != nil && ctx.Err() == nil {
		return nil, err
	}
	if res.Lost > 0 {
		o.Logf("capture: warning: %d polls found the history ring full: statements were lost; raise performance_schema_events_statements_history_long_size or capture through the slow log", res.Lost)
	}
	if res.Truncated > 0 {
		o.Logf("capture: warning: %d statements longer than performance_schema_max_sql_text_length=%d were cut by the server and left out", res.Truncated, maxText)
	}
	return out, nil
}
