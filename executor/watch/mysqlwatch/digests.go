package mysqlwatch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/internal/rowset"
)

// DigestStats are one statement class's counters in events_statements_summary_by_digest.
type DigestStats struct {
	Schema, Digest, Text string
	Count, TimerPs       float64 // COUNT_STAR, SUM_TIMER_WAIT (picoseconds)
	RowsExamined         float64
	RowsSent             float64
	NoIndexUsed          float64
	NoGoodIndexUsed      float64
	Errors               float64
}

// WaitStats are one wait event's counters in events_waits_summary_global_by_event_name.
type WaitStats struct {
	Event          string
	Count, TimerPs float64
}

// ServerSettings are the my.cnf settings (name, value) a server quadrant starts gets when a plan asks
// for digests or waits: performance_schema on, without the per-thread statement history, which
// digests and waits (summaries) never read and which costs the server on every statement.
//
// What is left costs a point-select load about 3.5% of its throughput (bench/evidence_overhead.sh,
// 45 rotating rounds against performance_schema OFF), about half of it the statement instruments
// the digests need (1.8% with them off too, 20 rounds); quadrant's own snapshots and sampling cost
// it nothing measurable. Leaving the table I/O and table lock waits off as well gained 0.6% in a
// 45-round head-to-head, within the noise, so they stay: they are most of what waits.csv shows of
// an in-memory load. Neither did thread_instrumentation, idle and socket waits off, nor
// performance_schema_max_prepared_statements_instances=0.
//
// events_statements_current stays ON (those measurements had it OFF; its cost is not measured again):
// MariaDB 10.11 counts a prepared statement's executions in prepared_statements_instances only with it,
// COUNT_EXECUTE staying 0 otherwise (checked on a sandbox), and digests.csv's prepared rows come from there.
func ServerSettings() [][2]string {
	return [][2]string{
		{"performance_schema", "ON"},
		{"performance_schema_consumer_events_statements_current", "ON"},
		{"performance_schema_consumer_events_statements_history", "OFF"},
	}
}

// ErrNoPerformanceSchema is returned by CheckPerformanceSchema when the server has it off.
var ErrNoPerformanceSchema = errors.New("performance_schema is OFF")

// CheckPerformanceSchema says what is missing for digests or waits (what names the plan key asking): the
// server's performance_schema (a startup option: MariaDB has it off by default), or the consumer that fills
// the digest table.
func CheckPerformanceSchema(ctx context.Context, db Querier, what string, digests bool) error {
	var on string
	if err := queryRow(ctx, db, "SELECT @@GLOBAL.performance_schema", &on); err != nil {
		return fmt.Errorf("%s: read @@performance_schema: %w", what, err)
	}
	if on != "1" && !strings.EqualFold(on, "ON") {
		return fmt.Errorf("%s needs performance_schema=ON in the server's my.cnf [mysqld] section and a restart (it cannot be set at runtime; MariaDB has it OFF by default; sandboxes get it from quadrant): %w", what, ErrNoPerformanceSchema)
	}
	if !digests {
		return nil
	}
	set, err := readSet(ctx, db, "SELECT * FROM performance_schema.setup_consumers")
	if err != nil {
		return fmt.Errorf("%s: read performance_schema.setup_consumers: %w", what, err)
	}
	if err := digestConsumer(set); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// digestConsumer says whether setup_consumers lets statements into the digest table. The consumer is
// statements_digest on MariaDB and on MySQL 8.0 and 8.4 alike.
func digestConsumer(set *rowset.Set) error {
	enabled, err := set.Pairs("performance_schema.setup_consumers", "NAME", "ENABLED")
	if err != nil {
		return err
	}
	en, ok := enabled["statements_digest"]
	if !ok {
		return errors.New("performance_schema.setup_consumers has no statements_digest consumer")
	}
	if !strings.EqualFold(en, "YES") {
		return errors.New("the statements_digest consumer is disabled: UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'statements_digest' (or performance_schema_consumer_statements_digest=ON in my.cnf)")
	}
	return nil
}

func queryRow(ctx context.Context, db Querier, q string, dst *string) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	var v sql.NullString
	if err := rows.Scan(&v); err != nil {
		return err
	}
	*dst = v.String
	return rows.Err()
}

// Digests reads the whole digest table. The table is keyed by schema and digest; the row with a NULL digest
// collects what no longer fit (performance_schema_digests_size).
func Digests(ctx context.Context, db Querier) (map[string]DigestStats, error) {
	set, err := readSet(ctx, db, "SELECT * FROM "+digestTable)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", digestTable, err)
	}
	return parseDigests(set)
}

const (
	digestTable = "performance_schema.events_statements_summary_by_digest"
	waitTable   = "performance_schema.events_waits_summary_global_by_event_name"
)

func readSet(ctx context.Context, db Querier, q string) (*rowset.Set, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rowset.Read(rows)
}

