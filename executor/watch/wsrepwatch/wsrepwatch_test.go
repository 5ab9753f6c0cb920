package wsrepwatch

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/results"
)

// reading is a wsrep status as MariaDB 10.11 with galera-4 26.4.23 answers it (names as the
// server spells them; the sampler reads them in lower case).
func reading(pausedNs, sent, certFailures, recvQueue, status, latency string) map[string]string {
	return map[string]string{
		"wsrep_flow_control_paused_ns": pausedNs, "wsrep_flow_control_sent": sent, "wsrep_flow_control_recv": sent,
		"wsrep_local_cert_failures": certFailures, "wsrep_local_bf_aborts": "0", "wsrep_replicated": "100", "wsrep_received": "10",
		"wsrep_local_recv_queue": recvQueue, "wsrep_local_send_queue": "0", "wsrep_cluster_size": "3",
		"wsrep_cluster_status": status, "wsrep_local_state": "4", "wsrep_evs_repl_latency": latency,
	}
}

// value is column name of vals.
func value(t *testing.T, vals []float64, name string) float64 {
	t.Helper()
	for i, c := range columns {
		if c.Name == name {
			return vals[i]
		}
	}
	t.Fatalf("no column %s", name)
	return 0
}

// Counters are rates per second between two readings (flow control paused_ns as seconds
// paused per second), the summary their increase; gauges are read as they are; the cluster
// status is 1 for Primary and 0 otherwise; the replication latency is its window's mean and
// largest in ms, none while the window has no sample.
func TestReadings(t *testing.T) {
	s := New("")
	t0 := time.Date(2026, 12, 6, 16, 0, 0, 0, time.UTC)
	first := s.observe(reading("1000000000", "5", "2", "0", "Primary", "0.0004/0.00115/0.00397/0.0012/6"), t0)
	if v := value(t, first, "wsrep.fc_sent"); !math.IsNaN(v) {
		t.Errorf("a counter's first reading gives %v, want no rate", v)
	}
	for name, want := range map[string]float64{"wsrep.primary": 1, "wsrep.cluster_size": 3, "wsrep.local_state": 4,
		"wsrep.repl_latency_avg_ms": 1.15, "wsrep.repl_latency_max_ms": 3.97} {
		if v := value(t, first, name); math.Abs(v-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	s.Rebase()
	next := s.observe(reading("2000000000", "25", "6", "17", "non-Primary", "0/0/0/0/0"), t0.Add(2*time.Second))
	for name, want := range map[string]float64{"wsrep.fc_paused_s": 0.5, "wsrep.fc_sent": 10, "wsrep.fc_recv": 10,
		"wsrep.cert_failures": 2, "wsrep.bf_aborts": 0, "wsrep.recv_queue": 17, "wsrep.primary": 0} {
		if v := value(t, next, name); math.Abs(v-want) > 1e-9 {
			t.Errorf("%s = %v over 2 s, want %v", name, v, want)
		}
	}
	if v := value(t, next, "wsrep.repl_latency_avg_ms"); !math.IsNaN(v) {
		t.Errorf("a latency window without samples gives %v, want none", v)
	}
	sum := s.Summary()
	for name, want := range map[string]float64{"wsrep.fc_paused_s": 1, "wsrep.fc_sent": 20, "wsrep.cert_failures": 4, "wsrep.recv_queue": 17} {
		if v, ok := sum[name]; !ok || math.Abs(v-want) > 1e-9 {
			t.Errorf("summary %s = %v (%v), want %v", name, v, ok, want)
		}
	}
}

// docs/metrics.md lists every column the sampler gives, with its kind, and a reader without
// run.json (results.Describe) knows each for a watched one.
func TestColumnsDeclared(t *testing.T) {
	md := string(watch.ColumnsMarkdown([]*watch.SamplerKind{&Kind}))
	for _, c := range columns {
		if !strings.Contains(md, "| `"+c.Name+"` | "+string(c.Kind)+" |") {
			t.Errorf("docs/metrics.md's section has no row for %s (%s)", c.Name, c.Kind)
		}
		if d := results.Describe(results.TimeseriesCSV, c.Name); d.Role != results.RoleWatched {
			t.Errorf("results.Describe(%s) is a %s column, want watched", c.Name, d.Role)
		}
	}
}

// On a server that is no Galera node (a plain sandbox: no provider, wsrep_on OFF) the
// sampler opens nothing, and says nothing: it is not the plan's to know.
func TestNotOnAServerWithoutWsrep(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "plain"})
	cfg, err := mysql.ParseDSN(c.Primary.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	env := watch.Env{Logf: func(f string, args ...any) { logged = append(logged, f) }}
	o, err := Kind.Open(nil, &watch.Target{Name: "plain", Config: cfg, DB: sandboxtest.DB(t, c.Primary.DSN(""), 1)}, env)
	if err != nil || o != nil || len(logged) > 0 {
		t.Errorf("Open on a server without wsrep: %+v, %v, logged %q; want nothing", o, err, logged)
	}
}
