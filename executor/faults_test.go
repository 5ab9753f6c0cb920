package executor

// Network faults on purpose: a toxiproxy between quadrant and a real sandbox, turned on
// and off at set points of a measured workload, and what the run does under each.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/faulttest"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
)

// schedule runs actions when a measured workload reaches an interval: the run's own clock,
// so the faults land at the same points whatever the machine's load.
type schedule struct {
	mu   sync.Mutex
	at   map[[2]int]func() // {iteration, elapsed seconds} -> action
	done map[[2]int]bool
}

func (s *schedule) Logged(string)         {}
func (s *schedule) SandboxStarted(string) {}
func (s *schedule) Working(Work)          {}
func (s *schedule) Interval(p Progress) {
	if !p.Measured {
		return
	}
	key := [2]int{p.Iteration, int(results.GridSeconds(p.Interval.Elapsed, 0))}
	s.mu.Lock()
	f := s.at[key]
	if f != nil && !s.done[key] {
		s.done[key] = true
	} else {
		f = nil
	}
	s.mu.Unlock()
	if f != nil {
		f()
	}
}

func newSchedule(at map[[2]int]func()) *schedule {
	return &schedule{at: at, done: map[[2]int]bool{}}
}

// proxied starts a sandbox and a fault proxy in front of it; dsn reaches the sandbox
// through the proxy.
func proxied(t *testing.T, name, params string) (*faulttest.Proxy, string) {
	t.Helper()
	c := sandboxtest.Start(t, sandbox.Options{Name: name})
	upstream := fmt.Sprintf("127.0.0.1:%d", c.Primary.Port())
	p := faulttest.Start(t, upstream)
	return p, p.DSN(c.Primary.DSN("")+params, upstream)
}

// series is one column of the workload's time series by elapsed second, per iteration.
func series(t *testing.T, run *results.Run, target, col string, iteration int) map[int]float64 {
	t.Helper()
	ts := run.Timeseries[target]
	if ts == nil || ts.Col(col) < 0 {
		t.Fatalf("timeseries/%s.csv has no column %s", target, col)
	}
	out := map[int]float64{}
	for i := range ts.Rows {
		if ts.Value(i, "iteration") != fmt.Sprint(iteration) {
			continue
		}
		e, _ := ts.Float(i, "elapsed_s")
		v, ok := ts.Float(i, col)
		if !ok {
			v = -1 // an empty cell
		}
		if _, ok := out[int(e)]; !ok { // an interval cut short after second k (k.3) does not replace k's row
			out[int(e)] = v
		}
	}
	return out
}

const selectOne = `transactions: [{name: one, statements: [{sql: "SELECT 1"}]}]`

// +50 ms on every reply for 3 s: the latency columns show it, closed-loop tps drops, the
// open loop builds a backlog, and nothing is an error.
func TestFaultLatency(t *testing.T) {
	proxy, dsn := proxied(t, "flat", "")
	on := func() { proxy.Latency(50) }
	run, out, err := runPlan(t, fmt.Sprintf(`
version: 1
name: latency
targets: {db: {dsn: "%s"}}
matrix: {rate: [0, 300]}
iteration:
  workload:
    %s
    threads: 2
    rate: "${{ matrix.rate }}"
    duration: 8s
`, dsn, selectOne), nil, Options{Observer: newSchedule(map[[2]int]func(){
		{1, 2}: on, {1, 5}: proxy.Clear, {2, 2}: on, {2, 5}: proxy.Clear,
	})})
	requireDone(t, run, out, err, 2)
	// The fault holds from the interval ending at 2 s to the one ending at 5 s; on a loaded
	// machine an interval's place on the grid can slip, so 4 and 5 s are read together.
	p95 := series(t, run, "db", "p95_ms", 1)
	tps := series(t, run, "db", "tps", 1)
	if max(p95[4], p95[5]) < 50 || p95[1] >= 50 || min(tps[4], tps[5]) > tps[1]/2 {
		t.Errorf("closed loop: p95 %v tps %v: want p95 >= 50 ms and tps halved at 4-5 s, not at 1 s", p95, tps)
	}
	backlog := series(t, run, "db", "backlog", 2)
	if max(backlog[5], backlog[6]) <= backlog[1] || max(backlog[5], backlog[6]) < 10 {
		t.Errorf("open loop at 300/s with 2 threads and 50 ms per reply: backlog %v, want it built up by 5 s", backlog)
	}
	if e, _ := run.Summary.Float(0, "errors"); e != 0 {
		t.Errorf("%v errors under added latency", e)
	}
}

