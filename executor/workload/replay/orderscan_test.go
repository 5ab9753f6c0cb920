package replay

import (
	"fmt"
	"os"
	"path/filepath"
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
		co := o.build("f", time.Second, t.Logf)
		out := ""
		for _, r := range recs {
			n := 0
			for _, e := range co.ends {
				if e < r[1] {
					n++
				}
			}
			if r[0] < 0 {
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
			order, at := o.classify(x, start, end)
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
