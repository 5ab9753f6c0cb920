package mysqlwatch

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/results"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/watch"
)

func integration(t *testing.T) {
	t.Helper()
	t.Parallel()
}

func tick(t *testing.T, s watch.Sampler) (map[string]float64, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	at := time.Now()
	smp, err := s.Sample(ctx, at)
	cols := s.Columns()
	if !smp.At.Equal(at) || len(smp.Values) != len(cols) {
		t.Fatalf("sample stamped %v with %d values, want %v and %d", smp.At, len(smp.Values), at, len(cols))
	}
	m := make(map[string]float64, len(cols))
	for i, c := range cols {
		m[c.Name] = smp.Values[i]
	}
	return m, err
}

func startStatus(t *testing.T, cfg StatusConfig) *Status {
	t.Helper()
	s, err := NewStatus(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func selects(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		var x int
		if err := db.QueryRow("SELECT 1").Scan(&x); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStatusRatesMatchWork: Com_select as rate and as increase matches SELECTs run on another connection.
// The sampler's own SHOW GLOBAL STATUS counts as Com_show_status, not Com_select, so the counts are exact
// up to other sessions (none in a sandbox). Rates are checked against bounds derived from the known count
// and the wall-clock span around the two reads, not against timing expectations.
func TestStatusRatesMatchWork(t *testing.T) {
	integration(t)
	c := sandboxtest.Start(t, sandbox.Options{Name: "wstat"})
	s := startStatus(t, StatusConfig{DSN: c.Primary.DSN(""), Status: []string{"com_select", "Handler_read_*", "Threads_connected", "Uptime"}})
	ctx := context.Background()
	names := map[string]watch.Kind{}
	for _, col := range s.Columns() {
		names[col.Name] = col.Kind
	}
	for name, kind := range map[string]watch.Kind{"status.Com_select": watch.Counter, "status.Handler_read_key": watch.Counter,
		"status.Threads_connected": watch.Gauge, "status.Uptime": watch.Gauge} {
		if k, ok := names[name]; !ok || k != kind {
			t.Fatalf("column %s: %v, %v; want %v (columns %v)", name, k, ok, kind, s.Columns())
		}
	}
	work := sandboxtest.DB(t, c.Primary.DSN(""), 1)
	selects(t, work, 1) // connect outside the measured span
	prevBefore := time.Now()
	if err := s.Baseline(ctx); err != nil {
		t.Fatal(err)
	}
	prevAfter := time.Now()
	total := 0
	for i, n := range []int{300, 1000, 0, 500} {
		selects(t, work, n)
		total += n
		before := time.Now()
		m, err := tick(t, s)
		after := time.Now()
		if err != nil {
			t.Fatal(err)
		}
		// Each read happened inside its Sample (or Baseline) call, so the interval between two reads lies
		// between before-prevAfter and after-prevBefore; the SELECTs in it are exactly n.
		rate := m["status.Com_select"]
		lo, hi := float64(n)/after.Sub(prevBefore).Seconds(), float64(n)/before.Sub(prevAfter).Seconds()
		if !(rate >= lo*0.999 && rate <= hi*1.001) {
			t.Errorf("tick %d: %d SELECTs, Com_select rate %.1f/s outside [%.1f, %.1f]", i, n, rate, lo, hi)
		}
		if m["status.Threads_connected"] < 2 {
			t.Errorf("Threads_connected = %v, want >= 2 (sampler + workload)", m["status.Threads_connected"])
		}
		prevBefore, prevAfter = before, after
	}
	sum := s.Summary()
	if inc := sum["status.Com_select"]; inc < float64(total) || inc > float64(total+5) {
		t.Errorf("Com_select increase %v, want %d (+5 for stray sessions)", inc, total)
	}
	if up, ok := sum["status.Uptime"]; !ok || up < 0 {
		t.Errorf("summary Uptime (gauge: last value) = %v, %v", up, ok)
	}
}

// TestStatusResetAndOutage: a killed server gives empty cells and one warning however long it is down; after
// the restart the counters went back to near zero, which is a reset: empty rate, never a negative one, and
// the summary's increase includes the work on both sides.
func TestStatusResetAndOutage(t *testing.T) {
	integration(t)
	c := sandboxtest.Start(t, sandbox.Options{Name: "wreset"})
	s := startStatus(t, StatusConfig{DSN: c.Primary.DSN("")})
	ctx := context.Background()
	if err := s.Baseline(ctx); err != nil {
		t.Fatal(err)
	}
	work := sandboxtest.DB(t, c.Primary.DSN(""), 1)
	selects(t, work, 400)
	var all []map[string]float64
	m, err := tick(t, s)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, m)
	if err := c.Primary.Kill(); err != nil {
		t.Fatal(err)
	}
	warnings := 0
	for i := 0; i < 3; i++ {
		m, err := tick(t, s)
		if err != nil {
			warnings++
			if !errors.Is(err, watch.ErrUnavailable) {
				t.Errorf("warning %v does not wrap ErrUnavailable", err)
			}
		}
		for name, v := range m {
			if !math.IsNaN(v) {
				t.Fatalf("server down, but %s = %v", name, v)
			}
		}
	}
	if warnings != 1 {
		t.Fatalf("%d warnings for one outage, want 1", warnings)
	}
	if err := c.Primary.Restart(ctx, nil); err != nil {
		t.Fatal(err)
	}
	m, err = tick(t, s)
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if v := m["status.Com_select"]; !math.IsNaN(v) {
		t.Errorf("first Com_select after a restart = %v, want empty (reset)", v)
	}
	if v := m["status.Threads_connected"]; !(v >= 1) {
		t.Errorf("Threads_connected after restart = %v", v)
	}
	all = append(all, m)
	selects(t, sandboxtest.DB(t, c.Primary.DSN(""), 1), 100)
	m, err = tick(t, s)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, m)
	if v := m["status.Com_select"]; !(v > 0) {
		t.Errorf("Com_select rate after the reset = %v, want > 0", v)
	}
	for _, m := range all {
		for name, v := range m {
			if v < 0 {
				t.Errorf("%s = %v: negative", name, v)
			}
		}
	}
	if inc := s.Summary()["status.Com_select"]; inc < 500 {
		t.Errorf("Com_select increase %v across the restart, want >= 400 + 100", inc)
	}
}

func TestStatusStartErrors(t *testing.T) {
	integration(t)
	c := sandboxtest.Start(t, sandbox.Options{Name: "wserr"})
	ctx := context.Background()
	// every unknown name in one message, each with the server's closest name
	// (a name MySQL has and MariaDB 10.8+ no longer, Innodb_os_log_fsyncs, is far from
	// every spelling of the server's, and still gets its closest)
	s, err := NewStatus(StatusConfig{DSN: c.Primary.DSN(""), Status: []string{"Com_selct", "Com_insert", "Innodb_data_fsync", "Innodb_os_log_fsyncs"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err == nil || !strings.Contains(err.Error(),
		`does not have: "Com_selct" (did you mean "Com_select"?), "Innodb_data_fsync" (did you mean "Innodb_data_fsyncs"?), "Innodb_os_log_fsyncs" (`) ||
		!regexp.MustCompile(`"Innodb_os_log_fsyncs" \([^)]*"Innodb_\w+"\)`).MatchString(err.Error()) {
		t.Errorf("unknown variables, each with the server's closest name: %v", err)
	}
	s.Close()
	s, _ = NewStatus(StatusConfig{DSN: strings.Replace(c.Primary.DSN(""), "root:"+c.Password()+"@", "nobody:secretpw@", 1)})
	if err := s.Start(ctx); err == nil || !strings.Contains(err.Error(), "1045") || strings.Contains(err.Error(), "secretpw") {
		t.Errorf("wrong user: %v", err)
	}
	if _, err := NewStatus(StatusConfig{Gauges: []string{"[x"}}); err == nil {
		t.Error("bad glob accepted")
	}
	// A glob takes numeric variables only; ON/OFF counts as numeric.
	s, _ = NewStatus(StatusConfig{DSN: c.Primary.DSN(""), Status: []string{"Ssl_*", "Innodb_have_*", "Rpl_semi_sync_master_status"}})
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, col := range s.Columns() {
		if col.Name == "status.Ssl_cipher" {
			t.Errorf("non-numeric Ssl_cipher became a column")
		}
	}
	m, err := tick(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := m["status.Rpl_semi_sync_master_status"]; !ok || v != 0 {
		t.Errorf("Rpl_semi_sync_master_status (OFF) = %v, %v; want 0", v, ok)
	}
}

func TestVariablesDiff(t *testing.T) {
	integration(t)
	c := sandboxtest.Start(t, sandbox.Options{Name: "wvars"})
	ctx := context.Background()
	db := sandboxtest.DB(t, c.Primary.DSN(""), 1)
	before, err := target.Variables(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 300 || before["max_connections"] == "" {
		t.Fatalf("%d variables, max_connections=%q", len(before), before["max_connections"])
	}
	if _, err := db.Exec("SET GLOBAL max_connections = 77"); err != nil {
		t.Fatal(err)
	}
	after, err := target.Variables(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	d := results.DiffVariables(before, after)
	if len(d.Changed) != 1 || d.Changed[0] != (results.VarChange{Name: "max_connections", Before: before["max_connections"], After: "77"}) || len(d.Added)+len(d.Removed) != 0 {
		t.Fatalf("diff = %+v", d)
	}
	delete(after, "max_connections")
	after["new_plugin_var"] = "1"
	after["gtid_binlog_pos"] = "0-1-5"
	d = results.DiffVariables(before, after)
	if len(d.Changed) != 0 || len(d.Added) != 1 || d.Added[0].Name != "new_plugin_var" || len(d.Removed) != 1 || d.Removed[0].Name != "max_connections" {
		t.Fatalf("diff = %+v", d)
	}
	if results.DiffVariables(before, before).Empty() != true {
		t.Fatal("diff of a snapshot with itself is not empty")
	}
}

func TestQueries(t *testing.T) {
	integration(t)
	c := sandboxtest.Start(t, sandbox.Options{Name: "wq"})
	ctx := context.Background()
	q, err := NewQueries(QueriesConfig{DSN: c.Primary.DSN(""), Queries: []Query{
		{Name: "hist_len", SQL: "SELECT count FROM information_schema.innodb_metrics WHERE name='trx_rseg_history_len'"},
		{Name: "multi", SQL: "SELECT 1 AS a, 'text' AS s, 2.5 AS b UNION ALL SELECT 9, 'x', 9"},
		{Name: "none", SQL: "SELECT COUNT(*) AS n FROM information_schema.tables GROUP BY table_schema HAVING n < 0"},
		{Name: "conns", SQL: "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME='THREADS_CONNECTED'"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var names []string
	for _, col := range q.Columns() {
		names = append(names, col.Name)
	}
	if got := strings.Join(names, ","); got != "query.hist_len,query.multi.a,query.multi.b,query.none,query.conns" {
		t.Fatalf("columns %s", got)
	}
	m, err := tick(t, q)
	if err != nil {
		t.Fatal(err)
	}
	if m["query.hist_len"] < 0 || math.IsNaN(m["query.hist_len"]) || m["query.multi.a"] != 1 || m["query.multi.b"] != 2.5 ||
		!math.IsNaN(m["query.none"]) || !(m["query.conns"] >= 1) {
		t.Fatalf("values %v", m)
	}
	if sum := q.Summary(); sum["query.multi.b"] != 2.5 {
		t.Fatalf("summary %v", sum)
	}
	for _, bad := range []struct{ sql, want string }{
		{"SELECT 'a' AS x", "no numeric column"},
		{"SELEC 1", "query bad"},
	} {
		q, _ := NewQueries(QueriesConfig{DSN: c.Primary.DSN(""), Queries: []Query{{Name: "bad", SQL: bad.sql}}})
		if err := q.Start(ctx); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.sql, err, bad.want)
		}
		q.Close()
	}
	if _, err := NewQueries(QueriesConfig{Queries: []Query{{Name: "a", SQL: "SELECT 1"}, {Name: "a", SQL: "SELECT 2"}}}); err == nil {
		t.Error("duplicate names accepted")
	}
}

// TestReplication: a sandbox replica reports both threads running and catches up to lag 0 with its
// positions equal to what it read; the primary, not a replica, gives empty cells without a warning.
func TestReplication(t *testing.T) {
	integration(t)
	c := sandboxtest.Start(t, sandbox.Options{Name: "wrepl", Replicas: 1})
	ctx := context.Background()
	r := NewReplication(ReplicationConfig{DSN: c.Replicas[0].DSN("")})
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := sandboxtest.DB(t, c.Primary.DSN(""), 1).Exec("CREATE DATABASE wr"); err != nil {
		t.Fatal(err)
	}
	var m map[string]float64
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		if m, err = tick(t, r); err != nil {
			t.Fatal(err)
		}
		if m["repl.lag_s"] == 0 && m["repl.apply_backlog_bytes"] == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if m["repl.io_running"] != 1 || m["repl.sql_running"] != 1 || m["repl.lag_s"] != 0 || !(m["repl.read_pos"] > 0) ||
		m["repl.read_pos"] != m["repl.exec_pos"] {
		t.Fatalf("replica: %v", m)
	}
	p := NewReplication(ReplicationConfig{DSN: c.Primary.DSN("")})
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	m, err := tick(t, p)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range m {
		if !math.IsNaN(v) {
			t.Errorf("primary: %s = %v, want empty", name, v)
		}
	}
	// A stopped SQL thread: sql_running 0 and lag empty (NULL).
	if _, err := sandboxtest.DB(t, c.Replicas[0].DSN(""), 1).Exec("STOP SLAVE SQL_THREAD"); err != nil {
		t.Fatal(err)
	}
	m, err = tick(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if m["repl.sql_running"] != 0 || m["repl.io_running"] != 1 || !math.IsNaN(m["repl.lag_s"]) {
		t.Fatalf("SQL thread stopped: %v", m)
	}
}