// parseDigests reads the digest table by column name: MySQL 8 has columns MariaDB lacks (QUERY_SAMPLE_TEXT,
// QUANTILE_95, SUM_CPU_TIME...) and its DIGEST is a SHA-256 of 64 hex digits where MariaDB's is an MD5 of 32;
// both key the map as they are.
func parseDigests(set *rowset.Set) (map[string]DigestStats, error) {
	idx, err := set.Need(digestTable, "SCHEMA_NAME", "DIGEST", "DIGEST_TEXT", "COUNT_STAR", "SUM_TIMER_WAIT",
		"SUM_ROWS_EXAMINED", "SUM_ROWS_SENT", "SUM_NO_INDEX_USED", "SUM_NO_GOOD_INDEX_USED", "SUM_ERRORS")
	if err != nil {
		return nil, err
	}
	out := map[string]DigestStats{}
	for _, r := range set.Rows {
		d := DigestStats{Schema: r[idx[0]].String, Digest: r[idx[1]].String, Text: r[idx[2]].String}
		for i, f := range []*float64{&d.Count, &d.TimerPs, &d.RowsExamined, &d.RowsSent, &d.NoIndexUsed, &d.NoGoodIndexUsed, &d.Errors} {
			v := r[idx[3+i]]
			var ok bool
			if *f, ok = rowset.Float(v); !ok {
				return nil, fmt.Errorf("%s: %s is %q, not a number", digestTable, set.Columns[idx[3+i]], v.String)
			}
		}
		if d.Digest == "" {
			d.Text = "(statements that did not fit in the digest table: raise performance_schema_digests_size)"
		}
		out[d.Schema+"\x00"+d.Digest] = d
	}
	return out, nil
}

// Waits reads the global wait summary, without idle (time connections spent waiting for a client, which
// is no cost of the server's).
func Waits(ctx context.Context, db Querier) (map[string]WaitStats, error) {
	set, err := readSet(ctx, db, "SELECT * FROM "+waitTable+" WHERE COUNT_STAR > 0 AND EVENT_NAME <> 'idle'")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", waitTable, err)
	}
	return parseWaits(set)
}

// parseWaits reads the wait summary by column name. The query leaves out idle and events that never
// happened; so does this, for a table read whole.
func parseWaits(set *rowset.Set) (map[string]WaitStats, error) {
	idx, err := set.Need(waitTable, "EVENT_NAME", "COUNT_STAR", "SUM_TIMER_WAIT")
	if err != nil {
		return nil, err
	}
	out := map[string]WaitStats{}
	for _, r := range set.Rows {
		w := WaitStats{Event: r[idx[0]].String}
		var ok1, ok2 bool
		w.Count, ok1 = rowset.Float(r[idx[1]])
		w.TimerPs, ok2 = rowset.Float(r[idx[2]])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: %s: COUNT_STAR %q, SUM_TIMER_WAIT %q: not numbers", waitTable, w.Event, r[idx[1]].String, r[idx[2]].String)
		}
		if w.Event == "idle" || w.Count == 0 {
			continue
		}
		out[w.Event] = w
	}
	return out, nil
}

// PreparedExecutions is how many prepared statements the server has executed (statement/com/Execute).
// MariaDB's performance_schema gives those no digest: a workload of prepared statements is missing from the
// digest table, and this count says how much.
func PreparedExecutions(ctx context.Context, db Querier) (float64, error) {
	var v string
	err := queryRow(ctx, db, "SELECT COUNT_STAR FROM performance_schema.events_statements_summary_global_by_event_name WHERE EVENT_NAME = 'statement/com/Execute'", &v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read performance_schema.events_statements_summary_global_by_event_name: %w", err)
	}
	var n float64
	fmt.Sscan(v, &n)
	return n, nil
}

// TopDigests are the n statement classes with the most time between two snapshots, as increases. A class
// whose count went down was reset (TRUNCATE, or evicted and back): its end values are its increase.
func TopDigests(before, after map[string]DigestStats, n int) []DigestStats {
	return top(before, after, n)
}

// TopWaits are the n wait events with the most time between two snapshots, as increases.
func TopWaits(before, after map[string]WaitStats, n int) []WaitStats {
	return top(before, after, n)
}

// summaryRow is a row of a performance_schema summary table, which only grows until it is reset.
type summaryRow[T any] interface {
	minus(before T) T
	count() float64
	timerPs() float64
	key() string
}

func (d DigestStats) minus(b DigestStats) DigestStats {
	d.Count -= b.Count
	d.TimerPs -= b.TimerPs
	d.RowsExamined -= b.RowsExamined
	d.RowsSent -= b.RowsSent
	d.NoIndexUsed -= b.NoIndexUsed
	d.NoGoodIndexUsed -= b.NoGoodIndexUsed
	d.Errors -= b.Errors
	return d
}
func (d DigestStats) count() float64   { return d.Count }
func (d DigestStats) timerPs() float64 { return d.TimerPs }
func (d DigestStats) key() string      { return d.Digest }

func (w WaitStats) minus(b WaitStats) WaitStats {
	w.Count -= b.Count
	w.TimerPs -= b.TimerPs
	return w
}
func (w WaitStats) count() float64   { return w.Count }
func (w WaitStats) timerPs() float64 { return w.TimerPs }
func (w WaitStats) key() string      { return w.Event }

// top is the n rows with the most time between two snapshots, as increases; a row whose count
// went down was reset, and its end values are its increase.
func top[T summaryRow[T]](before, after map[string]T, n int) []T {
	var out []T
	for k, a := range after {
		if b, ok := before[k]; ok && a.count() >= b.count() {
			a = a.minus(b)
		}
		if a.count() > 0 {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if ti, tj := out[i].timerPs(), out[j].timerPs(); ti != tj {
			return ti > tj
		}
		return out[i].key() < out[j].key()
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
