package replay

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/traffic"
)

// TestOrderFromEachSource: what a statement waits for (the number of commits before it, in
// order) as each source's clock tells it. Two sessions: 1 locks a row and commits; 2 asks for
// the same row while 1 holds it (blocked until 1's commit began), then commits.
func TestOrderFromEachSource(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	type st struct {
		session    uint64
		start, end int64 // µs from t0
		text       string
	}
	// In start order.
	sts := []st{
		{1, 0, 10, "BEGIN"},
		{1, 10, 20, "UPDATE t SET v = 1 WHERE id = 1"},
		{2, 12, 14, "BEGIN"},
		{2, 15, 45, "UPDATE t SET v = 2 WHERE id = 1"}, // blocked by 1 until its commit
		{1, 30, 50, "COMMIT"},                          // releases the lock at ~40, returns at 50
		{2, 46, 47, "SELECT * FROM t"},
		{2, 48, 60, "SELECT * FROM t FOR UPDATE"},
		{1, 55, 56, "SELECT 1"},
		{2, 61, 70, "COMMIT"},
	}
	need := func(o *orderScan, recs [][2]int64) string {
		co := o.build("f", 2, time.Second, t.Logf, func(t string) string { return t })
		out := ""
		for _, r := range recs {
			n := 0
			for _, e := range co.ends {
				if e < r[1] {
					n++
				}
			}
			if r[0] == orderFree {
				n = -1 // a free read
			}
			out += fmt.Sprintf(" %d", n)
		}
		return out
	}
	for _, c := range []struct {
		name string
		file *traffic.File
		mk   func(s st) *traffic.Statement
		want string
	}{
		{"performance_schema clock", &traffic.File{}, func(s st) *traffic.Statement {
			return &traffic.Statement{Session: s.session, Text: s.text, ClockStart: s.start*1e6 + 1, ClockEnd: s.end*1e6 + 1}
		}, " 0 0 0 1 0 -1 1 -1 1"}, // the blocked UPDATE waits for the commit that began before it ended
		{"start and duration", &traffic.File{}, func(s st) *traffic.Statement {
			return &traffic.Statement{Session: s.session, Text: s.text, Start: t0.Add(time.Duration(s.start) * time.Microsecond), Duration: time.Duration(s.end-s.start) * time.Microsecond}
		}, " 0 0 0 1 0 -1 1 -1 1"},
		{"general log (arrival order)", &traffic.File{}, func(s st) *traffic.Statement {
			return &traffic.Statement{Session: s.session, Text: s.text, Duration: -1}
		}, " 0 0 0 0 0 -1 0 -1 1"}, // 1's commit ended, at the latest, when its SELECT 1 arrived
	} {
		o := newOrderScan(c.file)
		var recs [][2]int64
		for _, s := range sts {
			x := c.mk(s)
			start, end := o.position(x)
			order, at, _ := o.classify(int(x.Session-1), x, traffic.Fingerprint(x.Text), start, end)
			recs = append(recs, [2]int64{order, at})
		}
		if got := need(o, recs); got != c.want {
			t.Errorf("%s: commits waited for%s, want%s", c.name, got, c.want)
		}
	}
}

