package verify

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results"
)

// stopBefore hands out the real driver's connections, and stops the server (really: the
// sandbox shuts down) when the statement number `at` of the traffic is about to be sent, so
// that the test knows which statements the target ran without timing anything.
type stopBefore struct {
	driver.Connector
	at   int64
	sent atomic.Int64
	once sync.Once
	stop func()
}

func (c *stopBefore) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stopConn{Conn: conn, c: c}, nil
}

type stopConn struct {
	driver.Conn
	c *stopBefore
}

func (s *stopConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	// verify's own SHOW WARNINGS and EXPLAIN follow a statement: only the traffic's count
	if query != "SHOW WARNINGS" && !strings.HasPrefix(query, "EXPLAIN ") && s.c.sent.Add(1) == s.c.at {
		s.c.once.Do(s.c.stop)
	}
	return s.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (s *stopConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return s.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

// The new server goes away after three of six statements: verify ends without an error, the
// three it ran are compared, the other three are errors saying they did not run on new, and
// log.txt says the target was lost and after how many statements.
func TestTargetLostMidway(t *testing.T) {
	base, next := startPair(t, nil, nil)
	shop(t, base.Primary, false)
	shop(t, next.Primary, false)

	dir := t.TempDir()
	capPath := filepath.Join(dir, "traffic.qcap")
	var stmts []traffic.Statement
	for _, q := range []string{
		"SELECT id, amount FROM orders WHERE customer_id = 7",
		"SELECT COUNT(*) FROM customers",
		"SELECT name FROM customers WHERE id = 3",
		"SELECT SUM(amount) FROM orders",
		"SELECT id FROM orders WHERE amount > 100 ORDER BY id LIMIT 3",
		"SELECT MAX(id) FROM customers",
	} {
		stmts = append(stmts, traffic.Statement{Session: 1, Schema: "shop", Text: q})
	}
	writeTraffic(t, capPath, stmts)

	cfg, err := mysql.ParseDSN(next.Primary.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stopper := &stopBefore{Connector: conn, at: 4, stop: func() {
		if err := next.Primary.Stop(context.Background()); err != nil {
			t.Errorf("stop the new server: %v", err)
		}
	}}
	newDB := sql.OpenDB(stopper)
	defer newDB.Close()

	out := filepath.Join(dir, "out")
	w, err := results.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{Traffic: capPath, Sample: 1, Seed: 1, Out: w, Logf: t.Logf,
		Targets: []Target{{"base", sandboxtest.DB(t, base.Primary.DSN(""), 2)}, {"new", newDB}}})
	if err != nil {
		t.Fatalf("verify with a target lost: %v; want it to finish and report", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if next.Primary.Running() {
		t.Fatalf("the new server still runs: the test stopped nothing (%d statements sent)", stopper.sent.Load())
	}
	if sum.Fingerprints != 6 {
		t.Errorf("%d fingerprints, want 6", sum.Fingerprints)
	}
	rows, err := results.ReadQueries(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows in queries.csv, want 6", len(rows))
	}
	for i, r := range rows {
		t.Logf("%s | %s | %s | %s", r.Fingerprint, r.Results, r.Plan, r.Differences)
		if i < 3 {
			if r.Results != results.VerifySame || r.Plan != results.VerifySame || r.Differences != "" {
				t.Errorf("%s ran on both before the loss: %+v; want same/same, no differences", r.Example, r)
			}
			continue
		}
		if r.Results != results.VerifyError || !strings.Contains(r.Differences, "not run on new: ") {
			t.Errorf("%s never ran on new: results %s, differences %q; want error with \"not run on new: ...\"", r.Example, r.Results, r.Differences)
		}
		if r.Plan == results.VerifyDifferent || r.Base != "base" {
			t.Errorf("%s: plan %s, base %q; a target gone is no plan change (want plan none or same, base \"base\")", r.Example, r.Plan, r.Base)
		}
		if strings.Contains(r.Differences, "not run on base") {
			t.Errorf("%s: %q blames the base, which was up", r.Example, r.Differences)
		}
	}
	log, err := os.ReadFile(filepath.Join(out, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"verify: target new lost after 3 statements: ", "verify: target base ran 6 statements"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log.txt lacks %q:\n%s", want, log)
		}
	}
}
