package executor

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// wsrepNodes are the targets of a 3-node Galera sandbox named db.
var wsrepNodes = []string{"db", "db_node2", "db_node3"}

// insertPlan is a plan on a 3-node Galera sandbox: threads write rows to node target for a
// few seconds, after setup (on node 1 unless setup says another) makes the table.
func insertPlan(name, target, setup string) string {
	return plantest.Sandbox(name, "{galera: 3}", `setup:
  - sql: "CREATE DATABASE bench; CREATE TABLE bench.t (id INT PRIMARY KEY)"
`+setup+`iteration:
  target: `+target+`
  workload:
    transactions:
      - name: ins
        statements: [{sql: "INSERT INTO bench.t VALUES (?)", args: ["seq()"]}]
    threads: 4
    duration: 6s
`)
}

// Every node of a Galera sandbox has the wsrep.* columns in its time series, with no watch:
// key, whichever node the workload runs on (node 2 here: node 1 and node 3 are watched too,
// as its cluster): each counts 3 nodes, is Primary and Synced at every tick; node 2's write
// sets replicated are a per-second rate at each tick (their sum over the ticks is the
// workload's transactions per second summed, not a growing total) and in the summary the
// increase, the workload's transactions; run.json describes the columns (a counter, a
// gauge, from SHOW GLOBAL STATUS), as results.Run.Describe says them to a reader.
func TestGaleraWsrepColumns(t *testing.T) {
	const on = "db_node2"
	run, out, err := runPlan(t, insertPlan("wsrep", on, ""), nil, Options{})
	requireDone(t, run, out, err, 1)
	for _, node := range wsrepNodes {
		ts := run.Timeseries[node]
		if ts == nil || len(ts.Rows) == 0 {
			t.Fatalf("no time series of %s (only of %v): every node is watched", node, slices.Collect(maps.Keys(run.Timeseries)))
		}
		for i := range ts.Rows {
			for name, want := range map[string]float64{"wsrep.cluster_size": 3, "wsrep.primary": 1, "wsrep.local_state": 4} {
				if v, ok := ts.Float(i, name); !ok || v != want {
					t.Errorf("%s row %d: %s = %q, want %v", node, i, name, ts.Value(i, name), want)
				}
			}
		}
	}
	ts := run.Timeseries[on]
	var tps, replicated float64
	for i := range ts.Rows {
		tps += col(t, ts, i, "tps")
		if v, ok := ts.Float(i, "wsrep.replicated"); ok {
			replicated += v
		}
	}
	if tps <= 0 || replicated < tps*0.8 || replicated > tps*1.25+5 {
		t.Errorf("%s: the time series' wsrep.replicated adds up to %v over the ticks, its tps to %v: want about the same (per-second rates of the same write sets)", on, replicated, tps)
	}
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, "target") != on {
			continue
		}
		tx, ws := col(t, run.Summary, i, "transactions"), col(t, run.Summary, i, "wsrep.replicated")
		if tx <= 0 || ws < tx*0.95 || ws > tx*1.05+5 {
			t.Errorf("%s's summary: wsrep.replicated %v over the measured part, in which %v transactions committed", on, ws, tx)
		}
	}
	for name, kind := range map[string]string{"wsrep.fc_sent": "counter", "wsrep.fc_paused_s": "counter", "wsrep.cluster_size": "gauge", "wsrep.recv_queue": "gauge"} {
		c := run.Describe(results.TimeseriesCSV, name)
		if c.Role != results.RoleWatched || string(c.Kind) != kind || !strings.Contains(c.Source, "wsrep") {
			t.Errorf("run.Describe(%s) = role %s, kind %s, source %q; want watched, %s, SHOW GLOBAL STATUS LIKE 'wsrep%%'", name, c.Role, c.Kind, c.Source, kind)
		}
	}
}

