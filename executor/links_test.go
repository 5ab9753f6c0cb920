package executor

import (
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A sandbox's links put the round trip of production between its parts: with a 40 ms
// replica link, a semi-synchronous commit waits at least 40 ms (plus the client link's
// 4 ms), an asynchronous one at least the client's 4 ms; run.json has each link as
// configured and as measured. The semi-sync iteration comes after a restore (the datadirs
// put back, the servers restarted): the replica still replicates through its link. Lower
// bounds only: a busy host makes everything slower.
func TestLinksSemisyncPaysTheRoundTrip(t *testing.T) {
	const n = 30
	run, out, err := runPlan(t, plantest.Sandbox("links", `{replicas: 1, links: {client: {rtt: 4ms}, replicas: {rtt: "${{ matrix.rtt }}"}}}`, `setup:
  - sql: "CREATE DATABASE IF NOT EXISTS bench"
matrix:
  rtt: [40ms]
  replication: [async, semisync]
iteration:
  restore: setup
  globals:
    rpl_semi_sync_master_enabled: "${{ matrix.replication == 'semisync' ? 'ON' : 'OFF' }}"
    rpl_semi_sync_master_timeout: 30000
  before:
    - set_global: {rpl_semi_sync_slave_enabled: "${{ matrix.replication == 'semisync' ? 'ON' : 'OFF' }}"}
      target: db_replica1
    - sql: "STOP SLAVE IO_THREAD; START SLAVE IO_THREAD"
      target: db_replica1
    - wait: {target: db, until: "matrix.replication == 'async' || status.Rpl_semi_sync_master_clients == 1", timeout: 60s}
    - sql: "DROP TABLE IF EXISTS bench.t; CREATE TABLE bench.t (id INT PRIMARY KEY)"
  workload:
    transactions:
      - name: ins
        statements: [{sql: "INSERT INTO bench.t VALUES (?)", args: ["seq()"]}]
    events: 30
  assert: ["errors == 0"]
watch:
  status: [Rpl_semi_sync_master_yes_tx, Rpl_semi_sync_master_no_tx]
`), nil, Options{})
	requireDone(t, run, out, err, 2)
	p50 := map[int]float64{}
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, "target") == "db" {
			p50[len(p50)] = col(t, run.Summary, i, "p50_ms")
			if i > 0 && len(p50) == 2 {
				if yes := col(t, run.Summary, i, "status.Rpl_semi_sync_master_yes_tx"); yes < n {
					t.Errorf("semisync iteration: %v commits acknowledged semi-synchronously, want %d (it fell back to async)", yes, n)
				}
			}
		}
	}
	// The links' delays as set: calibration lowers a delay by what the proxy itself adds (its
	// timers, its hops), never below half; a link never delivers before its time.
	set := func(it int, name string) float64 {
		for _, l := range run.Info.Iterations[it].Links {
			if l.Name() == name {
				return setRTT(l)
			}
		}
		t.Fatalf("iteration %d has no link %s", it+1, name)
		return 0
	}
	if client := set(0, "client -> db"); p50[0] < client {
		t.Errorf("async commit p50 %.3f ms through a 4 ms client link (set to %.3f), want at least that", p50[0], client)
	}
	if both := set(1, "client -> db") + set(1, "db -> db_replica1"); p50[1] < both {
		t.Errorf("semisync commit p50 %.3f ms with a 40 ms replica link and a 4 ms client link (set to %.3f together), want at least that", p50[1], both)
	}
	t.Logf("commit p50: async %.2f ms, semisync %.2f ms", p50[0], p50[1])
	for _, it := range run.Info.Iterations {
		checkLinks(t, it)
	}
}