// Every connection reset for 2 s: errors by code, reconnects per on_error, the downtime
// window in log.txt, and a row for every interval.
func TestFaultConnectionsReset(t *testing.T) {
	proxy, dsn := proxied(t, "freset", "")
	run, out, err := runPlan(t, fmt.Sprintf(`
version: 1
name: reset
targets: {db: {dsn: "%s"}}
iteration:
  workload:
    %s
    threads: 2
    duration: 7s
    on_error: {reconnect: [2013, 2006, 2003]}
  assert: ["reconnects > 0", "errors > 0"]
`, dsn, selectOne), nil, Options{Observer: newSchedule(map[[2]int]func(){{1, 2}: proxy.Reset, {1, 4}: proxy.Clear})})
	requireDone(t, run, out, err, 1)
	tps := series(t, run, "db", "tps", 1)
	if len(tps) < 7 {
		t.Errorf("%d rows for 7 intervals: %v", len(tps), tps)
	}
	if max(tps[6], tps[7], tps[8]) <= 0 {
		t.Errorf("no transactions after the resets ended: %v", tps)
	}
	if v, ok := run.Summary.Float(0, "error.2013"); !ok || v == 0 {
		t.Errorf("no error.2013 in the summary: %v", run.Summary.Header)
	}
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if !strings.Contains(string(log), "db unreachable from about") || !strings.Contains(string(log), "db answering again at about") {
		t.Errorf("log.txt lacks the downtime window:\n%s", log)
	}
}

// Traffic blackholed for longer than the read timeout: errors by code once the timeout
// passes, no hang, the run goes on, and what was measured before stays.
func TestFaultBlackholeLongerThanReadTimeout(t *testing.T) {
	proxy, dsn := proxied(t, "fhole", "?readTimeout=1s&timeout=1s")
	run, out, err := runPlan(t, fmt.Sprintf(`
version: 1
name: blackhole
targets: {db: {dsn: "%s"}}
watch: {status: [Com_select]}
iteration:
  workload:
    %s
    threads: 2
    duration: 9s
    on_error: {reconnect: [2013, 2006, 2003]}
`, dsn, selectOne), nil, Options{Observer: newSchedule(map[[2]int]func(){{1, 2}: proxy.Blackhole, {1, 5}: proxy.Clear})})
	requireDone(t, run, out, err, 1)
	tps := series(t, run, "db", "tps", 1)
	if tps[1] <= 0 || tps[2] <= 0 {
		t.Errorf("what was measured before the fault is gone: %v", tps)
	}
	if tps[4] != 0 {
		t.Errorf("transactions at 4 s through a blackhole: %v", tps)
	}
	after := 0.0 // the intervals' grid can slip a second on a loaded machine
	for s := 7; s <= 10; s++ {
		after = max(after, tps[s])
	}
	if after <= 0 {
		t.Errorf("no transactions after the blackhole ended: %v", tps)
	}
	if v, ok := run.Summary.Float(0, "error.2013"); !ok || v == 0 {
		t.Errorf("no error.2013 after the read timeout: %v", run.Summary.Rows)
	}
}

