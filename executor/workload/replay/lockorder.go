package replay

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// The commit order alone keeps transaction ends, not the order in which two transactions'
// locking statements met inside them. Measured on go-tpc's TPC-C captured from the slow log
// (bench/replay_commit_order.sh): Delivery's SELECT ... FROM new_order ... LIMIT 1 FOR UPDATE
// could take a gap lock before a NewOrder's INSERT INTO new_order that had got there first
// in the capture; the INSERT then waited for Delivery's commit, which waited (commit order)
// for NewOrder's: a wait only the server's lock wait timeout broke, and the end state
// differed every time.
//
// The race is one the start and end times show only by the ends. Delivery's FOR UPDATE on
// district 3 started 43 µs before a NewOrder's INSERT into district 2 and ended 13 µs after
// it: the INSERT had put its row into the gap the FOR UPDATE's next-key lock was about to
// cover (the gap before district 3's first row) before the FOR UPDATE reached it, and so
// never waited. Which of two overlapping statements took a lock first is not in the capture;
// the one that ended first is the best witness of it, and the only one that cannot deadlock
// (see below). So a statement that can take a row lock (a write, a locking read) starts only
// once every such statement of the capture on one of its tables that ended before it ended
// has finished on the target, and an autocommit write (a commit) once those that ended before
// it began. Row locks are a table's (its indexes'), so statements on other tables need no
// order: a foreign key puts its tables into one group, and a statement whose tables its text
// does not tell (a CALL, a view, a table with triggers) is ordered against every table. On
// one table the locking statements run one at a time, in their captured end order, while
// other tables', free reads, COMMITs and the server's flushing of them run side by side; on
// go-tpc's TPC-C that is what reproduced the end state (docs/replay.md, Commit order).
//
// Why it cannot deadlock: an awaited statement ended before the waiter ended (or, for a
// commit, began), so along any chain of quadrant's waits (these, the commit order's, the
// session's own order) the captured time decreases. Nor can a server lock close a cycle with
// them: a statement blocked on the target by a lock of an open transaction T waits for what
// in the capture ended before it; had T's locking statement been before it there, it would
// have waited for T's commit there too, and ended after it.
//
// Within a session statements end in order, so what a statement needs of session b is a
// prefix of b's locking statements: up to the last one on its tables (or on any, for one
// without) that ended before its limit, found by a binary search per table. Each session
// counts the locking statements it has finished; a statement waits until every other
// session's count has reached what it needs.

// span is a locking statement's captured end, on the order's clock, and the limit of what
// it waits for: its end, or for a commit (an autocommit write) its start.
type span struct {
	end, limit int64
	line       int
	tables     []string // "db.table"; nil: any table
	rows       []uint64 // the rows of its one table it locks (keys.go); nil: any of them
}

// lockScan collects, per session (worker), its locking statements' spans during the scan.
type lockScan struct {
	spans [][]span
}

// takesLocks says a statement that is not a free read and not a transaction end can take
// a row lock: transaction control, session settings and USE take none.
func takesLocks(s *traffic.Statement) bool {
	text := strings.ToUpper(sqltext.SkipComments(s.Text))
	first, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	switch strings.TrimRight(first, ";") {
	case "BEGIN", "START", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "USE", "SET":
		return strings.Contains(text, " FOR UPDATE") // SET @x = (SELECT ... FOR UPDATE)
	}
	return true
}

func (l *lockScan) add(w int, s span) {
	for len(l.spans) <= w {
		l.spans = append(l.spans, nil)
	}
	l.spans[w] = append(l.spans[w], s)
}

// lockOrder is the locking statements' order as the sessions keep it while they replay.
type lockOrder struct {
	name     string
	timeout  time.Duration
	logf     func(string, ...any)
	spans    [][]span
	sessions []ends // per session: its locking statements' ends, on all tables, by table, on any

	mu    sync.Mutex
	done  []int // per session: locking statements finished on the target
	moved chan struct{}
	stats *commitOrder // the waits are counted with the commit order's
}

// ends are one session's locking statements' ends, in order of end (a source's rounding may
// leave neighbours out of order by a tick), with their places in the session.
type ends struct {
	all     endList
	any     endList             // those on any table
	byTable map[string]*endList // on the table (group), keyed or not
	wide    map[string]*endList // on the table, not keyed: on any of its rows
	byRow   map[uint64]*endList // keyed, on the row
}

type endList struct {
	ends []int64
	idx  []int
}

// upTo is how many of the session's locking statements it takes to have finished those of
// the list that ended before limit.
func (l *endList) upTo(limit int64) int {
	p := sort.Search(len(l.ends), func(i int) bool { return l.ends[i] >= limit })
	if p == 0 {
		return 0
	}
	return l.idx[p-1] + 1
}

func (l *endList) add(end int64, i int) { l.ends, l.idx = append(l.ends, end), append(l.idx, i) }

func (l *endList) sort() {
	ix := make([]int, len(l.ends))
	for i := range ix {
		ix[i] = i
	}
	slices.SortStableFunc(ix, func(a, b int) int { return cmp.Compare(l.ends[a], l.ends[b]) })
	e, x := make([]int64, len(ix)), make([]int, len(ix))
	for i, j := range ix {
		e[i], x[i] = l.ends[j], l.idx[j]
	}
	l.ends, l.idx = e, x
}

