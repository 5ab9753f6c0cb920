package watch

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestRateAndIncrease(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var r Rate
	if v := r.Observe(100, t0); !math.IsNaN(v) {
		t.Fatalf("first reading gave rate %v, want empty", v)
	}
	if v := r.Observe(300, t0.Add(2*time.Second)); v != 100 {
		t.Fatalf("rate = %v, want 100/s", v)
	}
	// A missing reading keeps the previous one; the next rate spans the gap.
	if v := r.Observe(math.NaN(), t0.Add(3*time.Second)); !math.IsNaN(v) {
		t.Fatalf("NaN reading gave %v", v)
	}
	if v := r.Observe(700, t0.Add(6*time.Second)); v != 100 {
		t.Fatalf("rate across gap = %v, want 100/s", v)
	}
	// Reset: the counter restarted from zero; no negative rate, the new value counts as increase.
	if v := r.Observe(50, t0.Add(7*time.Second)); !math.IsNaN(v) {
		t.Fatalf("reset gave rate %v, want empty", v)
	}
	if got := r.Increase(); got != 650 {
		t.Fatalf("increase = %v, want 600+50", got)
	}
	if v := r.Observe(50, t0.Add(7*time.Second)); !math.IsNaN(v) {
		t.Fatalf("zero elapsed gave %v, want empty", v)
	}
	r.Rebase()
	r.Observe(80, t0.Add(8*time.Second))
	if r.Increase() != 30 {
		t.Fatalf("increase after rebase = %v, want 30", r.Increase())
	}
}

func TestWrap32(t *testing.T) {
	for _, c := range []struct {
		prev, cur, want uint64
		ok              bool
	}{
		{10, 25, 15, true},
		{1<<32 - 10, 5, 15, true},      // one wrap
		{1_000_000_000, 100, 0, false}, // ran back far: restart, not wrap
	} {
		d, ok := Wrap32(c.prev, c.cur)
		if ok != c.ok || ok && d != c.want {
			t.Errorf("Wrap32(%d, %d) = %d, %v; want %d, %v", c.prev, c.cur, d, ok, c.want, c.ok)
		}
	}
}

func TestOutageWarnsOncePerOutage(t *testing.T) {
	var o Outage
	now := time.Unix(0, 0)
	e := errors.New("down")
	warnings := 0
	for i := 0; i < 5; i++ {
		if o.Fail(now, e) != nil {
			warnings++
		}
	}
	if ended, _ := o.OK(now.Add(5 * time.Second)); !ended {
		t.Fatal("OK after failures did not end the outage")
	}
	if o.Fail(now, e) != nil {
		warnings++
	}
	if warnings != 2 {
		t.Fatalf("%d warnings for two outages, want 2", warnings)
	}
}

