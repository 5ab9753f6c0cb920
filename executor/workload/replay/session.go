package replay

import (
	"cmp"
	"context"
	"database/sql/driver"
	"fmt"
	"io"
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
)

// sessionReplay replays captured traffic: one connection per captured session, each
// session's statements in captured order, the sessions concurrently, at the captured timing
// or as fast as each can. The file is read twice, streaming: once to know the sessions, the
// first start and the fingerprints with the most time, then to hand each session its statements.
type sessionReplay struct {
	w   *spec.Workload
	env workload.Env
}

// queueLen bounds the statements read ahead per session: memory stays bounded by sessions
// times this, whatever the file's size.
const queueLen = 256

// connectTimeout bounds a session's connecting when its first statement comes; connectAhead
// is how long before that statement is due the session connects.
const (
	connectTimeout = 30 * time.Second
	connectAhead   = 50 * time.Millisecond
)

func openTraffic(r *spec.Replay, env workload.Env) (*traffic.File, error) {
	return traffic.Open(r.Path, traffic.Options{Format: r.Format, SkipMalformed: r.OnMalformed == "skip",
		OnSkip: func(e *traffic.LineError) { env.Logf("replay: skipped malformed record: %v", e) }})
}

// scanned is what the first pass over the file learned.
type scanned struct {
	sessions []uint64        // kept sessions in order of first statement
	counts   []int64         // kept statements per session
	index    map[uint64]int  // session id -> worker
	first    time.Time       // earliest captured start of a kept statement
	fps      map[string]int  // fingerprint -> index into names (top N, then other)
	names    []string        // fingerprint ids, then "other" when there are more
	texts    []string        // the fingerprints of names
	captured []int64         // captured statements per name
	replay   *measure.Replay // the fidelity summary, filled as the replay goes
	timed    bool
	all      int // captured sessions in the file, every shard's
}

type fpScan struct {
	text  string
	count int64 // in the whole file: every shard ranks the fingerprints alike
	dur   time.Duration
	own   int64 // of this shard's sessions
}

// owns says whether shard sh replays the captured session whose first statement is the
// j-th session's (0-based) in the file: j mod N = K, so each session is one shard's whole,
// and the shards' counts of sessions differ by one at most.
func owns(sh shard.Shard, j int) bool { return j%max(sh.Count, 1) == sh.Index }

// scan reads the file once. Under --shard K/N this shard replays the sessions it owns
// (owns): the captured figures it reports (sessions, statements, skipped, per fingerprint)
// are those of its own sessions, so that the shards' figures add up to the file's; what
// every shard must agree on (the top fingerprints, the first captured start the timing
// counts from) comes from the whole file.
func scan(r *spec.Replay, env workload.Env) (*scanned, error) {
	f, err := openTraffic(r, env)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := &scanned{index: map[uint64]int{}, replay: &measure.Replay{Skipped: map[string]int64{}}, timed: f.Timed}
	rank := map[uint64]int{} // session id -> its rank by first statement in the file
	fps := map[string]*fpScan{}
	flt := newFilter(r)
	for {
		s, err := f.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
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
			x = &fpScan{text: fp}
			fps[fp] = x
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
			sc.counts = append(sc.counts, 0)
		}
		sc.counts[w]++
	}
	sc.all = len(rank)
	// The top N by captured time (count when the source has none), then one "other".
	order := make([]*fpScan, 0, len(fps))
	for _, x := range fps {
		order = append(order, x)
	}
	slices.SortFunc(order, func(a, b *fpScan) int {
		return cmp.Or(cmp.Compare(b.dur, a.dur), cmp.Compare(b.count, a.count), strings.Compare(a.text, b.text))
	})
	sc.fps = map[string]int{}
	for i, x := range order {
		if i < r.Top {
			sc.fps[x.text] = i
			sc.names = append(sc.names, traffic.FingerprintID(x.text))
			sc.texts = append(sc.texts, x.text)
			sc.captured = append(sc.captured, x.own)
			continue
		}
		if i == r.Top {
			sc.names, sc.texts, sc.captured = append(sc.names, "other"), append(sc.texts, ""), append(sc.captured, 0)
		}
		sc.fps[x.text] = r.Top
		sc.captured[r.Top] += x.own
	}
	return sc, nil
}

// item is one statement handed to its session's worker.
type item struct {
	text   string
	fp     int           // index into names
	offset time.Duration // captured start minus the first; -1 unknown
	rows   int64         // rows sent as captured; -1 unknown
	schema string
	line   int
}

// shared is what the dispatcher and the workers of one replay share.
type shared struct {
	name      string
	timing    bool
	speed     float64
	baseOnce  sync.Once
	base      time.Time
	errMu     sync.Mutex
	err       error
	replayed  atomic.Int64
	mismatch  atomic.Int64
	sessionOK []atomic.Bool
	sessions  []uint64 // captured session ids by worker
}

