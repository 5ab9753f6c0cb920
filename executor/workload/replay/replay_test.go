package replay

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/capture"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

const sessions = 3

// sessionWork is what captured session n runs: session state of every kind replay must
// follow (a USE, a user variable, a session variable, a temporary table used later, an
// explicit transaction), and rows in table steps whose order and values say whether it did.
func sessionWork(n int) []string {
	return []string{
		"USE rt",
		fmt.Sprintf("SET @v = %d", n*10),
		"SET SESSION sql_mode = 'STRICT_ALL_TABLES'",
		"CREATE TEMPORARY TABLE tmp_s (id INT PRIMARY KEY, v INT)",
		fmt.Sprintf("INSERT INTO steps (session, step, v) VALUES (%d, 1, @v)", n),
		"INSERT INTO tmp_s VALUES (1, @v), (2, @v + 1)",
		"BEGIN",
		fmt.Sprintf("INSERT INTO steps (session, step, v) SELECT %d, 2, SUM(v) FROM tmp_s", n),
		fmt.Sprintf("UPDATE steps SET v = v + 1 WHERE session = %d AND step = 2", n),
		"COMMIT",
		fmt.Sprintf("SELECT v FROM steps WHERE session = %d AND step IN (1, 2)", n),
		"SELECT COUNT(*) FROM tmp_s WHERE v > 'a''b'",
		fmt.Sprintf("INSERT INTO steps (session, step, v)\nVALUES (%d, 3, @v)", n),
		"PREPARE r FROM 'SELECT v FROM steps WHERE session = ? AND step = 3'",
		fmt.Sprintf("SET @s = %d", n),
		"EXECUTE r USING @s",
		"PREPARE w FROM 'INSERT INTO steps (session, step, v) VALUES (?, 4, @v + 1)'",
		"EXECUTE w USING @s",
		"DEALLOCATE PREPARE w",
	}
}

// writesPerSession are the statements of sessionWork that read_only skips: the four that write
// to steps, and the PREPARE, EXECUTE and DEALLOCATE of the prepared INSERT.
const writesPerSession = 7

// wantCounts are the statements per fingerprint the sessions run. The slow log (file and table)
// records a text-protocol EXECUTE as the statement it executed, so from the slow log an EXECUTE
// counts as its prepared statement.
func wantCounts(expanded bool) map[string]int64 {
	m := map[string]int64{}
	for n := 1; n <= sessions; n++ {
		for _, s := range sessionWork(n) {
			if expanded {
				switch s {
				case "EXECUTE r USING @s":
					s = "SELECT v FROM steps WHERE session = 1 AND step = 3"
				case "EXECUTE w USING @s":
					s = "INSERT INTO steps (session, step, v) VALUES (1, 4, @v + 1)"
				}
			}
			m[traffic.FingerprintID(traffic.Fingerprint(s))]++
		}
	}
	return m
}