// nodeSignal sends sig to the mariadbd of node (db_node3) of the sandbox the run starts
// under dir, its pid from the node's pid file: the node is this run's own, whatever other
// sandboxes the host runs.
func nodeSignal(t *testing.T, dir, node string, sig syscall.Signal) {
	files, _ := filepath.Glob(filepath.Join(dir, "*", node, "mysqld.pid"))
	if len(files) != 1 {
		t.Errorf("%s's pid file under %s: found %v", node, dir, files)
		return
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Errorf("%s's pid: %v", node, err)
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err == nil {
		err = syscall.Kill(pid, sig)
	}
	if err != nil {
		t.Errorf("signal %v to %s: %v", sig, node, err)
	}
}

// A node that falls behind asks the others to pause, and the wsrep.* flow control columns
// show it: db_node3 applies with gcs.fc_limit=1 (a receive queue of more than one write set
// is too long: with the default 16, a quiet host's node may keep up) and is stopped
// (SIGSTOP) for about a second while four threads write to node 1. db_node3 sent flow control, node 1 received it and was paused: counts and seconds in
// the summary, per-second rates in some tick, the paused fraction of an interval within
// 0..1.
func TestGaleraWsrepFlowControl(t *testing.T) {
	dir := sandboxtest.Dir(t)
	var stopped atomic.Bool
	pause := newSchedule(map[[2]int]func(){
		{1, 2}: func() { nodeSignal(t, dir, "db_node3", syscall.SIGSTOP); stopped.Store(true) },
		{1, 3}: func() { nodeSignal(t, dir, "db_node3", syscall.SIGCONT); stopped.Store(false) },
	})
	t.Cleanup(func() { // never leave the node stopped, whatever failed
		if stopped.Load() {
			nodeSignal(t, dir, "db_node3", syscall.SIGCONT)
		}
	})
	plan := strings.Replace(insertPlan("wsrep-fc", "db", `  - sql: "SET GLOBAL wsrep_provider_options = 'gcs.fc_limit=1'"
    target: db_node3
`), "{galera: 3}", "{galera: 3, dir: "+dir+"}", 1)
	run, out, err := runPlan(t, plan, nil, Options{Observer: pause, Allow: trust.Allow{Paths: []string{dir}}})
	requireDone(t, run, out, err, 1)
	sum := func(target, name string) float64 {
		for i := range run.Summary.Rows {
			if run.Summary.Value(i, "target") == target {
				return col(t, run.Summary, i, name)
			}
		}
		t.Fatalf("summary has no row of %s", target)
		return 0
	}
	t.Logf("flow control: db_node3 sent %v, db received %v and was paused %.3f s; db committed %v transactions",
		sum("db_node3", "wsrep.fc_sent"), sum("db", "wsrep.fc_recv"), sum("db", "wsrep.fc_paused_s"), sum("db", "transactions"))
	if n := sum("db_node3", "wsrep.fc_sent"); n <= 0 {
		t.Errorf("db_node3 sent %v flow control messages, want some", n)
	}
	if n := sum("db", "wsrep.fc_recv"); n <= 0 {
		t.Errorf("db received %v flow control messages, want some", n)
	}
	if s := sum("db", "wsrep.fc_paused_s"); s <= 0 {
		t.Errorf("db was paused by flow control for %v s, want some", s)
	}
	for _, node := range []string{"db", "db_node3"} {
		ts := run.Timeseries[node]
		var rows []string
		for i := range ts.Rows {
			rows = append(rows, ts.Value(i, "elapsed_s")+"s: tps "+ts.Value(i, "tps")+" paused "+ts.Value(i, "wsrep.fc_paused_s")+
				" sent "+ts.Value(i, "wsrep.fc_sent")+" recv_queue "+ts.Value(i, "wsrep.recv_queue"))
		}
		t.Logf("%s: %s", node, strings.Join(rows, "; "))
	}
	maxOf := func(target, col string) float64 {
		ts, m := run.Timeseries[target], 0.0
		for i := range ts.Rows {
			if v, ok := ts.Float(i, col); ok {
				if v < 0 {
					t.Errorf("%s row %d: %s = %v, a rate below zero", target, i, col, v)
				}
				m = max(m, v)
			}
		}
		return m
	}
	if m := maxOf("db_node3", "wsrep.fc_sent"); m <= 0 {
		t.Errorf("no tick of db_node3 has flow control sent per second")
	}
	// At most 1 but for the readings' estimated times (a busy host's slow round trip): not
	// nanoseconds, not a growing total.
	if m := maxOf("db", "wsrep.fc_paused_s"); m <= 0 || m > 1.5 {
		t.Errorf("db's largest fraction of an interval paused by flow control is %v, want in (0, 1]", m)
	}
}
