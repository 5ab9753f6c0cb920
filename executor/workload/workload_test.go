package workload_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/builtin"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/executor/workload/replay"
	"github.com/quadrant-bench/quadrant/executor/workload/sysbench"
	"github.com/quadrant-bench/quadrant/executor/workload/transactions"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

func startServer(t *testing.T) *sandbox.Cluster {
	t.Helper()
	// Each test gets its own sandbox: several tests kill or load the server.
	c := sandboxtest.Start(t, sandbox.Options{Name: "wl", Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "128M"},
		{Name: "innodb_flush_log_at_trx_commit", Value: "2"},
	}})
	db, err := sql.Open("mysql", c.Primary.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
		t.Fatal(err)
	}
	return c
}

func config(t *testing.T, c *sandbox.Cluster) *mysql.Config {
	t.Helper()
	cfg, err := mysql.ParseDSN(c.Primary.DSN("sbtest"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Options are a workload's settings as the tests write them; run turns them into the
// spec.Workload a plan would resolve to, with spec's defaults, and runs it through its kind.
type Options struct {
	Builtin, Action string
	Options         map[string]string
	Transactions    []transactions.Transaction
	Vars            map[string]any
	Replay          *Replay
	Sysbench        *Sysbench
	Threads         int
	Duration        time.Duration
	Events          int64
	Warmup          time.Duration
	Rate            float64
	ReportInterval  time.Duration
	OnError         OnError
	ReadTimeout     time.Duration
}

type Replay struct{ File string }

type Sysbench struct {
	Script string
	Args   map[string]string
}

type OnError struct {
	Reconnect []int
	MaxErrors int
}

func (o Options) workload() *spec.Workload {
	settings := func(m map[string]string) spec.Settings {
		var out spec.Settings
		for k, v := range m {
			out = append(out, spec.Setting{Name: k, Value: v})
		}
		return out
	}
	var w *spec.Workload
	switch {
	case o.Replay != nil:
		w = replay.Workload(o.Replay.File, replay.Replay{Connections: 1})
	case o.Sysbench != nil:
		w = sysbench.Workload(o.Sysbench.Script, settings(o.Sysbench.Args))
	case o.Transactions != nil:
		var txs []transactions.PlanTransaction
		for _, tx := range o.Transactions {
			st := transactions.PlanTransaction{Name: tx.Name, Weight: max(tx.Weight, 1)}
			for _, s := range tx.Statements {
				ts := transactions.PlanStatement{SQL: s.SQL}
				for _, a := range s.Args {
					ts.Args = append(ts.Args, spec.Expr{Source: a})
				}
				st.Statements = append(st.Statements, ts)
			}
			txs = append(txs, st)
		}
		w = transactions.Workload(txs)
	default:
		w = builtin.Workload(o.Builtin, o.Action, settings(o.Options))
	}
	if o.Action != "" {
		w.Action = o.Action
	}
	w.Threads, w.Duration, w.Events, w.Warmup, w.Rate = max(o.Threads, 1), o.Duration, o.Events, o.Warmup, o.Rate
	if o.ReportInterval > 0 {
		w.ReportInterval = o.ReportInterval
	}
	w.OnError.Reconnect, w.OnError.MaxErrors = o.OnError.Reconnect, o.OnError.MaxErrors
	if w.Duration == 0 && w.Events == 0 && o.Replay == nil {
		w.Duration = 10 * time.Second
	}
	return w
}

func run(t *testing.T, cfg *mysql.Config, o Options) (*measure.Total, []*measure.Interval, error) {
	t.Helper()
	var ivs []*measure.Interval
	var console strings.Builder
	onInterval := func(iv *measure.Interval) {
		ivs = append(ivs, iv)
		fmt.Fprintln(&console, measure.FormatLine(iv, o.Rate > 0))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := o.workload()
	if errs := spec.CheckWorkload(w, ".", o.Vars); len(errs) > 0 {
		return nil, nil, errs
	}
	tot, err := kinds.Do(ctx, w, workload.Env{Server: cfg, Vars: o.Vars, ReadTimeout: o.ReadTimeout, Log: func(msg string) { t.Log(msg) }}, onInterval)
	t.Logf("%s %s:\n%s", o.Builtin, o.Action, console.String())
	return tot, ivs, err
}

func TestBuiltinReadWriteCountsLikeSysbench(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	opts := map[string]string{"tables": "2", "table_size": "2000"}
	if _, _, err := run(t, cfg, Options{Builtin: "oltp_read_write", Action: "prepare", Options: opts, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	db := sandboxtest.DB(t, c.Primary.DSN("sbtest"), 0)
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM sbtest2").Scan(&n); err != nil || n != 2000 {
		t.Fatalf("sbtest2 rows = %d, %v; want 2000", n, err)
	}
	var cval, pad string
	if err := db.QueryRow("SELECT c, pad FROM sbtest1 WHERE id=77").Scan(&cval, &pad); err != nil {
		t.Fatal(err)
	}
	if len(cval) != 119 || len(pad) != 59 || strings.Count(cval, "-") != 9 || strings.Count(pad, "-") != 4 {
		t.Fatalf("c/pad format: %q %q", cval, pad)
	}
	var idx int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema='sbtest' AND table_name='sbtest1' AND index_name='k_1'").Scan(&idx); err != nil || idx != 1 {
		t.Fatalf("secondary index k_1: %d %v", idx, err)
	}

	// One thread: no deadlocks possible, so the counts are exact.
	tot, ivs, err := run(t, cfg, Options{Builtin: "oltp_read_write", Options: opts, Threads: 1, Duration: 2 * time.Second, ReportInterval: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if tot.Events == 0 || tot.Errors != 0 {
		t.Fatalf("events %d errors %d", tot.Events, tot.Errors)
	}
	if tot.Queries() != 20*tot.Events || tot.Reads != 14*tot.Events || tot.Writes != 4*tot.Events || tot.Other != 2*tot.Events {
		t.Fatalf("per transaction: queries %d r/w/o %d/%d/%d for %d events; want 20 and 14/4/2",
			tot.Queries(), tot.Reads, tot.Writes, tot.Other, tot.Events)
	}
	if len(ivs) < 3 || tot.Latency.Count() != tot.Events || tot.Lat.P95 <= 0 {
		t.Fatalf("intervals %d, histogram count %d, p95 %v", len(ivs), tot.Latency.Count(), tot.Lat.P95)
	}
	var sum int64
	for _, iv := range ivs {
		sum += iv.Events
	}
	if sum != tot.Events {
		t.Fatalf("intervals sum to %d events, total %d", sum, tot.Events)
	}

	if _, _, err := run(t, cfg, Options{Builtin: "oltp_read_write", Action: "cleanup", Options: opts}); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='sbtest'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("after cleanup %d tables, %v", n, err)
	}
}

func TestAllBuiltinsRun(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	per := map[string][3]int64{ // reads, writes, other per event (exact with 1 thread and uniform ids)
		"oltp_read_only":        {14, 0, 2},
		"oltp_write_only":       {0, 4, 2},
		"oltp_point_select":     {1, 0, 0},
		"oltp_update_index":     {0, 1, 0},
		"oltp_update_non_index": {0, 1, 0},
		"oltp_insert":           {0, 1, 0},
		"select_random_points":  {1, 0, 0},
		"select_random_ranges":  {1, 0, 0},
	}
	for _, name := range []string{"oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_update_index",
		"oltp_update_non_index", "oltp_insert", "oltp_delete", "select_random_points", "select_random_ranges", "bulk_insert"} {
		t.Run(name, func(t *testing.T) {
			opts := map[string]string{"table_size": "1000", "rand_type": "uniform"}
			o := Options{Builtin: name, Options: opts, Threads: 1, Events: 200}
			for _, a := range []string{"prepare", "run", "cleanup"} {
				o.Action = a
				tot, _, err := run(t, cfg, o)
				if err != nil {
					t.Fatalf("%s: %v", a, err)
				}
				if a != "run" {
					continue
				}
				if tot.Events != 200 || tot.Errors != 0 {
					t.Fatalf("events %d errors %d", tot.Events, tot.Errors)
				}
				if want, ok := per[name]; ok && (tot.Reads != want[0]*200 || tot.Writes != want[1]*200 || tot.Other != want[2]*200) {
					t.Fatalf("r/w/o %d/%d/%d, want %v per event", tot.Reads, tot.Writes, tot.Other, want)
				}
			}
		})
	}
}

func TestDeadlocksAreCountedAndRetried(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	db := sandboxtest.DB(t, c.Primary.DSN("sbtest"), 0)
	for _, q := range []string{"CREATE TABLE dl (id INT PRIMARY KEY, v INT) ENGINE=InnoDB", "INSERT INTO dl VALUES (1,0),(2,0)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	// Two transactions lock the same two rows in opposite order; SLEEP widens the window.
	txs := []transactions.Transaction{
		{Name: "ab", Statements: []transactions.Statement{{SQL: "BEGIN"}, {SQL: "UPDATE dl SET v=v+1 WHERE id=1"},
			{SQL: "DO SLEEP(0.01)"}, {SQL: "UPDATE dl SET v=v+1 WHERE id=2"}, {SQL: "COMMIT"}}},
		{Name: "ba", Statements: []transactions.Statement{{SQL: "BEGIN"}, {SQL: "UPDATE dl SET v=v+1 WHERE id=2"},
			{SQL: "DO SLEEP(0.01)"}, {SQL: "UPDATE dl SET v=v+1 WHERE id=1"}, {SQL: "COMMIT"}}},
	}
	tot, _, err := run(t, cfg, Options{Transactions: txs, Threads: 4, Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if tot.ErrorsByCode[1213] == 0 {
		t.Fatalf("no deadlock counted: %+v", tot.ErrorsByCode)
	}
	// Every committed event added 1 to both rows; retried events must not be lost or doubled.
	var v1, v2 int64
	if err := db.QueryRow("SELECT (SELECT v FROM dl WHERE id=1), (SELECT v FROM dl WHERE id=2)").Scan(&v1, &v2); err != nil {
		t.Fatal(err)
	}
	if v1 != v2 || v1 < tot.Events {
		t.Fatalf("rows %d/%d, events %d", v1, v2, tot.Events)
	}
	if len(tot.Transactions) != 2 || tot.Transactions[0].Counts.Events+tot.Transactions[1].Counts.Events != tot.Events {
		t.Fatalf("per-transaction stats: %+v", tot.Transactions)
	}
	t.Logf("events %d, 1213 errors %d", tot.Events, tot.ErrorsByCode[1213])
}

func TestKilledServerEndsWorkloadWithoutHang(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	opts := map[string]string{"table_size": "1000"}
	prepare(t, cfg, "oltp_point_select", opts)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		_ = c.Primary.Kill()
	}()
	tot, ivs, err := run(t, cfg, Options{Builtin: "oltp_point_select", Options: opts, Threads: 2, Duration: time.Minute,
		OnError: OnError{Reconnect: []int{2013, 2006}, MaxErrors: 8}})
	if err == nil {
		t.Fatal("workload against a killed server ended without error")
	}
	var ae *engine.AbortError
	if !asAbort(err, &ae) || !strings.Contains(ae.Reason, "max_errors") {
		t.Fatalf("want an abort for max_errors, got %v", err)
	}
	if tot == nil || tot.ErrorsByCode[2013]+tot.ErrorsByCode[2003] == 0 || tot.Events == 0 {
		t.Fatalf("total %+v", tot)
	}
	if len(ivs) == 0 || ivs[len(ivs)-1].Elapsed > 30*time.Second {
		t.Fatalf("workload did not end soon after the kill: %d intervals", len(ivs))
	}
	t.Logf("reason: %v; errors %v", err, tot.ErrorsByCode)
}

func prepare(t *testing.T, cfg *mysql.Config, builtin string, opts map[string]string) {
	t.Helper()
	if _, _, err := run(t, cfg, Options{Builtin: builtin, Action: "prepare", Options: opts}); err != nil {
		t.Fatal(err)
	}
}

func asAbort(err error, ae **engine.AbortError) bool {
	for err != nil {
		if a, ok := err.(*engine.AbortError); ok {
			*ae = a
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func TestReplayCountsStatements(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	var b strings.Builder
	b.WriteString("-- generated\nCREATE TABLE r (id INT PRIMARY KEY, s VARCHAR(50));\nSET autocommit=0;\n")
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, "INSERT INTO r VALUES (%d, 'it''s; #%d /* no */');\n", i, i)
	}
	b.WriteString("COMMIT;\nDELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT COUNT(*) FROM r; SELECT 1; END//\nDELIMITER ;\n/*!40101 SELECT 1 */;\nSELECT COUNT(*) FROM r;\n")
	file := filepath.Join(t.TempDir(), "r.sql")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tot, _, err := run(t, cfg, Options{Replay: &Replay{File: file}})
	if err != nil {
		t.Fatal(err)
	}
	// CREATE, SET, 500 INSERT, COMMIT, CREATE PROCEDURE, /*! SELECT */, SELECT
	if tot.Events != 506 || tot.Writes != 500 || tot.Reads != 2 || tot.Errors != 0 {
		t.Fatalf("events %d r/w/o %d/%d/%d errors %d", tot.Events, tot.Reads, tot.Writes, tot.Other, tot.Errors)
	}
	var s string
	if err := sandboxtest.DB(t, c.Primary.DSN("sbtest"), 0).QueryRow("SELECT s FROM r WHERE id=7").Scan(&s); err != nil || s != "it's; #7 /* no */" {
		t.Fatalf("row 7: %q %v", s, err)
	}
}

func TestOpenLoopAchievesRate(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	opts := map[string]string{"table_size": "1000"}
	prepare(t, cfg, "oltp_point_select", opts)
	tot, ivs, err := run(t, cfg, Options{Builtin: "oltp_point_select", Options: opts, Threads: 2, Rate: 200,
		Duration: 3 * time.Second, Warmup: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Poisson with mean 600 events: +-25% is > 6 standard deviations.
	if tot.Events < 450 || tot.Events > 750 {
		t.Fatalf("rate 200/s for 3s gave %d events", tot.Events)
	}
	if tot.Service == nil || tot.Service.Count() != tot.Events || tot.Lat.P50 < tot.Service.Percentile(50) {
		t.Fatalf("service histogram %+v", tot.Service)
	}
	if !ivs[0].Warmup || ivs[len(ivs)-1].Warmup || tot.Seconds() < 2.9 || tot.Seconds() > 3.5 {
		t.Fatalf("warmup flags or measured time wrong: first %v last %v seconds %.2f", ivs[0].Warmup, ivs[len(ivs)-1].Warmup, tot.Seconds())
	}
}

func showCreate(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	var name, ddl string
	if err := db.QueryRow("SHOW CREATE TABLE "+table).Scan(&name, &ddl); err != nil {
		t.Fatal(err)
	}
	return ddl
}

// Tables prepared by quadrant run under sysbench and the other way round, and
// both prepare the same schema.
func TestTablesCompatibleWithSysbench(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	db := sandboxtest.DB(t, c.Primary.DSN("sbtest"), 0)
	opts := map[string]string{"tables": "2", "table_size": "1000"}
	if _, _, err := run(t, cfg, Options{Builtin: "oltp_read_write", Action: "prepare", Options: opts, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	ours := showCreate(t, db, "sbtest2")
	tot, ivs, err := run(t, cfg, Options{Sysbench: &Sysbench{Script: "oltp_read_write", Args: opts}, Threads: 1, Events: 200})
	if err != nil {
		t.Fatal(err)
	}
	if tot.Events != 200 || tot.Reads != 14*200 || tot.Writes != 4*200 || tot.Other != 2*200 || tot.Lat.P95 <= 0 || len(ivs) == 0 && tot.Seconds() > 1.5 {
		t.Fatalf("sysbench on quadrant's tables: %+v lat %+v", tot.Counts, tot.Lat)
	}
	if _, _, err := run(t, cfg, Options{Builtin: "oltp_read_write", Action: "cleanup", Options: opts}); err != nil {
		t.Fatal(err)
	}
	// The sysbench kind's prepare runs `sysbench ... prepare`.
	if _, _, err := run(t, cfg, Options{Sysbench: &Sysbench{Script: "oltp_read_write", Args: opts}, Action: "prepare"}); err != nil {
		t.Fatalf("sysbench prepare: %v", err)
	}
	if theirs := showCreate(t, db, "sbtest2"); theirs != ours {
		t.Fatalf("schemas differ:\nquadrant:\n%s\nsysbench:\n%s", ours, theirs)
	}
	tot, _, err = run(t, cfg, Options{Builtin: "oltp_read_write", Options: opts, Threads: 1, Events: 200})
	if err != nil {
		t.Fatal(err)
	}
	if tot.Events != 200 || tot.Queries() != 20*200 || tot.Errors != 0 {
		t.Fatalf("quadrant on sysbench's tables: %+v", tot.Counts)
	}
	if _, _, err := run(t, cfg, Options{Sysbench: &Sysbench{Script: "oltp_read_write", Args: opts}, Action: "cleanup"}); err != nil {
		t.Fatalf("sysbench cleanup: %v", err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name LIKE 'sbtest%'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("after sysbench cleanup: %d tables left (%v)", n, err)
	}
}

func TestCustomArgsAndVars(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	db := sandboxtest.DB(t, c.Primary.DSN("sbtest"), 0)
	if _, err := db.Exec("CREATE TABLE kv (id INT PRIMARY KEY, tid INT, code CHAR(7), r INT)"); err != nil {
		t.Fatal(err)
	}
	txs := []transactions.Transaction{
		{Name: "insert", Weight: 3, Statements: []transactions.Statement{{SQL: "INSERT INTO kv VALUES (?, ?, ?, ?)",
			Args: []string{"seq()", "thread_id()", `rand_string("###-@@@")`, "rand_int(1, vars.rows)"}}}},
		{Name: "read", Weight: 1, Statements: []transactions.Statement{{SQL: "SELECT * FROM kv WHERE id = ?", Args: []string{"rand_int(1, 10)"}}}},
	}
	tot, _, err := run(t, cfg, Options{Transactions: txs, Vars: map[string]any{"rows": 5}, Threads: 2, Events: 400})
	if err != nil {
		t.Fatal(err)
	}
	ins, rd := tot.Transactions[0], tot.Transactions[1]
	if tot.Events != 400 || ins.Counts.Events+rd.Counts.Events != 400 || ins.Counts.Writes != ins.Counts.Events || rd.Counts.Reads != rd.Counts.Events {
		t.Fatalf("counts %+v / %+v / %+v", tot.Counts, ins.Counts, rd.Counts)
	}
	if ins.Counts.Events < 200 || ins.Counts.Events > 380 { // weight 3:1 → about 300
		t.Fatalf("weights ignored: %d inserts of 400", ins.Counts.Events)
	}
	// Workers share the 400 events, so on a loaded machine one worker may take every insert:
	// thread_id() must be a worker's 0-based number, not that both workers inserted.
	var n, maxID, badR, badTid int64
	if err := db.QueryRow("SELECT COUNT(*), MAX(id), SUM(r NOT BETWEEN 1 AND 5), SUM(tid NOT IN (0, 1)) FROM kv").Scan(&n, &maxID, &badR, &badTid); err != nil {
		t.Fatal(err)
	}
	if n != ins.Counts.Events || maxID != n || badR != 0 || badTid != 0 {
		t.Fatalf("rows %d max id %d, %d rows with r out of 1..5, %d with a thread id other than 0 or 1", n, maxID, badR, badTid)
	}
}

// A server that stops answering (SIGSTOP) must not hang the workload: the read
// timeout fails the stuck queries with 2013 and the interval clock keeps ticking.
// 2 threads use blocking sockets, 80 the netpoller (engine.maxBlockingThreads):
// both must give up on a stuck server after the read timeout.
func TestStuckServerDoesNotHang(t *testing.T) {
	for _, threads := range []int{2, 80} {
		t.Run(fmt.Sprint(threads), func(t *testing.T) { stuckServer(t, threads) })
	}
}

func stuckServer(t *testing.T, threads int) {
	c := startServer(t)
	cfg := config(t, c)
	opts := map[string]string{"table_size": "1000"}
	prepare(t, cfg, "oltp_point_select", opts)
	pid := c.Primary.Pid()
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	go func() {
		time.Sleep(500 * time.Millisecond)
		_ = syscall.Kill(pid, syscall.SIGSTOP)
	}()
	tot, ivs, err := run(t, cfg, Options{Builtin: "oltp_point_select", Options: opts, Threads: threads, Duration: time.Minute,
		ReportInterval: 500 * time.Millisecond, ReadTimeout: 2 * time.Second})
	_ = syscall.Kill(pid, syscall.SIGCONT)
	if err == nil || tot == nil || tot.ErrorsByCode[engine.CodeServerLost] == 0 {
		t.Fatalf("want an abort with 2013 counted, got %v, %+v", err, tot)
	}
	stalled := 0
	for _, iv := range ivs {
		if iv.Events == 0 {
			stalled++
		}
	}
	if stalled < 2 {
		t.Fatalf("the interval clock stopped while workers were stuck: %d empty intervals of %d", stalled, len(ivs))
	}
	t.Logf("aborted: %v", err)
}

// Many threads take the netpoller path; its counts must be as exact.
func TestManyThreadsCountExactly(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	opts := map[string]string{"table_size": "1000"}
	prepare(t, cfg, "oltp_read_only", opts)
	tot, _, err := run(t, cfg, Options{Builtin: "oltp_read_only", Options: opts, Threads: 100, Events: 1000})
	if err != nil || tot.Events != 1000 || tot.Errors != 0 {
		t.Fatalf("events %d errors %d %v", tot.Events, tot.Errors, err)
	}
	if tot.Reads != 14*1000 || tot.Writes != 0 || tot.Other != 2*1000 {
		t.Fatalf("r/w/o %d/%d/%d for 1000 events, want 14/0/2 each", tot.Reads, tot.Writes, tot.Other)
	}
}

// BEGIN travels in one write with the first statement: the server must still
// see every BEGIN, statement and COMMIT of every event, in its own counters.
func TestServerCountsEveryStatement(t *testing.T) {
	c := startServer(t)
	cfg := config(t, c)
	db := sandboxtest.DB(t, c.Primary.DSN("sbtest"), 0)
	db.SetMaxOpenConns(1)
	opts := map[string]string{"table_size": "1000", "rand_type": "uniform"}
	prepare(t, cfg, "oltp_read_write", opts)
	status := func() map[string]int64 {
		m := map[string]int64{}
		rows, err := db.Query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_begin', 'Com_commit', 'Com_stmt_execute', 'Com_rollback')")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var v int64
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		name             string
		begins, executes int64
	}{{"oltp_read_write", 1, 18}, {"oltp_read_only", 1, 14}, {"oltp_write_only", 1, 4}, {"oltp_point_select", 0, 1}} {
		before := status()
		tot, _, err := run(t, cfg, Options{Builtin: c.name, Options: opts, Threads: 1, Events: 300})
		if err != nil || tot.Events != 300 || tot.Errors != 0 {
			t.Fatalf("%s: events %d errors %d %v", c.name, tot.Events, tot.Errors, err)
		}
		after := status()
		d := func(k string) int64 { return after[k] - before[k] }
		if d("Com_begin") != c.begins*300 || d("Com_commit") != c.begins*300 || d("Com_stmt_execute") != c.executes*300 || d("Com_rollback") != 0 {
			t.Fatalf("%s: server saw begin %d commit %d execute %d rollback %d for 300 events; want %d, %d, %d, 0",
				c.name, d("Com_begin"), d("Com_commit"), d("Com_stmt_execute"), d("Com_rollback"), c.begins*300, c.begins*300, c.executes*300)
		}
	}
}
