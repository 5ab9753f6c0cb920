package replay

import (
	"cmp"
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// sessionReplay replays captured traffic: one connection per captured session, each
// session's statements in captured order, the sessions concurrently, at the captured timing
// or as fast as each can. The file is read once, streaming, to know the sessions, the first
// start and the fingerprints with the most time, and to spill each session's statements
// where that session alone reads them back (spill): sessions wait on each other only
// through the server, as they did when captured.
type sessionReplay struct {
	w   *spec.Workload
	env workload.Env
}

// connectTimeout bounds a session's connecting when its first statement comes; connectAhead
// is how long before that statement is due the session connects.
const (
	connectTimeout = 30 * time.Second
	connectAhead   = 50 * time.Millisecond
)

// longExcess is how much longer than captured a replayed statement runs before it counts as
// a long statement, time its session spent blocked (a lock wait that ended in the lock, a
// server slower than the source).
const longExcess = 100 * time.Millisecond

// Lock waits that ended in an error: a lock wait timeout, a deadlock.
const (
	errLockWaitTimeout = 1205
	errDeadlock        = 1213
)

func openTraffic(r *Replay, env workload.Env) (*traffic.File, error) {
	return traffic.Open(r.Path, traffic.Options{Format: r.Format, SkipMalformed: r.OnMalformed == "skip", Open: env.OpenFile,
		OnSkip: func(e *traffic.LineError) { env.Logf("replay: skipped malformed record: %v", e) }})
}

// scanned is what the pass over the file learned.
type scanned struct {
	sessions []uint64       // kept sessions in order of first statement
	index    map[uint64]int // session id -> worker
	first    time.Time      // earliest captured start of a kept statement
	top      []int          // the scan's fingerprint number -> index into names
	names    []string       // fingerprint ids, then "other" when there are more
	texts    []string       // the fingerprints of names
	captured []int64        // captured statements per name
	replay   *Fidelity      // the fidelity summary, filled as the replay goes
	timed    bool
	all      int        // captured sessions in the file, every shard's
	spans    [][2]int64 // captured [first start, last end] per worker, µs (timed sources)
	order    *orderScan // order: commit's positions and commits; nil without
	state    *traffic.State
}

type fpScan struct {
	text  string
	num   int   // the scan's number for it, in the spill
	count int64 // in the whole file: every shard ranks the fingerprints alike
	dur   time.Duration
	own   int64 // of this shard's sessions
}

// owns says whether shard sh replays the captured session whose first statement is the
// j-th session's (0-based) in the file: j mod N = K, so each session is one shard's whole,
// and the shards' counts of sessions differ by one at most.
func owns(sh shard.Shard, j int) bool { return j%max(sh.Count, 1) == sh.Index }

// scan reads the file once and spills the statements this replay runs, per session. Under
// --shard K/N this shard replays the sessions it owns (owns): the captured figures it
// reports (sessions, statements, skipped, per fingerprint) are those of its own sessions, so
// that the shards' figures add up to the file's; what every shard must agree on (the top
// fingerprints, the first captured start the timing counts from) comes from the whole file.
func scan(r *Replay, env workload.Env, sp *spill) (*scanned, error) {
	f, err := openTraffic(r, env)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := &scanned{index: map[uint64]int{}, replay: &Fidelity{Skipped: map[string]int64{}}, timed: f.Timed, state: f.State}
	if r.Order == "commit" {
		sc.order = newOrderScan(f)
		if env.Server != nil {
			sc.order.keys = newPrimaryKeys(env.Server, env.Logf)
			defer sc.order.keys.close()
		}
	}
	rank := map[uint64]int{} // session id -> its rank by first statement in the file
	fps := map[string]*fpScan{}
	var order []*fpScan
	flt := newFilter(r)
	var buf []byte
	for {
		s, err := f.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		var start, end int64
		if sc.order != nil {
			start, end = sc.order.position(s)
		}
		j, seen := rank[s.Session]
		if !seen {
			j = len(rank)
			rank[s.Session] = j
		}
		mine := owns(env.Shard, j)
		if mine && !seen {
			sc.replay.SessionsCaptured++
		}
		if mine {
			sc.replay.StatementsCaptured++
		}
		fp := traffic.Fingerprint(s.Text)
		if why := flt.skip(s, flt.id(fp)); why != "" {
			if mine {
				sc.replay.Skipped[why]++
			}
			continue
		}
		if r.Timing == "original" && s.Start.IsZero() {
			return nil, fmt.Errorf("%s:%d: timing: original, but the %s has no start time for this statement; use timing: none", f.Name, s.Line, f.Format)
		}
		if !s.Start.IsZero() && (sc.first.IsZero() || s.Start.Before(sc.first)) {
			sc.first = s.Start
		}
		x := fps[fp]
		if x == nil {
			x = &fpScan{text: fp, num: len(order)}
			fps[fp] = x
			order = append(order, x)
		}
		x.count++
		x.dur += max(s.Duration, 0)
		if !mine {
			continue
		}
		x.own++
		w, ok := sc.index[s.Session]
		if !ok {
			w = len(sc.sessions)
			sc.index[s.Session] = w
			sc.sessions = append(sc.sessions, s.Session)
		}
		rec := record{fp: x.num, duration: s.Duration, rows: s.RowsSent, err: s.Error, line: s.Line, schema: s.Schema, text: s.Text}
		if sc.order != nil {
			rec.order, rec.at, rec.lock = sc.order.classify(w, s, fp, start, end)
		}
		if !s.Start.IsZero() {
			rec.startUs = s.Start.UnixMicro()
			sc.span(w, rec.startUs, rec.startUs+max(s.Duration, 0).Microseconds())
		}
		buf = rec.append(buf[:0])
		if err := sp.add(w, buf); err != nil {
			return nil, err
		}
	}
	if err := sp.finish(); err != nil {
		return nil, err
	}
	sc.all = len(rank)
	sc.rank(order, r.Top)
	return sc, nil
}

// rank names the fingerprints: the top N by captured time (count when the source has none),
// then one "other" for the rest.
func (sc *scanned) rank(order []*fpScan, top int) {
	ranked := slices.Clone(order)
	slices.SortFunc(ranked, func(a, b *fpScan) int {
		return cmp.Or(cmp.Compare(b.dur, a.dur), cmp.Compare(b.count, a.count), strings.Compare(a.text, b.text))
	})
	sc.top = make([]int, len(order))
	for i, x := range ranked {
		if i < top {
			sc.top[x.num] = i
			sc.names = append(sc.names, traffic.FingerprintID(x.text))
			sc.texts = append(sc.texts, x.text)
			sc.captured = append(sc.captured, x.own)
			continue
		}
		if i == top {
			sc.names, sc.texts, sc.captured = append(sc.names, otherFingerprint), append(sc.texts, ""), append(sc.captured, 0)
		}
		sc.top[x.num] = top
		sc.captured[top] += x.own
	}
}

// shared is what the workers of one replay share.
type shared struct {
	name      string
	timing    bool
	speed     float64
	first     time.Time // the captured start offsets count from
	top       []int     // the scan's fingerprint number -> index into names
	baseOnce  sync.Once
	base      time.Time
	replayed  atomic.Int64
	mismatch  atomic.Int64
	sessionOK []atomic.Bool
	sessions  []uint64 // captured session ids by worker
	failures  *failures
	order     *commitOrder // order: commit; nil without
}

func (s *shared) start() time.Time {
	s.baseOnce.Do(func() { s.base = time.Now() })
	return s.base
}

// sessionWorker replays one captured session on its own connection, reading the session's
// statements from the spill: no other session's pace decides when it gets its next one.
type sessionWorker struct {
	sh       *shared
	id       int
	rd       *spillReader
	cur      record
	nth      int64    // cur is the session's nth statement (from 1)
	locks    int      // the session's locking statements run so far (order: commit, lockorder.go)
	progress progress // for the stall watchdog (order: commit, stall.go)
	fp       int      // cur's index into names
	conn     *engine.Conn
	timer    *time.Timer // a long wait, until timerSlack before due (waitUntil)
	final    finalWait   // the rest of it
	abort    error
	// lost is a connect that found no server (Lost): the statement's error, handed once to
	// the loop, which reconnects or stops per on_error.reconnect.
	lost   error
	schema string
	dsnDB  string // the default database of a new connection
	dest   []driver.Value
	errs   []map[int]int64 // per fingerprint, replayed
	capErr []map[int]int64 // per fingerprint, as captured (where the capture knows)
	rows   []int64
	mismat []int64
	// What the session's statements met, against the capture: errors where the capture had
	// none or another, and the time it spent blocked.
	unlike, capturedErrs int64
	blocked              blocked
}

// blocked is the time a session spent in statements that waited: on locks (they ended in a
// lock wait timeout or a deadlock) or longer than captured by longExcess or more.
type blocked struct {
	lockWaits, long    int64
	lockTime, longTime time.Duration
	// worst is the statement that blocked the session longest, for the log.
	worst     time.Duration
	worstLine int
	worstCode int
}

func (b *blocked) add(d time.Duration, line, code int) {
	if d > b.worst {
		b.worst, b.worstLine, b.worstCode = d, line, code
	}
}

// Next takes the session's next statement and says when it is due. The session connects
// when its first statement is known, ahead of its time, and disconnects after its last: the
// replay holds as many connections as sessions overlap, as the server did.
func (w *sessionWorker) Next(stop <-chan struct{}) (time.Time, bool) {
	ok, err := w.rd.next(&w.cur)
	if err != nil {
		w.abort = fmt.Errorf("captured session %d: %w", w.sh.sessions[w.id], err)
		return time.Time{}, true
	}
	if !ok {
		_ = w.conn.Close()
		w.final.close()
		w.progress.set(phaseDone, 0, 0)
		return time.Time{}, false
	}
	w.nth++
	w.fp = w.sh.top[w.cur.fp]
	var due time.Time
	if base := w.sh.start(); w.sh.timing && w.cur.startUs != 0 {
		offset := time.UnixMicro(w.cur.startUs).Sub(w.sh.first)
		due = base.Add(time.Duration(float64(offset) / w.sh.speed))
	}
	if !w.conn.Connected() {
		// Connect shortly before the first statement is due, as the client did.
		if d := time.Until(due.Add(-connectAhead)); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-stop:
				t.Stop()
				return time.Time{}, false
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		err := w.conn.Reconnect(ctx)
		cancel()
		if err != nil {
			err = fmt.Errorf("%s:%d: connecting for captured session %d: %w", w.sh.name, w.cur.line, w.sh.sessions[w.id], err)
			if engine.Lost(engine.Code(err)) {
				// No server answered (a restart, a failover): the loop reconnects with
				// on_error.reconnect, the statement lost, else the replay stops.
				w.lost = err
				return due, true
			}
			// A session the server refuses (access denied, too many connections) cannot be
			// replayed: a replay without it is not the captured traffic.
			w.abort = err
			return due, true
		}
	}
	if !due.IsZero() && !w.waitUntil(due, stop) {
		return time.Time{}, false
	}
	if o := w.sh.order; o != nil && w.cur.order != orderFree {
		w.progress.set(phaseWaiting, 0, w.cur.line)
		defer w.progress.set(phaseFree, 0, 0)
		if !(w.cur.lock && w.cur.order == orderWaits) && !o.wait(w.cur.at, stop, w.cur.line, w.sh.sessions[w.id], &w.progress) {
			return time.Time{}, false
		}
		if w.cur.lock && !o.locks.wait(w.id, w.locks, stop, w.sh.sessions, &w.progress) {
			return time.Time{}, false
		}
	}
	return due, true
}

// timerSlack is how long before a statement is due a session stops sleeping on a Go timer
// and sleeps the rest on its finalWait. Go's timers wake a millisecond or two late (the
// runtime's poller sleeps in whole milliseconds: measured 1.1 ms late for a 20 µs timer, 0.9
// ms for 200 µs), and a captured session's statements mostly follow each other by
// microseconds: left to the timer, every statement of a session on schedule started a
// millisecond or more late, inside its transactions, and the other sessions waited that much
// longer on its locks (a 3 s TPC-C-like capture took 5 s to replay). The final wait used to
// yield (runtime.Gosched) in a loop until due, precise but spinning: on a 2-core host a
// 5-session replay of 446,695 statements used three times the client CPU per statement of
// timing: none and fell 30 s behind, the spinning taking the CPU the server needed.
// finalWait sleeps instead, as precisely (bench/README.md, replaybench -mode timing).
const timerSlack = 2 * time.Millisecond

// waitUntil returns at due, or false when stop closes first: a long wait sleeps on a Go
// timer until timerSlack before due, the rest (all of a short one) on the session's
// finalWait.
func (w *sessionWorker) waitUntil(due time.Time, stop <-chan struct{}) bool {
	if d := time.Until(due); d > w.final.longest() {
		if w.timer == nil {
			w.timer = time.NewTimer(d - timerSlack)
		} else {
			w.timer.Reset(d - timerSlack)
		}
		select {
		case <-w.timer.C:
		case <-stop:
			return false
		}
	}
	select {
	case <-stop:
		return false
	default:
	}
	return w.final.until(due, stop)
}

// Event runs the statement Next took, in the captured default database. A statement that
// fails is counted, against what the capture says of it, and the session goes on: the loop
// ignores every server error of a replay (tolerated), so only a lost connection or
// on_error.max_errors stops it.
func (w *sessionWorker) Event(c *engine.Conn) (int, error) {
	if w.abort != nil {
		return 0, &engine.AbortError{Reason: w.abort.Error(), Err: w.abort}
	}
	it, fp := &w.cur, w.fp
	if o := w.sh.order; o != nil && it.order > 0 {
		defer o.done(int(it.order - 1)) // whatever its outcome here, so no session waits on it for ever
	}
	if o := w.sh.order; o != nil && it.lock {
		w.locks++
		defer o.locks.finished(w.id) // likewise
	}
	if err := w.lost; err != nil {
		w.lost = nil
		w.failed(it, fp, engine.Code(err), 0, err)
		return fp, err
	}
	db, isUse := traffic.UseTarget(it.text)
	if it.schema != "" && it.schema != w.schema && !isUse {
		if _, err := c.ExecText("USE "+quoteIdent(it.schema), false, nil); err != nil {
			w.errs[fp][engine.Code(err)]++
			w.gone(err)
			return fp, fmt.Errorf("%s:%d: USE %s (the captured database): %w", w.sh.name, it.line, it.schema, err)
		}
		c.T = engine.Tally{} // the session's state, not a replayed statement
		w.schema = it.schema
	}
	rows := engine.ReturnsRows(it.text) || startsWithWord(it.text, "EXECUTE")
	var n int64
	var err error
	ordered := w.sh.order != nil
	if ordered {
		w.progress.set(phaseRunning, it.duration, it.line)
	}
	t0 := time.Now()
	w.dest, n, err = c.QueryText(it.text, rows, w.dest)
	took := time.Since(t0)
	if ordered {
		w.progress.set(phaseFree, 0, 0)
	}
	w.sh.replayed.Add(1)
	w.sh.sessionOK[w.id].Store(true)
	if err != nil && c.Killed() {
		return fp, err // quadrant ended it at the stop: neither a replayed error nor unlike the capture
	}
	if err != nil {
		w.failed(it, fp, engine.Code(err), took, err)
		w.gone(err)
		return fp, fmt.Errorf("%s:%d: %w", w.sh.name, it.line, err)
	}
	w.compare(it, fp, 0, took)
	if isUse {
		w.schema = db
	}
	w.rows[fp] += n
	if rows && it.rows >= 0 && n != it.rows {
		w.mismat[fp]++
		w.sh.mismatch.Add(1)
	}
	return fp, nil
}

// failed counts a statement that failed with code: by fingerprint, against the capture, and
// logged when unlike it.
func (w *sessionWorker) failed(it *record, fp, code int, took time.Duration, err error) {
	w.errs[fp][code]++
	w.compare(it, fp, code, took)
	if code != max(it.err, 0) {
		w.sh.failures.note(it, w.sh.sessions[w.id], w.nth, code, err.Error())
	}
}

// gone notes that err may have ended the connection (a lost server, a killed connection,
// a shutdown): a reconnect, if the loop makes one, starts in the DSN's database, so the
// next statement's captured database is sent again. Nothing else of the session's state
// comes back (variables, temporary tables, an open transaction, prepared statements).
func (w *sessionWorker) gone(err error) {
	if engine.Broken(err) || !tolerated(engine.Code(err)) {
		w.schema = w.dsnDB
	}
}

// compare counts how a replayed statement's outcome differs from the captured one: its
// error (an unknown captured outcome counts as success) and how long it was blocked.
func (w *sessionWorker) compare(it *record, fp, code int, took time.Duration) {
	if it.err > 0 {
		w.capErr[fp][it.err]++
		w.capturedErrs++
	}
	if code != max(it.err, 0) {
		w.unlike++
	}
	b := &w.blocked
	switch excess := took - max(it.duration, 0); {
	case code == errLockWaitTimeout || code == errDeadlock:
		b.lockWaits++
		b.lockTime += took
		b.add(took, it.line, code)
	case excess >= longExcess:
		b.long++
		b.longTime += excess
		b.add(excess, it.line, code)
	}
}

// tolerated says a replay's loop counts an error and goes on, not retrying the statement:
// every server error (1000-1999, and MySQL's and MariaDB's newer 3000-4999) but those that
// say the connection is gone. A captured application met its errors and went on (a
// duplicate key after a transaction that rolled back in the capture but not here, a
// deadlock), so a replay that stopped at one would stop where the capture did not; a lost
// connection ends the session's state, so it stops the replay unless on_error.reconnect
// names it.
func tolerated(code int) bool {
	switch code {
	case 1053, // ER_SERVER_SHUTDOWN
		1152,                   // ER_ABORTING_CONNECTION
		1158, 1159, 1160, 1161, // ER_NET_READ_ERROR, ER_NET_READ_INTERRUPTED, ER_NET_ERROR_ON_WRITE, ER_NET_WRITE_INTERRUPTED
		1927, // ER_CONNECTION_KILLED (MariaDB)
		4031: // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8)
		return false
	}
	return code >= 1000 && code <= 1999 || code >= 3000 && code <= 4999
}

func startsWithWord(sql, word string) bool {
	s := strings.TrimSpace(sqltext.SkipComments(sql))
	return len(s) >= len(word) && strings.EqualFold(s[:len(word)], word) && (len(s) == len(word) || s[len(word)] == ' ' || s[len(word)] == '\t' || s[len(word)] == '\n')
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func (r *sessionReplay) Prepare(context.Context) error { return workload.ErrNoAction }
func (r *sessionReplay) Cleanup(context.Context) error { return workload.ErrNoAction }

func (r *sessionReplay) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	rp := Plan(r.w)
	sp, err := newSpill()
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer sp.Close()
	t0 := time.Now()
	sc, err := scan(rp, r.env, sp)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	read := time.Since(t0)
	if len(sc.sessions) == 0 && r.env.Shard.Sharded() && sc.all > 0 {
		return nil, fmt.Errorf("replay: %s: shard %s has no captured session to replay: the file has %d sessions (after filters, fewer), and sessions are never split; use at most %d shards", rp.File, r.env.Shard, sc.all, sc.all)
	}
	if len(sc.sessions) == 0 {
		return nil, fmt.Errorf("replay: %s: no statement to replay (%d captured, skipped by filter: %v)", rp.File, sc.replay.StatementsCaptured, sc.replay.Skipped)
	}
	if r.env.Shard.Sharded() {
		r.env.Logf("replay %s: shard %s replays %d of the %d captured sessions (session j by shard j mod %d)", rp.File, r.env.Shard, sc.replay.SessionsCaptured, sc.all, r.env.Shard.Count)
	}
	r.env.Logf("replay %s: %d sessions, %d statements captured, %d fingerprints (read in %.1fs)", rp.File, sc.replay.SessionsCaptured, sc.replay.StatementsCaptured, len(sc.top), read.Seconds())
	if err := checkStart(ctx, rp, r.env, sc.state); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if err := checkConnections(ctx, r.env.Server, rp.File, len(sc.sessions), sc.connectionsNeeded(rp.Timing == "original")); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	sh := &shared{name: rp.Path, timing: rp.Timing == "original", speed: rp.Speed, first: sc.first, top: sc.top,
		sessionOK: make([]atomic.Bool, len(sc.sessions)), sessions: sc.sessions, failures: newFailures(rp.File, r.env.Logf)}
	if sc.order != nil {
		group := tableGroups(ctx, r.env.Server, sc.order.locks.schemas(), r.env.Logf)
		sh.order = sc.order.build(rp.Path, len(sc.sessions), rp.OrderTimeout, r.env.Logf, group)
	}
	workers := make([]*sessionWorker, len(sc.sessions))
	for i := range workers {
		w := &sessionWorker{sh: sh, id: i, rd: sp.reader(i), errs: make([]map[int]int64, len(sc.names)), capErr: make([]map[int]int64, len(sc.names)),
			rows: make([]int64, len(sc.names)), mismat: make([]int64, len(sc.names))}
		for j := range w.errs {
			w.errs[j], w.capErr[j] = map[int]int64{}, map[int]int64{}
		}
		workers[i] = w
	}
	lc := workload.Loop(r.w, onInterval)
	lc.Threads, lc.Rollback, lc.Scheduled, lc.Names, lc.Rate = len(sc.sessions), false, true, sc.names, 0
	lc.Tolerate = tolerated
	// Under --shard the sessions are already this shard's (scan); the start barrier is all
	// the split the loop needs.
	lc.Ready = r.env.Ready
	lc.Certifies = r.env.Certifies            // a Galera node's deadlocks are its certification failures
	lc.Events = r.env.Shard.Events(lc.Events) // a limit of statements, split as every kind's events are
	dc := engine.DialConfig(r.env.Server, false, r.env.Timeout(), lc.Threads)
	lc.Setup = func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
		c, err := engine.DialLater(dc, false)
		if err != nil {
			return nil, nil, fmt.Errorf("replay connection for captured session %d: %w", sc.sessions[i], err)
		}
		workers[i].schema, workers[i].dsnDB, workers[i].conn = dc.DBName, dc.DBName, c
		workers[i].progress.id = c.ID
		// A P per session, as the loop gives up to 64 workers (engine.Run raised GOMAXPROCS
		// before Setup): the session may sleep holding it (finalWait).
		workers[i].final.raw = runtime.GOMAXPROCS(0) > lc.Threads
		return workers[i], c, nil
	}
	unwatch := watch(ctx, sh, workers, r.env, rp.File)
	tot, err := engine.Run(ctx, lc)
	unwatch()
	for _, w := range workers {
		w.final.close() // a session the stop ended before its last statement
	}
	if tot != nil {
		// The captured durations, read after the replay so as not to compete with it.
		captured, cerr := capturedLatency(sp, sc)
		if cerr != nil {
			r.env.Logf("replay %s: captured durations not read: %v", rp.File, cerr)
		}
		fid := summarize(sc, sh, workers, captured)
		tot.Summary = fid
		fid.EndState, fid.EndDiffers = endState(ctx, rp, r.env, sc.state)
		if o := sh.order; o != nil {
			fid.OrderWaits, fid.OrderWaitTime, fid.OrderTimeouts = o.waits.Load(), time.Duration(o.waited.Load()), o.timeouts.Load()
			r.env.Logf("replay %s: %s", rp.File, o)
		}
		lag := ""
		if tot.Lag != nil && tot.Lag.Count() > 0 {
			lag = fmt.Sprintf(", schedule lag p50 %.2fms p99 %.2fms", measure.Ms(tot.Lag.Percentile(50)), measure.Ms(tot.Lag.Percentile(99)))
		}
		r.env.Logf("replay %s: %d of %d sessions and %d of %d statements replayed, skipped %v, %d errors (%d unlike the capture, which had %d), %d rows-sent mismatches%s",
			rp.File, fid.SessionsReplayed, fid.SessionsCaptured, fid.StatementsReplayed, fid.StatementsCaptured, fid.Skipped, tot.Errors, fid.ErrorsUnlikeCapture, fid.ErrorsCaptured, fid.RowsMismatches, lag)
		sh.failures.summary()
		logBlocked(r.env, rp.File, sh, workers)
		tot.Rows = tableRows(tot, fid)
	}
	return tot, err
}

