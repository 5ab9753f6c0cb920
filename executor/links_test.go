package executor

import (
	"testing"

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
	if p50[0] < 4 {
		t.Errorf("async commit p50 %.3f ms through a 4 ms client link, want at least 4", p50[0])
	}
	if p50[1] < 44 {
		t.Errorf("semisync commit p50 %.3f ms with a 40 ms replica link and a 4 ms client link, want at least 44", p50[1])
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
		case l.Measured.RTTMsP50 < rtt || l.Measured.Probes != probes:
			t.Errorf("iteration %d: link %s measured %+v, want a round trip of at least %v ms over %d pings", it.Index, l.Name(), *l.Measured, rtt, probes)
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
			if l.Measured == nil || l.Measured.RTTMsP50 < 2 || l.Workload == nil || l.Workload.BytesDown == 0 {
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
