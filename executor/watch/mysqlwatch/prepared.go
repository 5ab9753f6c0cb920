package mysqlwatch

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/internal/rowset"
	"github.com/quadrant-bench/quadrant/executor/traffic"
)

// PreparedDigestPrefix starts the digest of a digests.csv row summed from prepared_statements_instances
// rather than read from the digest table: "ps:" and traffic.FingerprintID of the statement's text.
const PreparedDigestPrefix = "ps:"

const preparedTable = "performance_schema.prepared_statements_instances"

// preparedQuery reads only what the aggregation needs; SQL_TEXT is short for the workloads' statements.
const preparedQuery = "SELECT OBJECT_INSTANCE_BEGIN, STATEMENT_ID, OWNER_THREAD_ID, SQL_TEXT, COUNT_EXECUTE, SUM_TIMER_EXECUTE," +
	" SUM_ROWS_EXAMINED, SUM_ROWS_SENT, SUM_NO_INDEX_USED, SUM_NO_GOOD_INDEX_USED, SUM_ERRORS FROM " + preparedTable

// PreparedInstances reads prepared_statements_instances (MariaDB 10.5+, MySQL 5.7+): one entry per
// statement prepared right now, keyed by its instance (address, statement id, owner thread), with
// Text its SQL_TEXT and Count its executions so far. A row is gone once its statement is deallocated
// (its connection closed), which is why a PreparedTracker polls it during the workload.
func PreparedInstances(ctx context.Context, db Querier) (map[string]DigestStats, error) {
	set, err := readSet(ctx, db, preparedQuery)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", preparedTable, err)
	}
	return parsePrepared(set)
}

func parsePrepared(set *rowset.Set) (map[string]DigestStats, error) {
	idx, err := set.Need(preparedTable, "OBJECT_INSTANCE_BEGIN", "STATEMENT_ID", "OWNER_THREAD_ID", "SQL_TEXT", "COUNT_EXECUTE",
		"SUM_TIMER_EXECUTE", "SUM_ROWS_EXAMINED", "SUM_ROWS_SENT", "SUM_NO_INDEX_USED", "SUM_NO_GOOD_INDEX_USED", "SUM_ERRORS")
	if err != nil {
		return nil, err
	}
	out := map[string]DigestStats{}
	for _, r := range set.Rows {
		d := DigestStats{Text: r[idx[3]].String}
		for i, f := range []*float64{&d.Count, &d.TimerPs, &d.RowsExamined, &d.RowsSent, &d.NoIndexUsed, &d.NoGoodIndexUsed, &d.Errors} {
			v := r[idx[4+i]]
			var ok bool
			if *f, ok = rowset.Float(v); !ok {
				return nil, fmt.Errorf("%s: %s is %q, not a number", preparedTable, set.Columns[idx[4+i]], v.String)
			}
		}
		out[r[idx[0]].String+"/"+r[idx[1]].String+"/"+r[idx[2]].String] = d
	}
	return out, nil
}

// PreparedTracker keeps the latest counters of every prepared statement instance seen between a
// baseline and the end, so the executions of statements deallocated before the end still count.
// Executions after an instance's last observation are not seen. Not safe for concurrent use.
type PreparedTracker struct {
	base   map[string]DigestStats // at the baseline: subtracted
	latest map[string]DigestStats
	gone   []DigestStats // increases of instances whose key was reused by a later statement
}

// NewPreparedTracker starts from the instances that exist before the workload.
func NewPreparedTracker(base map[string]DigestStats) *PreparedTracker {
	return &PreparedTracker{base: base, latest: map[string]DigestStats{}}
}

// Observe records a poll. An instance whose text changed or whose count went down is a new statement
// at a reused address: the old one's last increase is kept, and the new one counts from zero.
func (t *PreparedTracker) Observe(now map[string]DigestStats) {
	for k, d := range now {
		if old, ok := t.latest[k]; ok && (old.Text != d.Text || d.Count < old.Count) {
			t.gone = append(t.gone, t.increase(k, old))
			delete(t.base, k)
		} else if b, ok := t.base[k]; ok && (b.Text != d.Text || d.Count < b.Count) {
			delete(t.base, k)
		}
		t.latest[k] = d
	}
}