// logBlocked names the sessions that spent the most time blocked, and on what.
func logBlocked(env workload.Env, file string, sh *shared, workers []*sessionWorker) {
	ws := slices.Clone(workers)
	total := func(w *sessionWorker) time.Duration { return w.blocked.lockTime + w.blocked.longTime }
	slices.SortFunc(ws, func(a, b *sessionWorker) int { return cmp.Compare(total(b), total(a)) })
	for _, w := range ws[:min(len(ws), 5)] {
		b := &w.blocked
		if total(w) == 0 {
			break
		}
		why := "longer than captured"
		if b.worstCode != 0 {
			why = fmt.Sprintf("error %d", b.worstCode)
		}
		env.Logf("replay %s: captured session %d blocked %.3fs: %d lock waits (1205/1213) %.3fs, %d long statements %.3fs over the capture; longest %.3fs at line %d (%s)",
			file, sh.sessions[w.id], total(w).Seconds(), b.lockWaits, b.lockTime.Seconds(), b.long, b.longTime.Seconds(), b.worst.Seconds(), b.worstLine, why)
	}
}

// capturedLatency reads the spill's captured durations per fingerprint.
func capturedLatency(sp *spill, sc *scanned) ([]*measure.Histogram, error) {
	captured := make([]*measure.Histogram, len(sc.names))
	for i := range captured {
		captured[i] = measure.NewHistogram()
	}
	rd := sp.all()
	var rec record
	for {
		ok, err := rd.next(&rec)
		if err != nil || !ok {
			return captured, err
		}
		if rec.duration >= 0 {
			captured[sc.top[rec.fp]].Record(rec.duration)
		}
	}
}