func (s *shared) start() time.Time {
	s.baseOnce.Do(func() { s.base = time.Now() })
	return s.base
}

func (s *shared) fail(err error) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

func (s *shared) failed() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

// dispatch reads the file again and hands each kept statement to its session's queue,
// recording the captured durations per fingerprint; it closes the queues at the end.
func dispatch(r *spec.Replay, env workload.Env, sc *scanned, sh *shared, queues []chan *item, captured []*measure.Histogram, quit <-chan struct{}) {
	defer func() {
		for _, q := range queues {
			close(q)
		}
	}()
	f, err := openTraffic(r, env)
	if err != nil {
		sh.fail(err)
		return
	}
	defer f.Close()
	flt := newFilter(r)
	for {
		s, err := f.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			sh.fail(err)
			return
		}
		fp := traffic.Fingerprint(s.Text)
		if flt.skip(s, flt.id(fp)) != "" {
			continue
		}
		w, ok := sc.index[s.Session]
		if !ok {
			continue
		}
		it := &item{text: s.Text, fp: sc.fps[fp], offset: -1, rows: s.RowsSent, schema: s.Schema, line: s.Line}
		if !s.Start.IsZero() {
			it.offset = s.Start.Sub(sc.first)
		}
		if s.Duration >= 0 {
			captured[it.fp].Record(s.Duration)
		}
		select {
		case queues[w] <- it:
		case <-quit:
			return
		}
	}
}

// sessionWorker replays one captured session on its own connection.
type sessionWorker struct {
	sh      *shared
	id      int
	q       <-chan *item
	cur     *item
	conn    *engine.Conn
	left    int64 // statements of the session still to come
	abort   error
	connErr error // connecting for the current statement failed
	schema  string
	dest    []driver.Value
	errs    []map[int]int64 // per fingerprint
	rows    []int64
	mismat  []int64
}

// Next takes the session's next statement and says when it is due. The session connects
// when its first statement is known, ahead of its time, and disconnects after its last: the
// replay holds as many connections as sessions overlap, as the server did.
func (w *sessionWorker) Next(stop <-chan struct{}) (time.Time, bool) {
	if w.left == 0 {
		_ = w.conn.Close()
		return time.Time{}, false
	}
	select {
	case it, ok := <-w.q:
		if !ok {
			if err := w.sh.failed(); err != nil {
				w.abort = err
				return time.Time{}, true
			}
			_ = w.conn.Close()
			return time.Time{}, false
		}
		w.cur = it
		w.left--
	case <-stop:
		return time.Time{}, false
	}
	var due time.Time
	if base := w.sh.start(); w.sh.timing && w.cur.offset >= 0 {
		due = base.Add(time.Duration(float64(w.cur.offset) / w.sh.speed))
	}
	w.connErr = nil
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
		w.connErr = w.conn.Reconnect(ctx)
		cancel()
	}
	return due, true
}

// Event runs the statement Next took, in the captured default database.
func (w *sessionWorker) Event(c *engine.Conn) (int, error) {
	if w.abort != nil {
		return 0, &engine.AbortError{Reason: w.abort.Error(), Err: w.abort}
	}
	it := w.cur
	if w.connErr != nil {
		w.errs[it.fp][engine.Code(w.connErr)]++
		return it.fp, fmt.Errorf("%s:%d: captured session %d: %w", w.sh.name, it.line, w.sh.sessions[w.id], w.connErr)
	}
	db, isUse := traffic.UseTarget(it.text)
	if it.schema != "" && it.schema != w.schema && !isUse {
		if _, err := c.ExecText("USE "+quoteIdent(it.schema), false, nil); err != nil {
			w.errs[it.fp][engine.Code(err)]++
			return it.fp, fmt.Errorf("%s:%d: USE %s (the captured database): %w", w.sh.name, it.line, it.schema, err)
		}
		c.T = engine.Tally{} // the session's state, not a replayed statement
		w.schema = it.schema
	}
	rows := engine.ReturnsRows(it.text) || startsWithWord(it.text, "EXECUTE")
	var n int64
	var err error
	w.dest, n, err = c.QueryText(it.text, rows, w.dest)
	w.sh.replayed.Add(1)
	w.sh.sessionOK[w.id].Store(true)
	if err != nil {
		w.errs[it.fp][engine.Code(err)]++
		return it.fp, fmt.Errorf("%s:%d: %w", w.sh.name, it.line, err)
	}
	if isUse {
		w.schema = db
	}
	w.rows[it.fp] += n
	if rows && it.rows >= 0 && n != it.rows {
		w.mismat[it.fp]++
		w.sh.mismatch.Add(1)
	}
	return it.fp, nil
}