// build readies the order for sessions workers; group names the order group of a table
// (its foreign-key group), or "" for one ordered against every table (relations).
func (l *lockScan) build(name string, sessions int, timeout time.Duration, logf func(string, ...any), stats *commitOrder, group func(string) string) *lockOrder {
	for len(l.spans) < sessions {
		l.spans = append(l.spans, nil)
	}
	lo := &lockOrder{name: name, timeout: timeout, logf: logf, spans: make([][]span, len(l.spans)), sessions: make([]ends, sessions),
		done: make([]int, sessions), moved: make(chan struct{}), stats: stats}
	keyed := keyedTables(l.spans, group)
	for w := range l.spans {
		ss := slices.Clone(l.spans[w]) // its groups are this order's
		lo.spans[w] = ss
		e := &lo.sessions[w]
		e.byTable, e.wide, e.byRow = map[string]*endList{}, map[string]*endList{}, map[uint64]*endList{}
		for i := range ss {
			s := &ss[i]
			if s.rows != nil && !keyed[s.tables[0]] {
				s.rows = nil
			}
			s.tables = groups(s.tables, group)
			e.all.add(s.end, i)
			if s.tables == nil {
				e.any.add(s.end, i)
			}
			for _, t := range s.tables {
				list(e.byTable, t).add(s.end, i)
				if s.rows == nil {
					list(e.wide, t).add(s.end, i)
				}
			}
			for _, r := range s.rows {
				list(e.byRow, r).add(s.end, i)
			}
		}
		e.all.sort()
		e.any.sort()
		for _, m := range []map[string]*endList{e.byTable, e.wide} {
			for _, l := range m {
				l.sort()
			}
		}
		for _, l := range e.byRow {
			l.sort()
		}
	}
	return lo
}

// list is m's list of k, made when there is none.
func list[K comparable](m map[K]*endList, k K) *endList {
	if m[k] == nil {
		m[k] = &endList{}
	}
	return m[k]
}

// keyedTables are the tables whose statements may be ordered per row: each its own order
// group among the tables the capture locks (a foreign key makes rows of one table lock rows
// of another, which no key of the statement tells).
func keyedTables(spans [][]span, group func(string) string) map[string]bool {
	members := map[string]map[string]bool{}
	for _, ss := range spans {
		for _, s := range ss {
			for _, t := range s.tables {
				if g := group(t); g != "" {
					if members[g] == nil {
						members[g] = map[string]bool{}
					}
					members[g][t] = true
				}
			}
		}
	}
	keyed := map[string]bool{}
	for g, m := range members {
		if len(m) == 1 && m[g] {
			keyed[g] = true
		}
	}
	return keyed
}

// groups maps a statement's tables to their order groups, nil (any table) when one of them
// is ordered against every table.
func groups(tables []string, group func(string) string) []string {
	var out []string
	for _, t := range tables {
		g := group(t)
		if g == "" {
			return nil
		}
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// need is how many of session b's locking statements the k-th of session a waits for.
func (lo *lockOrder) need(a, k, b int) int {
	s, e := &lo.spans[a][k], &lo.sessions[b]
	if s.tables == nil {
		return e.all.upTo(s.limit)
	}
	n := e.any.upTo(s.limit)
	if s.rows != nil { // one table, keyed: its unkeyed statements and those on its rows
		if l := e.wide[s.tables[0]]; l != nil {
			n = max(n, l.upTo(s.limit))
		}
		for _, r := range s.rows {
			if l := e.byRow[r]; l != nil {
				n = max(n, l.upTo(s.limit))
			}
		}
		return n
	}
	for _, t := range s.tables {
		if l := e.byTable[t]; l != nil {
			n = max(n, l.upTo(s.limit))
		}
	}
	return n
}

// wait returns once the k-th locking statement of session a may start, or after the timeout
// (logged, counted: the replay goes on); false when stop closes first. p, when not nil, shows
// the watchdog which session it waits for.
func (lo *lockOrder) wait(a, k int, stop <-chan struct{}, sessions []uint64, p *progress) bool {
	if k >= len(lo.spans[a]) {
		return true
	}
	missing := func() int { // the first session whose statements it still waits for, or -1
		for b := range lo.done {
			if b != a && lo.done[b] < lo.need(a, k, b) {
				return b
			}
		}
		return -1
	}
	return lo.stats.await(&lo.stats.byLock, &lo.mu, missing, func() chan struct{} { return lo.moved }, stop, p, func() {
		lo.mu.Lock()
		b, n := missing(), 0
		if b >= 0 {
			n = lo.done[b]
		}
		lo.mu.Unlock()
		if b >= 0 {
			lo.logf("replay %s:%d (captured session %d): waited %s (order_timeout) for the locking statements captured before it; %s:%d of captured session %d has not finished on the target (a lock the replay meets and the capture did not?); it goes on without them",
				lo.name, lo.spans[a][k].line, sessions[a], lo.timeout, lo.name, lo.spans[b][n].line, sessions[b])
		}
	})
}

// finished says session a's next locking statement has run on the target, whatever its
// outcome: one that failed here must not hold the others.
func (lo *lockOrder) finished(a int) {
	lo.mu.Lock()
	lo.done[a]++
	close(lo.moved)
	lo.moved = make(chan struct{})
	lo.mu.Unlock()
}

// String sums the locking statements up for the log.
func (lo *lockOrder) String() string {
	n, keyed := 0, 0
	for _, ss := range lo.spans {
		n += len(ss)
		for _, s := range ss {
			if s.rows != nil {
				keyed++
			}
		}
	}
	return fmt.Sprintf("%d locking statements kept in their captured order (%d of them per row, by primary key)", n, keyed)
}