// summarize merges the workers' per-fingerprint figures into the fidelity summary.
func summarize(sc *scanned, sh *shared, workers []*sessionWorker, captured []*measure.Histogram) *Fidelity {
	rp := sc.replay
	rp.StatementsReplayed = sh.replayed.Load()
	rp.RowsMismatches = sh.mismatch.Load()
	for i := range sh.sessionOK {
		if sh.sessionOK[i].Load() {
			rp.SessionsReplayed++
		}
	}
	for _, w := range workers {
		b := &w.blocked
		rp.ErrorsCaptured += w.capturedErrs
		rp.ErrorsUnlikeCapture += w.unlike
		rp.LockWaits += b.lockWaits
		rp.LockWaitTime += b.lockTime
		rp.LongStatements += b.long
		rp.LongTime += b.longTime
		if b.lockWaits+b.long > 0 {
			rp.SessionsBlocked++
		}
		rp.BlockedMost = max(rp.BlockedMost, b.lockTime+b.longTime)
	}
	for i, name := range sc.names {
		fp := Fingerprint{ID: name, Text: sc.texts[i], Captured: sc.captured[i]}
		if captured[i].Count() > 0 {
			fp.CapturedLatency = captured[i]
		}
		for _, w := range workers {
			for code, n := range w.errs[i] {
				if fp.ErrorsByCode == nil {
					fp.ErrorsByCode = map[int]int64{}
				}
				fp.ErrorsByCode[code] += n
			}
			for code, n := range w.capErr[i] {
				if fp.CapturedErrorsByCode == nil {
					fp.CapturedErrorsByCode = map[int]int64{}
				}
				fp.CapturedErrorsByCode[code] += n
			}
			fp.RowsSent += w.rows[i]
			fp.RowsMismatches += w.mismat[i]
		}
		rp.Fingerprints = append(rp.Fingerprints, fp)
	}
	return rp
}

// watch runs the stall watchdog (stall.go) over the sessions of an ordered replay until the
// function it returns is called.
func watch(ctx context.Context, sh *shared, workers []*sessionWorker, env workload.Env, file string) func() {
	o := sh.order
	if o == nil {
		return func() {}
	}
	ps := make([]*progress, len(workers))
	for i, w := range workers {
		ps[i] = &w.progress
	}
	locked, closeDB := lockWaitsOf(ctx, env.Server)
	stop, stalls := make(chan struct{}), make(chan int64, 1)
	go func() { stalls <- watchStalls(ps, o.released, locked, stop, env.Logf) }()
	return func() {
		close(stop)
		if n := <-stalls; n > 0 {
			env.Logf("replay %s: %d stalls of the captured order against the server's locks broken", file, n)
		}
		closeDB()
	}
}