func (t *PreparedTracker) increase(k string, d DigestStats) DigestStats {
	if b, ok := t.base[k]; ok {
		d = d.minus(b)
	}
	return d
}

// Digests sums the increases per statement class (traffic.Fingerprint of the text), as digest-table
// entries keyed like Digests' (empty schema, digest PreparedDigestPrefix + FingerprintID), and returns
// how many executions they hold.
func (t *PreparedTracker) Digests() (map[string]DigestStats, float64) {
	all := append([]DigestStats(nil), t.gone...)
	keys := make([]string, 0, len(t.latest))
	for k := range t.latest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		all = append(all, t.increase(k, t.latest[k]))
	}
	out := map[string]DigestStats{}
	var n float64
	for _, d := range all {
		if d.Count <= 0 {
			continue
		}
		fp := traffic.Fingerprint(d.Text)
		digest := PreparedDigestPrefix + traffic.FingerprintID(fp)
		sum, ok := out["\x00"+digest]
		if !ok {
			sum = DigestStats{Digest: digest, Text: fp}
		}
		sum.Count += d.Count
		sum.TimerPs += d.TimerPs
		sum.RowsExamined += d.RowsExamined
		sum.RowsSent += d.RowsSent
		sum.NoIndexUsed += d.NoIndexUsed
		sum.NoGoodIndexUsed += d.NoGoodIndexUsed
		sum.Errors += d.Errors
		out["\x00"+digest] = sum
		n += d.Count
	}
	return out, n
}

// PreparedPoll polls prepared_statements_instances into a PreparedTracker until stopped.
type PreparedPoll struct {
	cancel context.CancelFunc
	done   chan struct{}
	db     Querier
	t      *PreparedTracker
	polls  int
	err    error // the first failed poll's
}

// StartPreparedPoll reads the baseline now and then polls every interval until Stop.
func StartPreparedPoll(ctx context.Context, db Querier, every time.Duration) (*PreparedPoll, error) {
	set, err := readSet(ctx, db, "SELECT * FROM performance_schema.setup_consumers")
	if err != nil {
		return nil, fmt.Errorf("read performance_schema.setup_consumers: %w", err)
	}
	enabled, err := set.Pairs("performance_schema.setup_consumers", "NAME", "ENABLED")
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(enabled["events_statements_current"], "YES") {
		return nil, errors.New("the events_statements_current consumer is disabled, and without it MariaDB counts no executions in prepared_statements_instances: UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'events_statements_current' (or performance_schema_consumer_events_statements_current=ON in my.cnf)")
	}
	base, err := PreparedInstances(ctx, db)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &PreparedPoll{cancel: cancel, done: make(chan struct{}), db: db, t: NewPreparedTracker(base)}
	go p.loop(ctx, every)
	return p, nil
}

func (p *PreparedPoll) loop(ctx context.Context, every time.Duration) {
	defer close(p.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			p.poll(ctx)
		}
	}
}

func (p *PreparedPoll) poll(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // a hung server must not hold up Stop
	defer cancel()
	now, err := PreparedInstances(ctx, p.db)
	if err != nil {
		if p.err == nil && ctx.Err() == nil {
			p.err = err
		}
		return
	}
	p.t.Observe(now)
	p.polls++
}

// Stop ends the polling, polls once more with ctx (statements still prepared at the end) and returns
// the per-class increases, the executions they hold, the number of polls, and the first poll error.
func (p *PreparedPoll) Stop(ctx context.Context) (map[string]DigestStats, float64, int, error) {
	p.cancel()
	<-p.done
	p.poll(ctx)
	d, n := p.t.Digests()
	return d, n, p.polls, p.err
}