// The watcher's connection stalls while the workload's does not: the watcher's cells go
// empty for those intervals, the workload's columns go on.
func TestFaultWatcherStallsWorkloadDoesNot(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "fwatch"})
	upstream := fmt.Sprintf("127.0.0.1:%d", c.Primary.Port())
	watched := faulttest.Start(t, upstream)
	run, out, err := runPlan(t, fmt.Sprintf(`
version: 1
name: watcher
targets:
  db: {dsn: "%s"}
  mon: {dsn: "%s"}
watch: {targets: [db, mon], status: [Com_select, Uptime]}
iteration:
  target: db
  workload:
    %s
    threads: 2
    duration: 8s
`, c.Primary.DSN(""), watched.DSN(c.Primary.DSN("")+"?readTimeout=1s", upstream), selectOne), nil,
		Options{Observer: newSchedule(map[[2]int]func(){{1, 2}: watched.Blackhole, {1, 6}: watched.Clear})})
	requireDone(t, run, out, err, 1)
	uptime := series(t, run, "mon", "status.Uptime", 1)
	empty := func(s int) bool { v, ok := uptime[s]; return !ok || v < 0 }
	if empty(1) || !empty(4) || !empty(5) {
		t.Errorf("mon's Uptime: %v, want a value at 1 s and empty cells at 4-5 s", uptime)
	}
	tps := series(t, run, "db", "tps", 1)
	if len(tps) < 7 {
		t.Errorf("%d rows for 8 intervals: %v", len(tps), tps)
	}
	for s, v := range tps {
		if v <= 0 {
			t.Errorf("the workload stalled with the watcher at %d s: %v", s, tps)
		}
	}
}

// killLog is a schedule that also keeps the run's log lines and the sandboxes' directories.
type killLog struct {
	*schedule
	mu    sync.Mutex
	lines []string
	dirs  []string
}

func (k *killLog) Logged(line string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lines = append(k.lines, line)
}

func (k *killLog) SandboxStarted(dir string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dirs = append(k.dirs, dir)
}

// The sandbox's mariadbd killed (kill -9) during iteration 1: that iteration fails, which the
// observer (the console) gets as one "error:" line; the server is started again for
// iteration 2, and log.txt says so with how it ended and its error log; log.txt goes on to
// say how each iteration ended with its figures, teardown, the sandbox's stop and the run's end.
func TestServerKilledMidRunIsLoggedToTheEnd(t *testing.T) {
	k := &killLog{}
	k.schedule = newSchedule(map[[2]int]func(){{1, 2}: func() {
		k.mu.Lock()
		dirs := append([]string(nil), k.dirs...)
		k.mu.Unlock()
		for _, d := range dirs {
			pids, _ := filepath.Glob(filepath.Join(d, "*", "mysqld.pid"))
			for _, f := range pids {
				b, _ := os.ReadFile(f)
				var pid int
				fmt.Sscan(string(b), &pid)
				if pid > 0 {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	}})
	run, out, err := runPlan(t, fmt.Sprintf(`
version: 1
name: killed
targets: {db: {sandbox: {}}}
matrix: {n: [1, 2]}
iteration:
  workload:
    %s
    threads: 2
    duration: 4s
`, selectOne), nil, Options{Observer: k})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.Status != results.StatusFailed || len(run.Info.Iterations) != 2 || run.Info.Iterations[0].Status != results.StatusFailed || run.Info.Iterations[1].Status != results.StatusDone {
		t.Fatalf("outcome %+v, iterations %+v: want iteration 1 failed (the kill), 2 done", out, run.Info.Iterations)
	}
	var failed []string
	for _, l := range k.lines {
		if strings.HasPrefix(l, "error: iteration 1/2 failed") {
			failed = append(failed, l)
		}
	}
	if len(failed) != 1 || strings.Contains(failed[0], "\n") {
		t.Errorf("the observer got %q for the failed iteration, want one line", failed)
	}
	logb, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	log := string(logb)
	at := 0
	for _, want := range []string{
		"error: iteration 1/2 failed after",
		"iteration 2: the server of sandbox db had exited on its own (signal: killed); starting it again. The last lines of its error log",
		"iteration 2/2 done after",
		"teardown: done",
		"sandbox db stopped and removed",
		"run failed after",
	} {
		i := strings.Index(log[at:], want)
		if i < 0 {
			t.Fatalf("log.txt lacks %q after byte %d:\n%s", want, at, log)
		}
		at += i + len(want)
	}
	if !regexp.MustCompile(`iteration 2/2 done after [0-9.]+s: [0-9.]+ tps, p95 [0-9.]+ ms, [0-9]+ errors`).MatchString(log) {
		t.Errorf("log.txt's end of iteration 2 lacks its figures:\n%s", log)
	}
}
