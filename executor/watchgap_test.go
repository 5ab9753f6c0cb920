package executor

// A sampler's connection lost costs samples, not the run: the status and replication
// samplers reach their servers through a fault proxy of their own while the workload
// connects directly; the proxy refuses the samplers' first logins and later cuts their
// connections for a few ticks.

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/faulttest"
	"github.com/quadrant-bench/quadrant/executor/watch/snmptest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// samplerFaults keeps the samplers' proxies and cuts their connections from the measured
// interval cutAt to healAt.
type samplerFaults struct {
	t             *testing.T
	cutAt, healAt int
	mu            sync.Mutex
	proxies       []*faulttest.Proxy
	measured      int
	lines         []string
}

// via is Options.watchVia: a proxy per server, resetting every connection until a moment
// after the samplers first try (a server that drops their logins when the run starts).
func (f *samplerFaults) via(target, addr string) string {
	p := faulttest.Start(f.t, addr)
	p.Reset()
	time.AfterFunc(500*time.Millisecond, p.Clear)
	f.mu.Lock()
	f.proxies = append(f.proxies, p)
	f.mu.Unlock()
	return p.Addr
}

func (f *samplerFaults) Logged(line string) {
	f.mu.Lock()
	f.lines = append(f.lines, line)
	f.mu.Unlock()
	f.t.Log(line)
}
func (f *samplerFaults) SandboxStarted(string) {}
func (f *samplerFaults) Working(Work)          {}
func (f *samplerFaults) Interval(p Progress) {
	if !p.Measured {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.measured++
	for _, x := range f.proxies {
		switch f.measured {
		case f.cutAt:
			x.Reset()
		case f.healAt:
			x.Clear()
		}
	}
}

func TestSamplerConnectionLostLosesSamplesNotTheRun(t *testing.T) {
	f := &samplerFaults{t: t, cutAt: 3, healAt: 7}
	run, out, err := runPlan(t, plantest.Sandbox("watchgap", "{replicas: 1}", plantest.Prepare("oltp_point_select", 1, 1000)+`
iteration:
  workload:
    builtin: oltp_point_select
    options: {tables: 1, table_size: 1000}
    threads: 2
    duration: 12s
  assert: ["tps > 0", "status.Com_select > 0"]
watch:
  status: [Com_select, Threads_connected]
  replication: true
`), nil, Options{Observer: f, watchVia: f.via})
	requireDone(t, run, out, err, 1)
	ts := run.Timeseries["db"]
	if ts == nil || len(ts.Rows) < 12 {
		t.Fatalf("time series of db: %v, want the 12 intervals", ts)
	}
	for i := range ts.Rows {
		if tps, ok := ts.Float(i, "tps"); !ok || tps <= 0 {
			t.Errorf("interval %d of the workload: tps %q: the workload lost rows", i, ts.Value(i, "tps"))
		}
	}
	empty := func(target, col string) (n int) {
		d := run.Timeseries[target]
		if d == nil || d.Col(col) < 0 {
			t.Fatalf("%s has no column %s", target, col)
		}
		for i := range d.Rows {
			if v, ok := d.Float(i, col); !ok || math.IsNaN(v) {
				n++
			}
		}
		if n == 0 || n == len(d.Rows) {
			t.Errorf("%s: %d of %d cells of %s empty, want some", target, n, len(d.Rows), col)
		}
		return n
	}
	gaps := map[string]results.WatchGap{}
	for _, g := range run.Info.Iterations[0].WatchGaps {
		gaps[g.Target+" "+g.Sampler] = g
	}
	for _, c := range []struct{ target, sampler, col string }{{"db", "status", "status.Threads_connected"}, {"db_replica1", "replication", "repl.io_running"}} {
		n := empty(c.target, c.col)
		g, ok := gaps[c.target+" "+c.sampler]
		if !ok || g.Missed < n || g.Outages < 1 || g.Error == "" || g.Ticks < len(ts.Rows) {
			t.Errorf("run.json watch_gaps %+v: want %s %s with at least the %d empty cells", run.Info.Iterations[0].WatchGaps, c.target, c.sampler, n)
		}
	}
	var back, warned int
	for _, l := range f.lines {
		if strings.Contains(l, "answers again") {
			back++
		}
		if strings.Contains(l, "readings missed") {
			warned++
		}
	}
	if back < 2 || warned < 2 {
		t.Errorf("the log says %d samplers answered again and warns of %d with missed readings, want 2 each", back, warned)
	}
}

// With watch.on_error: fail, the same lost sampler connection fails the iteration once its
// workload ended, naming the sampler; the workload's rows are still all there.
func TestSamplerGapsFailTheIterationWhenThePlanSaysSo(t *testing.T) {
	f := &samplerFaults{t: t, cutAt: 3, healAt: 5}
	run, out, err := runPlan(t, plantest.Sandbox("watchgapfail", "", plantest.Prepare("oltp_point_select", 1, 1000)+`
iteration:
  workload:
    builtin: oltp_point_select
    options: {tables: 1, table_size: 1000}
    threads: 2
    duration: 8s
watch:
  status: [Com_select]
  on_error: fail
`), nil, Options{Observer: f, watchVia: f.via})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.Status == results.StatusDone || len(run.Info.Iterations) != 1 {
		t.Fatalf("outcome %+v, iterations %+v: want the iteration failed", out, run.Info.Iterations)
	}
	it := run.Info.Iterations[0]
	if !strings.Contains(it.Error, "watch.on_error") || !strings.Contains(it.Error, "status on db") || len(it.WatchGaps) != 1 {
		t.Errorf("iteration error %q, watch_gaps %+v: want the status sampler named", it.Error, it.WatchGaps)
	}
	if ts := run.Timeseries["db"]; ts == nil || len(ts.Rows) < 8 {
		t.Errorf("time series of db: %v, want the 8 intervals", ts)
	}
}

// The host sampler over SNMP loses its agent mid-run (stopped for some seconds, then started
// again): the run goes on, the host cells of those ticks are empty, run.json counts them.
// (The /proc host sampler has no connection to lose.)
func TestSNMPAgentLostLosesSamplesNotTheRun(t *testing.T) {
	agent := snmptest.Start(t)
	sched := newSchedule(map[[2]int]func(){{1, 2}: agent.Stop, {1, 5}: func() { go agent.Start() }})
	run, out, err := runPlan(t, fmt.Sprintf(`
version: 1
name: snmpgap
targets:
  db:
    sandbox: {}
    snmp: {address: "%s", version: "3", user: %s, auth_protocol: SHA, auth_password: %s, priv_protocol: AES, priv_password: %s}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 100}}
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 100}, duration: 10s}
watch:
  snmp: [mem_total]
`, agent.Addr, snmptest.User, snmptest.AuthPassword, snmptest.PrivPassword), nil, Options{Observer: sched})
	requireDone(t, run, out, err, 1)
	mem := series(t, run, "db", "host.mem_total", 1)
	empty := 0
	for _, v := range mem {
		if v < 0 {
			empty++
		}
	}
	if empty == 0 || empty == len(mem) {
		t.Errorf("host.mem_total by second %v: want some empty cells", mem)
	}
	gaps := run.Info.Iterations[0].WatchGaps
	if len(gaps) != 1 || gaps[0].Target != "db" || !strings.HasPrefix(gaps[0].Sampler, "snmp ") || gaps[0].Missed < empty {
		t.Errorf("run.json watch_gaps %+v: want the snmp sampler on db with at least the %d empty cells", gaps, empty)
	}
}