func checkLinks(t *testing.T, it results.IterationInfo) {
	t.Helper()
	want := map[string]float64{"client -> db": 4, "db -> db_replica1": 40}
	if len(it.Links) != len(want) {
		t.Fatalf("iteration %d: links %+v, want %d", it.Index, it.Links, len(want))
	}
	for _, l := range it.Links {
		rtt, ok := want[l.Name()]
		switch {
		case !ok:
			t.Errorf("iteration %d: link %s, want one of %v", it.Index, l.Name(), want)
		case l.Configured.RTTMs != rtt:
			t.Errorf("iteration %d: link %s configured %+v, want rtt %v ms", it.Index, l.Name(), l.Configured, rtt)
		case l.Measured == nil:
			t.Errorf("iteration %d: link %s not measured: %s", it.Index, l.Name(), l.ProbeError)
		case setRTT(l) < rtt/2 || setRTT(l) > rtt:
			t.Errorf("iteration %d: link %s calibrated to a round trip of %v ms, want between half its configured %v and all of it", it.Index, l.Name(), setRTT(l), rtt)
		case l.Measured.RTTMsP50 < setRTT(l) || l.Measured.Probes != probes:
			t.Errorf("iteration %d: link %s measured %+v, want a round trip of at least its %v ms over %d pings", it.Index, l.Name(), *l.Measured, setRTT(l), probes)
		case l.Workload == nil || l.Workload.BytesDown == 0 || l.Workload.BytesUp == 0 || l.Workload.Delayed == 0:
			t.Errorf("iteration %d: link %s carried %+v during the workload, want bytes both ways, delayed", it.Index, l.Name(), l.Workload)
		}
	}
}

// With a client link, the link is the target's front: a failover drill switches it to the
// promoted replica and the workload follows (its connections cut, reconnected, committing
// again on the new primary through the link); the next iteration starts from restore: with
// the link back on the primary, the replica replicating through its own link again.
func TestLinksClientLinkIsTheFront(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("linkfront", `{replicas: 1, links: {client: {rtt: 2ms}, replicas: {rtt: 2ms}}}`, `setup:
  - sql: "CREATE DATABASE IF NOT EXISTS bench; CREATE TABLE bench.t (id BIGINT PRIMARY KEY)"
repeat: 2
iteration:
  restore: setup
  workload:
    transactions:
      - name: ins
        statements: [{sql: "INSERT IGNORE INTO bench.t VALUES (?)", args: ["seq()"]}]
    threads: 2
    duration: 8s
    on_error: {reconnect: [2013, 2006, 2003]}
  during:
    - at: 1s
      failover: {fault: switchover, lead: 500ms, writers: 1}
  assert:
    - "failover_acked > 0 && failover_acked_lost == 0 && reconnects > 0"
`), nil, Options{})
	requireDone(t, run, out, err, 2)
	for _, it := range run.Info.Iterations {
		for _, l := range it.Links {
			if l.Measured == nil || l.Measured.RTTMsP50 < setRTT(l) || l.Workload == nil || l.Workload.BytesDown == 0 {
				t.Errorf("iteration %d: link %s measured %+v, carried %+v", it.Index, l.Name(), l.Measured, l.Workload)
			}
		}
		if len(it.Links) != 2 {
			t.Errorf("iteration %d: links %+v", it.Index, it.Links)
		}
	}
	ts := run.Timeseries["db"]
	if ts == nil || len(ts.Rows) == 0 {
		t.Fatal("no time series for db")
	}
	if n, ok := ts.Float(len(ts.Rows)-1, "tps"); !ok || n == 0 {
		t.Errorf("last interval: %v tps: the workload did not follow the primary through the link", n)
	}
}

// setRTT is the round trip a link's delay was set to: the configured one unless calibration
// lowered it.
func setRTT(l results.Link) float64 {
	if l.SetRTTMs > 0 {
		return l.SetRTTMs
	}
	return l.Configured.RTTMs
}

// Calibration lowers a link's delay by the excess its probe measured over the configured
// round trip (above the direct one), never below half, and leaves a link within 50 µs alone.
func TestCalibratedDelay(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	for _, c := range []struct {
		delay           time.Duration
		through, direct float64
		want            time.Duration
	}{
		{ms(1), 2.44, 0.06, ms(1) - ms(0.19)}, // a quiet host: 0.38 ms too much
		{ms(1), 2.08, 0.05, ms(1)},            // within 50 µs
		{ms(1), 1.90, 0.05, ms(1)},            // under: never raised
		{ms(1), 6.00, 0.06, ms(0.5)},          // a busy moment: at most half taken away
		{ms(20), 40.9, 0.1, ms(20) - ms(0.4)},
	} {
		got := calibrated(c.delay, results.LinkProbe{RTTMsP50: c.through, DirectRTTMsP50: c.direct})
		if d := got - c.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("delay %v, through %v ms, direct %v ms: calibrated to %v, want %v", c.delay, c.through, c.direct, got, c.want)
		}
	}
}