func TestGlobs(t *testing.T) {
	g, err := ParseGlobs("watch.status", []string{"Innodb_rows_*", "com_select"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"Innodb_rows_read": true, "INNODB_ROWS_inserted": true, "Com_select": true, "Com_selects": false,
		"Innodb_row_lock_waits": false,
	} {
		if g.Match(name) != want {
			t.Errorf("match %s = %v, want %v", name, !want, want)
		}
	}
	if _, err := ParseGlobs("watch.status", []string{"Com_[sel"}); err == nil {
		t.Error("bad pattern accepted")
	}
	if _, err := ParseGlobs("watch.gauges", []string{" "}); err == nil {
		t.Error("empty pattern accepted")
	}
}

func TestStatusKind(t *testing.T) {
	counters := []string{"Com_select", "Handler_read_key", "Innodb_rows_read", "Innodb_data_fsyncs", "Innodb_log_writes",
		"Bytes_sent", "Created_tmp_disk_tables", "Select_scan", "Questions", "Slow_queries", "Threads_created",
		"Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_row_lock_waits", "Innodb_data_written",
		"connections", "Rpl_semi_sync_master_yes_tx", "Rpl_semi_sync_source_yes_tx", "Rpl_semi_sync_source_no_tx"}
	gauges := []string{"Threads_running", "Threads_connected", "Open_tables", "Innodb_buffer_pool_pages_dirty",
		"Innodb_buffer_pool_pages_free", "Innodb_buffer_pool_bytes_data", "Innodb_data_pending_reads",
		"Innodb_row_lock_current_waits", "Max_used_connections", "Innodb_row_lock_time_avg", "Uptime",
		"Rpl_semi_sync_master_status", "Rpl_semi_sync_master_clients",
		// MySQL 8.0.26+/8.4 names (the manual's semi-sync status variables)
		"Rpl_semi_sync_source_status", "Rpl_semi_sync_source_clients", "Rpl_semi_sync_source_wait_sessions",
		"Rpl_semi_sync_source_tx_avg_wait_time", "Rpl_semi_sync_replica_status"}
	for _, n := range counters {
		if StatusKind(n) != Counter {
			t.Errorf("%s: gauge, want counter", n)
		}
	}
	for _, n := range gauges {
		if StatusKind(n) != Gauge {
			t.Errorf("%s: counter, want gauge", n)
		}
	}
	c := Classifier{Counters: Globs{"uptime"}, Gauges: Globs{"com_*"}}
	if c.Kind("Uptime") != Counter || c.Kind("Com_select") != Gauge || c.Kind("Questions") != Counter {
		t.Error("overrides not applied")
	}
	both := Classifier{Counters: Globs{"x_*"}, Gauges: Globs{"x_*"}}
	if both.Kind("x_y") != Gauge {
		t.Error("a name in both override lists must be a gauge")
	}
}

func TestParseValue(t *testing.T) {
	for s, want := range map[string]float64{"42": 42, " 1.5 ": 1.5, "ON": 1, "off": 0, "YES": 1, "No": 0} {
		if v, ok := ParseValue(s); !ok || v != want {
			t.Errorf("ParseValue(%q) = %v, %v; want %v", s, v, ok, want)
		}
	}
	for _, s := range []string{"", "NULL", "AUTH_MASTER", "Buffer pool(s) load completed"} {
		if _, ok := ParseValue(s); ok {
			t.Errorf("ParseValue(%q) accepted", s)
		}
	}
}

// A replaced source counts its first reading as new increase and gives no rate, even when it is higher than
// the old source's last reading.
func TestRateRestart(t *testing.T) {
	var r Rate
	t0 := time.Unix(0, 0)
	r.Observe(100, t0)
	r.Observe(150, t0.Add(time.Second))
	r.Restart()
	if v := r.Observe(400, t0.Add(2*time.Second)); !math.IsNaN(v) {
		t.Fatalf("rate across a restart %v, want none", v)
	}
	if v := r.Observe(410, t0.Add(3*time.Second)); v != 10 {
		t.Fatalf("rate after a restart %v, want 10", v)
	}
	if r.Increase() != 50+400+10 {
		t.Fatalf("increase %v", r.Increase())
	}
}

// A counter read through a front that moved to another server: the first reading of the new
// server gives no rate and adds nothing (neither its count since it started nor the drop or
// rise from the old server's), and the increase so far stays.
func TestRateMovedStartsAnew(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var r Rate
	r.Observe(1000, t0)
	r.Observe(1500, t0.Add(time.Second)) // +500 on the old primary
	r.Moved()
	if v := r.Observe(90000, t0.Add(2*time.Second)); !math.IsNaN(v) {
		t.Fatalf("first reading of the new server gave rate %v, want empty", v)
	}
	if v := r.Observe(90200, t0.Add(3*time.Second)); v != 200 {
		t.Fatalf("rate on the new server = %v, want 200/s", v)
	}
	if got := r.Increase(); got != 700 {
		t.Fatalf("increase = %v, want 500 on the old server + 200 on the new", got)
	}
}