// TestOrderRefusedWhereItCannotHold: order: commit is refused under --shard (a shard would
// wait on another's commits) and on a SQL file (no sessions), naming the key.
func TestOrderRefusedWhereItCannotHold(t *testing.T) {
	dir := t.TempDir()
	qcap, sqlFile := filepath.Join(dir, "t.qcap"), filepath.Join(dir, "t.sql")
	if err := os.WriteFile(qcap, []byte(`{"qcap": 1, "timed": true}`+"\n"+`{"session": 1, "start_us": 1, "text": "SELECT 1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sqlFile, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if errs := Kind.Spec.Shards(Workload(qcap, Replay{Order: "commit"}), 2); len(errs) != 1 || !strings.Contains(errs[0].Error(), "order: commit cannot be split") {
		t.Errorf("a sharded commit order: %v", errs)
	}
	if errs := Kind.Spec.Shards(Workload(qcap, Replay{}), 2); len(errs) != 0 {
		t.Errorf("a sharded replay: %v", errs)
	}
	if errs := validate(Workload(sqlFile, Replay{Order: "commit"})); len(errs) != 1 || !strings.Contains(errs[0].Error(), "order: commit") {
		t.Errorf("commit order of a SQL file: %v", errs)
	}
}

// TestLockOrder: a locking statement waits for another session's that started before it
// and ended before it ended (go-tpc's NewOrder INSERT that Delivery's FOR UPDATE overlapped
// from before), not for one that ran inside it, not for a free read and not for one that
// ended after it; an autocommit write (a commit) waits only for those that ended before it
// began; and once the statements it needs have finished on the target it goes.
func TestLockOrder(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	type st struct {
		session    uint64
		start, end int64
		text       string
	}
	sts := []st{
		{1, 1, 2, "BEGIN"},
		{2, 3, 4, "BEGIN"},
		{3, 5, 6, "BEGIN"},
		{1, 10, 20, "INSERT INTO new_order VALUES (1, 3001)"},
		{2, 15, 25, "SELECT no_o_id FROM new_order WHERE no_d_id = 1 ORDER BY no_o_id LIMIT 1 FOR UPDATE"}, // overlapped from before by 1's
		{3, 16, 18, "UPDATE stock SET s_quantity = 5 WHERE s_i_id = 7"},                                    // inside 2's: no wait either way
		{3, 21, 22, "SELECT * FROM item WHERE i_id = 7"},                                                   // a free read
		{4, 24, 35, "INSERT INTO history VALUES (1, 7)"},                                                   // autocommit: a commit
		{1, 26, 30, "UPDATE district SET d_next_o_id = 3002"},                                              // after 2's and 3's UPDATE
		{3, 27, 40, "DELETE FROM new_order WHERE no_o_id = 2101"},                                          // after 1's UPDATE and 4's INSERT, which ended first
	}
	o := newOrderScan(&traffic.File{})
	var locks []bool
	for _, s := range sts {
		x := &traffic.Statement{Session: s.session, Schema: "tpcc", Text: s.text, Start: t0.Add(time.Duration(s.start) * time.Microsecond), Duration: time.Duration(s.end-s.start) * time.Microsecond}
		start, end := o.position(x)
		_, _, lock := o.classify(int(s.session-1), x, traffic.Fingerprint(x.Text), start, end)
		locks = append(locks, lock)
	}
	if want := []bool{false, false, false, true, true, true, false, true, true, true}; !slices.Equal(locks, want) {
		t.Fatalf("kept in the locking order: %v, want %v", locks, want)
	}
	needs := func(lo *lockOrder, a, k int) string {
		s := ""
		for b := range 4 {
			if b == a {
				s += "-" // its own session's order is the session's
				continue
			}
			s += fmt.Sprint(lo.need(a, k, b))
		}
		return s
	}
	// Per statement (session, its k-th locking statement): what it needs of each session's,
	// with every table ordered against every other (the order when the schema cannot be
	// read), per table, and with district in new_order's group (a foreign key).
	at := []struct{ a, k int }{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {2, 1}}
	related := map[string]string{"tpcc.district": "tpcc.new_order"}
	for _, c := range []struct {
		name  string
		group func(string) string
		want  []string
	}{
		{"every table", func(string) string { return "" }, []string{"-010", "1-10", "00-0", "101-", "-110", "21-1"}},
		{"per table", func(t string) string { return t }, []string{"-000", "1-00", "00-0", "000-", "-000", "11-0"}},
		{"district with new_order", func(t string) string { return cmp.Or(related[t], t) }, []string{"-000", "1-00", "00-0", "000-", "-100", "21-0"}},
	} {
		lo := o.locks.build("f", 4, time.Second, t.Logf, &commitOrder{}, c.group)
		for i, x := range at {
			if got := needs(lo, x.a, x.k); got != c.want[i] {
				t.Errorf("%s: session %d's locking statement %d needs %s of each session's, want %s", c.name, x.a+1, x.k, got, c.want[i])
			}
		}
	}
	co := o.build("f", 4, 50*time.Millisecond, t.Logf, func(string) string { return "" })
	lo := co.locks
	stop := make(chan struct{})
	sessions := []uint64{1, 2, 3, 4}
	if !lo.wait(2, 0, stop, sessions, nil) || co.waits.Load() != 0 {
		t.Fatalf("the UPDATE that ended first waited (%d waits)", co.waits.Load())
	}
	got := make(chan bool)
	p := &progress{}
	go func() { got <- lo.wait(1, 0, stop, sessions, p) }()
	lo.finished(0) // the INSERT
	// What it waits for now, as the watchdog reads it: session 3's UPDATE.
	for deadline := time.Now().Add(5 * time.Second); p.blocker.Load() != 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the waiting FOR UPDATE shows it waits for session %d, want 3", p.blocker.Load()+1)
		}
	}
	select {
	case <-got:
		t.Fatal("the FOR UPDATE went before the UPDATE that ended before it had finished")
	case <-time.After(20 * time.Millisecond):
	}
	lo.finished(2) // session 3's UPDATE
	if !<-got || co.timeouts.Load() != 0 {
		t.Fatalf("the FOR UPDATE did not go once the INSERT had finished (%d timeouts)", co.timeouts.Load())
	}
	// Session 1's UPDATE needs session 2's FOR UPDATE, which has not finished: the wait times
	// out, counted, and goes on.
	if !lo.wait(0, 1, stop, sessions, nil) || co.timeouts.Load() != 1 {
		t.Fatalf("a wait for a statement that never finished: %d timeouts, want 1", co.timeouts.Load())
	}
	close(stop)
	if lo.wait(2, 1, stop, sessions, nil) {
		t.Fatal("a wait that stop ended said go")
	}
}

// TestLockOrderPerRow: statements that name every primary key column of their table with
// literals are ordered against the earlier ones on their rows and the earlier unkeyed ones on
// their table, not against other rows'; one that found fewer rows than its keys in the
// capture (a gap lock), a table without a key and a table in a foreign key's group are
// ordered per table.
func TestLockOrderPerRow(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	type st struct {
		session    uint64
		start, end int64
		rows       int64
		text       string
	}
	sts := []st{
		{1, 1, 2, -1, "BEGIN"}, {2, 1, 2, -1, "BEGIN"}, {3, 1, 2, -1, "BEGIN"}, {4, 1, 2, -1, "BEGIN"},
		{1, 10, 20, 1, "UPDATE stock SET q = 1 WHERE s_w_id = 1 AND s_i_id = 5"},
		{2, 12, 22, 1, "UPDATE stock SET q = 2 WHERE s_i_id = 6 AND s_w_id = 1"},                 // another row: no wait
		{3, 14, 30, 2, "SELECT q FROM stock WHERE (s_w_id, s_i_id) IN ((1,5),(1,7)) FOR UPDATE"}, // row 5: 1's
		{4, 15, 35, 90, "SELECT COUNT(*) FROM stock WHERE q < 10 FOR UPDATE"},                    // a range: every earlier one
		{1, 40, 45, 0, "UPDATE stock SET q = 3 WHERE s_w_id = 1 AND s_i_id = 8"},                 // no such row: the table
		{2, 41, 50, 0, "INSERT INTO stock (s_w_id, s_i_id, q) VALUES (1, 9, 0)"},                 // row 9: the unkeyed ones
		{3, 42, 52, 1, "UPDATE history SET v = 1 WHERE id = 1"},                                  // no key: the table
		{4, 43, 53, 1, "UPDATE district SET v = 1 WHERE id = 1"},                                 // in a group
		{1, 44, 54, 1, "UPDATE warehouse SET v = 1 WHERE id = 1"},                                // in district's group
		{2, 60, 70, 1, "UPDATE district SET v = 1 WHERE id = 2"},                                 // the group: 4's, 1's
	}
	o := newOrderScan(&traffic.File{})
	o.keys = &primaryKeys{read: map[string]bool{"tpcc": true}, keys: map[string][]string{
		"tpcc.stock": {"s_w_id", "s_i_id"}, "tpcc.district": {"id"}, "tpcc.warehouse": {"id"}}}
	for _, s := range sts {
		x := &traffic.Statement{Session: s.session, Schema: "tpcc", Text: s.text, RowsExamined: s.rows,
			Start: t0.Add(time.Duration(s.start) * time.Microsecond), Duration: time.Duration(s.end-s.start) * time.Microsecond}
		start, end := o.position(x)
		if _, _, lock := o.classify(int(s.session-1), x, traffic.Fingerprint(x.Text), start, end); !lock && s.text != "BEGIN" {
			t.Fatalf("%s: not in the locking order", s.text)
		}
	}
	group := func(t string) string {
		if t == "tpcc.warehouse" {
			return "tpcc.district"
		}
		return t
	}
	lo := o.locks.build("f", 4, time.Second, t.Logf, &commitOrder{}, group)
	for _, c := range []struct {
		a, k int
		want string
	}{
		{1, 0, "0-00"}, {2, 0, "10-0"}, {3, 0, "111-"},
		{0, 1, "-111"}, {1, 1, "2-01"}, {2, 1, "00-0"}, {3, 1, "000-"}, {0, 2, "-002"}, {1, 2, "3-02"},
	} {
		s := ""
		for b := range 4 {
			if b == c.a {
				s += "-"
				continue
			}
			s += fmt.Sprint(lo.need(c.a, c.k, b))
		}
		if s != c.want {
			t.Errorf("session %d's locking statement %d: needs %s of each session's, want %s", c.a+1, c.k, s, c.want)
		}
	}
	if got := lo.String(); !strings.Contains(got, "10 locking statements") || !strings.Contains(got, "4 of them per row") {
		t.Errorf("the log's line: %s; want 10 locking statements, 4 of them per row", got)
	}
}

// TestClosesCycle: the stall watchdog lets the order go only when the order's waits and the
// server's lock waits close a cycle: from a session waiting for the order, through whom it
// waits for and the holders of the locks those wait for, back to it. A chain that ends at a
// running session (a slow statement whose transaction will commit), at another client or in
// a loop of lock waits alone (the server's deadlock detector's) is none.
func TestClosesCycle(t *testing.T) {
	for _, c := range []struct {
		name  string
		locks map[uint32][]uint32 // waiting connection -> lock holders
		order map[uint32]uint32   // waiting connection -> the session it waits for
		want  bool
	}{
		{"the awaited one in a lock wait on the waiter", map[uint32][]uint32{1: {2}}, map[uint32]uint32{2: 1}, true},
		{"through another's lock wait", map[uint32][]uint32{1: {3}, 3: {4, 2}}, map[uint32]uint32{2: 1}, true},
		{"through another order wait", map[uint32][]uint32{1: {2}}, map[uint32]uint32{2: 4, 4: 1}, true},
		{"ends at a running session", map[uint32][]uint32{1: {3}}, map[uint32]uint32{2: 1}, false},
		{"ends at another client", map[uint32][]uint32{1: {99}}, map[uint32]uint32{2: 1}, false},
		{"a loop of lock waits alone", map[uint32][]uint32{1: {3}, 3: {1}}, map[uint32]uint32{2: 1}, false},
		{"waits for a slow session", map[uint32][]uint32{}, map[uint32]uint32{2: 1}, false},
	} {
		if got := closesCycle(c.locks, c.order); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