func startsWithWord(sql, word string) bool {
	s := strings.TrimSpace(stripComments(sql))
	return len(s) >= len(word) && strings.EqualFold(s[:len(word)], word) && (len(s) == len(word) || s[len(word)] == ' ' || s[len(word)] == '\t' || s[len(word)] == '\n')
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func (r *sessionReplay) Prepare(context.Context) error { return workload.ErrNoAction }
func (r *sessionReplay) Cleanup(context.Context) error { return workload.ErrNoAction }

func (r *sessionReplay) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	rp := r.w.Replay
	sc, err := scan(rp, r.env)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if len(sc.sessions) == 0 && r.env.Shard.Sharded() && sc.all > 0 {
		return nil, fmt.Errorf("replay: %s: shard %s has no captured session to replay: the file has %d sessions (after filters, fewer), and sessions are never split; use at most %d shards", rp.File, r.env.Shard, sc.all, sc.all)
	}
	if len(sc.sessions) == 0 {
		return nil, fmt.Errorf("replay: %s: no statement to replay (%d captured, skipped by filter: %v)", rp.File, sc.replay.StatementsCaptured, sc.replay.Skipped)
	}
	if r.env.Shard.Sharded() {
		r.env.Logf("replay %s: shard %s replays %d of the %d captured sessions (session j by shard j mod %d)", rp.File, r.env.Shard, sc.replay.SessionsCaptured, sc.all, r.env.Shard.Count)
	}
	r.env.Logf("replay %s: %d sessions, %d statements captured, %d fingerprints", rp.File, sc.replay.SessionsCaptured, sc.replay.StatementsCaptured, len(sc.fps))
	sh := &shared{name: rp.Path, timing: rp.Timing == "original", speed: rp.Speed, sessionOK: make([]atomic.Bool, len(sc.sessions)), sessions: sc.sessions}
	queues := make([]chan *item, len(sc.sessions))
	workers := make([]*sessionWorker, len(sc.sessions))
	for i := range queues {
		queues[i] = make(chan *item, queueLen)
		w := &sessionWorker{sh: sh, id: i, q: queues[i], errs: make([]map[int]int64, len(sc.names)),
			rows: make([]int64, len(sc.names)), mismat: make([]int64, len(sc.names))}
		for j := range w.errs {
			w.errs[j] = map[int]int64{}
		}
		workers[i] = w
	}
	captured := make([]*measure.Histogram, len(sc.names))
	for i := range captured {
		captured[i] = measure.NewHistogram()
	}
	lc := workload.Loop(r.w, onInterval)
	lc.Threads, lc.Rollback, lc.Scheduled, lc.Names, lc.Rate = len(sc.sessions), false, true, sc.names, 0
	// Under --shard the sessions are already this shard's (scan); the start barrier is all
	// the split the loop needs.
	lc.Ready = r.env.Ready
	lc.Events = r.env.Shard.Events(lc.Events) // a limit of statements, split as every kind's events are
	dc := engine.DialConfig(r.env.Server, false, r.env.Timeout(), lc.Threads)
	lc.Setup = func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
		c, err := engine.DialLater(dc, false)
		if err != nil {
			return nil, nil, fmt.Errorf("replay connection for captured session %d: %w", sc.sessions[i], err)
		}
		workers[i].schema, workers[i].conn, workers[i].left = dc.DBName, c, sc.counts[i]
		return workers[i], c, nil
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		dispatch(rp, r.env, sc, sh, queues, captured, quit)
	}()
	tot, err := engine.Run(ctx, lc)
	close(quit)
	<-done
	if tot != nil {
		tot.Replay = summarize(sc, sh, workers, captured)
		fid := tot.Replay
		lag := ""
		if tot.Lag != nil && tot.Lag.Count() > 0 {
			lag = fmt.Sprintf(", schedule lag p50 %.2fms p99 %.2fms", measure.Ms(tot.Lag.Percentile(50)), measure.Ms(tot.Lag.Percentile(99)))
		}
		r.env.Logf("replay %s: %d of %d sessions and %d of %d statements replayed, skipped %v, %d errors, %d rows-sent mismatches%s",
			rp.File, fid.SessionsReplayed, fid.SessionsCaptured, fid.StatementsReplayed, fid.StatementsCaptured, fid.Skipped, tot.Errors, fid.RowsMismatches, lag)
	}
	return tot, err
}

// summarize merges the workers' per-fingerprint figures into the fidelity summary.
func summarize(sc *scanned, sh *shared, workers []*sessionWorker, captured []*measure.Histogram) *measure.Replay {
	rp := sc.replay
	rp.StatementsReplayed = sh.replayed.Load()
	rp.RowsMismatches = sh.mismatch.Load()
	for i := range sh.sessionOK {
		if sh.sessionOK[i].Load() {
			rp.SessionsReplayed++
		}
	}
	for i, name := range sc.names {
		fp := measure.Fingerprint{ID: name, Text: sc.texts[i], Captured: sc.captured[i]}
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
			fp.RowsSent += w.rows[i]
			fp.RowsMismatches += w.mismat[i]
		}
		rp.Fingerprints = append(rp.Fingerprints, fp)
	}
	return rp
}