// runSessions runs the sessions concurrently, each on its own connection, interleaved.
func runSessions(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for n := 1; n <= sessions; n++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sql.Open("mysql", dsn)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			conn, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			for _, q := range sessionWork(n) {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					errs <- fmt.Errorf("session %d: %s: %w", n, q, err)
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func schema(t *testing.T, s *sandbox.Server) {
	t.Helper()
	if err := s.Exec(context.Background(), "DROP DATABASE IF EXISTS rt", "CREATE DATABASE rt",
		"CREATE TABLE rt.steps (id INT AUTO_INCREMENT PRIMARY KEY, session INT, step INT, v INT, KEY (session, step))"); err != nil {
		t.Fatal(err)
	}
}

// checkSteps: every session's rows are in step order (auto-increment ids follow the order the
// statements ran in) with the values its session state gives: step 2 = SUM over the
// temporary table (2v+1) plus the UPDATE in the transaction.
func checkSteps(t *testing.T, s *sandbox.Server) {
	t.Helper()
	db, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT session, step, v FROM rt.steps ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	last := map[int]int{}
	got := 0
	for rows.Next() {
		var sess, step, v int
		if err := rows.Scan(&sess, &step, &v); err != nil {
			t.Fatal(err)
		}
		got++
		want := map[int]int{1: sess * 10, 2: 2*sess*10 + 2, 3: sess * 10, 4: sess*10 + 1}[step]
		if step != last[sess]+1 || v != want {
			t.Errorf("session %d: step %d (after step %d) with v=%d, want step %d with v=%d", sess, step, last[sess], v, last[sess]+1, want)
		}
		last[sess] = step
	}
	if got != sessions*4 {
		t.Errorf("%d rows in steps, want %d", got, sessions*4)
	}
}

func env(t *testing.T, s *sandbox.Server) workload.Env {
	cfg, err := mysql.ParseDSN(s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	return workload.Env{Server: cfg, Log: func(msg string) { t.Log(msg) }}
}

func replayFile(t *testing.T, s *sandbox.Server, r *Replay) *measure.Total {
	t.Helper()
	if r.Top == 0 {
		r.Top = 20
	}
	w := Workload(r.File, *r)
	w.OnError.Ignore = []int{1213}
	if errs := spec.CheckWorkload(w, ".", nil); len(errs) > 0 {
		t.Fatalf("validate: %v", errs)
	}
	wl, err := Kind.New(w, env(t, s))
	if err != nil {
		t.Fatal(err)
	}
	tot, err := wl.Run(context.Background(), func(*measure.Interval) {})
	if err != nil {
		t.Fatalf("replay %s: %v", r.File, err)
	}
	if fidelityOf(tot) == nil {
		t.Fatalf("replay %s ran as a SQL file", r.File)
	}
	return tot
}

// replayedCounts are the statements per fingerprint a replay ran.
func replayedCounts(tot *measure.Total) map[string]int64 {
	m := map[string]int64{}
	for _, n := range tot.Transactions {
		if n.Counts.Events > 0 {
			m[n.Name] = n.Counts.Events
		}
	}
	return m
}

func sameCounts(t *testing.T, what string, got, want map[string]int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d fingerprints replayed, want %d: %v vs %v", what, len(got), len(want), got, want)
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("%s: fingerprint %s replayed %d times, want %d", what, id, got[id], n)
		}
	}
}

// TestServerLogsReplay: the sessions run on sandbox A while its own slow log (long_query_time=0)
// and general log record them; each log replays on sandbox B with every statement succeeding,
// the same count per fingerprint, each session's order and state (B's rows say so), and
// read_only replays skip exactly the writes.
func TestServerLogsReplay(t *testing.T) {
	sandboxtest.SkipShort(t)
	var a, b *sandbox.Cluster
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a = sandboxtest.Start(t, sandbox.Options{Name: "cap"}) }()
	go func() { defer wg.Done(); b = sandboxtest.Start(t, sandbox.Options{Name: "rep"}) }()
	wg.Wait()
	if a == nil || b == nil {
		t.FailNow()
	}
	ctx := context.Background()
	files := a.Primary.FilesDir()
	schema(t, a.Primary)
	if err := a.Primary.Exec(ctx, "SET GLOBAL long_query_time=0",
		fmt.Sprintf("SET GLOBAL slow_query_log_file='%s'", filepath.Join(files, "slow.log")),
		fmt.Sprintf("SET GLOBAL general_log_file='%s'", filepath.Join(files, "general.log")),
		"SET GLOBAL log_output='FILE'", "SET GLOBAL slow_query_log=1", "SET GLOBAL general_log=1"); err != nil {
		t.Fatal(err)
	}
	runSessions(t, a.Primary.DSN(""))
	if err := a.Primary.Exec(ctx, "SET GLOBAL general_log=0", "SET GLOBAL slow_query_log=0"); err != nil {
		t.Fatal(err)
	}
	checkSteps(t, a.Primary)
	dir := t.TempDir()
	for _, f := range []string{"slow.log", "general.log"} {
		data, err := os.ReadFile(filepath.Join(files, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The statements that switched the logs are captured too, on another session.
	exclude := &ReplayFilter{Fingerprints: []string{"SET GLOBAL general_log=0", "SET GLOBAL slow_query_log=0"}}
	for _, c := range []struct {
		file, timing string
	}{{"slow.log", "original"}, {"general.log", "original"}, {"general.log", "none"}} {
		schema(t, b.Primary)
		tot := replayFile(t, b.Primary, &Replay{File: filepath.Join(dir, c.file), Timing: c.timing, Exclude: exclude})
		what := c.file + " timing " + c.timing
		if tot.Errors != 0 {
			t.Errorf("%s: %d errors: %v", what, tot.Errors, tot.ErrorsByCode)
		}
		sameCounts(t, what, replayedCounts(tot), wantCounts(c.file == "slow.log"))
		checkSteps(t, b.Primary)
		rp := fidelityOf(tot)
		if rp.SessionsReplayed != sessions || rp.StatementsReplayed != int64(sessions*len(sessionWork(1))) || rp.StatementsCaptured != rp.StatementsReplayed+rp.Skipped["exclude"] || rp.Skipped["exclude"] < 1 {
			t.Errorf("%s: fidelity %+v", what, rp)
		}
		if c.timing == "original" && (tot.Lag == nil || tot.Lag.Count() != rp.StatementsReplayed) {
			t.Errorf("%s: schedule lag not recorded for every statement", what)
		}
		if c.file == "slow.log" && rp.RowsMismatches != 0 {
			t.Errorf("%s: %d rows-sent mismatches", what, rp.RowsMismatches)
		}
	}
	// read_only: nothing reaches steps, the temporary tables still work.
	schema(t, b.Primary)
	tot := replayFile(t, b.Primary, &Replay{File: filepath.Join(dir, "slow.log"), ReadOnly: true, Exclude: exclude})
	if tot.Errors != 0 || fidelityOf(tot).Skipped["read_only"] != sessions*writesPerSession {
		t.Errorf("read_only: %d errors, skipped %v, want %d read_only", tot.Errors, fidelityOf(tot).Skipped, sessions*writesPerSession)
	}
	db, err := b.Primary.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM rt.steps").Scan(&n); err != nil || n != 0 {
		t.Errorf("read_only replay wrote %d rows (%v)", n, err)
	}
	// The schedule: a source without start times is refused for timing: original at validate.
	sqlFile := filepath.Join(dir, "plain.sql")
	if err := os.WriteFile(sqlFile, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := Workload(sqlFile, Replay{Timing: "original"})
	if errs := validate(w); len(errs) != 1 || !strings.Contains(errs[0].Error(), "timing: original needs captured start times") {
		t.Errorf("validate timing: original on a SQL file: %v", errs)
	}
}

// TestCaptureRoundTrip: capture records the sessions on sandbox A (through the slow log table,
// then through performance_schema), and the capture file replays on sandbox B with every
// statement succeeding, the counts per fingerprint of what ran, and each session's order and
// state (B's rows say so). The settings capture changed are back as they were.
func TestCaptureRoundTrip(t *testing.T) {
	sandboxtest.SkipShort(t)
	var a, b *sandbox.Cluster
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a = sandboxtest.Start(t, sandbox.Options{Name: "cap", Config: []sandbox.Option{{Name: "performance_schema", Value: "ON"}}})
	}()
	go func() { defer wg.Done(); b = sandboxtest.Start(t, sandbox.Options{Name: "rep"}) }()
	wg.Wait()
	if a == nil || b == nil {
		t.FailNow()
	}
	db, err := a.Primary.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	settings := func() string {
		var s string
		if err := db.QueryRow("SELECT CONCAT_WS(' ', @@GLOBAL.log_output, @@GLOBAL.slow_query_log, @@GLOBAL.long_query_time, " +
			"(SELECT GROUP_CONCAT(ENABLED) FROM performance_schema.setup_consumers))").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := settings()
	for _, method := range []string{capture.SlowLog, capture.PerfSchm} {
		schema(t, a.Primary)
		out := filepath.Join(t.TempDir(), "traffic.qcap")
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		w, err := traffic.NewWriter(f, traffic.QCapHeader{Created: time.Now(), Source: method, Timed: true})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		started := make(chan struct{})
		go func() {
			_, err := capture.Run(context.Background(), db, w, capture.Options{Duration: 3 * time.Second, Method: method, Logf: t.Logf,
				Started: func() { close(started) }})
			done <- err
		}()
		select {
		case <-started:
		case err := <-done:
			t.Fatalf("%s: %v", method, err)
		}
		runSessions(t, a.Primary.DSN(""))
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		f.Close()
		if got := settings(); got != before {
			t.Errorf("%s: settings after the capture %q, before %q", method, got, before)
		}
		// performance_schema records each statement's outcome (MYSQL_ERRNO), the slow log
		// table does not.
		wantErr := map[string]int{capture.SlowLog: -1, capture.PerfSchm: 0}[method]
		qf, err := traffic.Open(out, traffic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for {
			s, err := qf.Next()
			if err != nil {
				break
			}
			if s.Error != wantErr {
				t.Errorf("%s: %q captured with error %d, want %d", method, s.Text, s.Error, wantErr)
				break
			}
		}
		qf.Close()
		schema(t, b.Primary)
		tot := replayFile(t, b.Primary, &Replay{File: out, Timing: "original"})
		if tot.Errors != 0 || fidelityOf(tot).ErrorsUnlikeCapture != 0 {
			t.Errorf("%s: %d errors: %v, %d unlike the capture", method, tot.Errors, tot.ErrorsByCode, fidelityOf(tot).ErrorsUnlikeCapture)
		}
		sameCounts(t, method, replayedCounts(tot), wantCounts(method == capture.SlowLog))
		checkSteps(t, b.Primary)
	}
}

// TestSessionsConnectWhenTheyRun: a session connects shortly before its first statement and
// disconnects after its last, so a capture of sessions that never overlapped never holds all of
// their connections at once (they are half a second apart; all ten at once would need the
// replay to stall for four and a half seconds).
func TestSessionsConnectWhenTheyRun(t *testing.T) {
	const n = 10
	path := filepath.Join(t.TempDir(), "seq.qcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := traffic.NewWriter(f, traffic.QCapHeader{Timed: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1700000000, 0)
	for i := range n {
		for j, text := range []string{"SELECT 1", "SELECT 2"} {
			st := traffic.Statement{Session: uint64(100 + i), Start: start.Add(time.Duration(i)*500*time.Millisecond + time.Duration(j)*10*time.Millisecond),
				Duration: -1, RowsSent: -1, RowsExamined: -1, Text: text}
			if err := w.Write(&st); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c := sandboxtest.Start(t, sandbox.Options{Name: "seq"})
	db, err := c.Primary.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("FLUSH STATUS"); err != nil {
		t.Fatal(err)
	}
	tot := replayFile(t, c.Primary, &Replay{File: path, Timing: "original"})
	if tot.Errors != 0 || fidelityOf(tot).SessionsReplayed != n || fidelityOf(tot).StatementsReplayed != 2*n {
		t.Fatalf("replay: %d errors, %+v", tot.Errors, fidelityOf(tot))
	}
	var name string
	var most int
	if err := db.QueryRow("SHOW GLOBAL STATUS LIKE 'Max_used_connections'").Scan(&name, &most); err != nil {
		t.Fatal(err)
	}
	// Our own connection plus the replay's.
	if most > n {
		t.Errorf("Max_used_connections %d: the replay held every session's connection at once (%d sessions)", most, n)
	}
}

// MariaDB 10.11's slow log of sessions that had no default database writes
// "Schema:   QC_hit: No": they replay without one, with no error, instead of every
// session failing with 1049 on a database named "QC_hit:".
func TestSlowLogWithoutADefaultDatabaseReplays(t *testing.T) {
	var log strings.Builder
	log.WriteString("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime                Id Command  Argument\n")
	for s := 1; s <= 3; s++ {
		for q := 1; q <= 3; q++ {
			fmt.Fprintf(&log, "# Time: 261201 10:00:%02d\n# User@Host: app[app] @ localhost []\n# Thread_id: %d  Schema:   QC_hit: No\n"+
				"# Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\n# Rows_affected: 0  Bytes_sent: 58\n"+
				"SET timestamp=%d;\nSELECT %d AS q, DATABASE() IS NULL AS no_db;\n", s*3+q, 10+s, 1796112000+s*3+q, q)
		}
	}
	path := filepath.Join(t.TempDir(), "slow.log")
	if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := sandboxtest.Start(t, sandbox.Options{Name: "noschema"}).Primary
	tot := replayFile(t, s, &Replay{File: path})
	if tot.Errors != 0 || fidelityOf(tot).StatementsReplayed != 9 || fidelityOf(tot).SessionsReplayed != 3 {
		t.Errorf("replayed %d of 9 statements in %d of 3 sessions with %d errors (%v)", fidelityOf(tot).StatementsReplayed, fidelityOf(tot).SessionsReplayed, tot.Errors, tot.ErrorsByCode)
	}
}
