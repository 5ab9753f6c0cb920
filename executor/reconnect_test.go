package executor

// The workload across a lost server, kind by kind: the server behind the target's address
// is killed in the middle of the measured part and started again (a failover, seen from
// the client: every connection drops, connects are refused for a while, then the same
// address answers again). Each kind must count the errors and reconnects and go on.

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results"
)

// failover kills the server once, at the first measured interval, and starts it again; it
// keeps every measured interval to tell those after the server was back.
type failover struct {
	t    *testing.T
	srv  *sandbox.Server
	once sync.Once
	wg   sync.WaitGroup

	mu        sync.Mutex
	killed    time.Time
	back      time.Time // when the server answered again
	err       error
	intervals []timedCount
}

type timedCount struct {
	start  time.Time
	events int64
}

func (f *failover) Logged(line string)    { f.t.Log(line) }
func (f *failover) SandboxStarted(string) {}
func (f *failover) Working(Work)          {}
func (f *failover) Interval(p Progress) {
	if !p.Measured {
		return
	}
	f.mu.Lock()
	f.intervals = append(f.intervals, timedCount{p.Interval.Start, p.Interval.Events})
	f.mu.Unlock()
	// In a goroutine: the run's clock must go on ticking while the server is down.
	f.once.Do(func() {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.mu.Lock()
			f.killed = time.Now()
			f.mu.Unlock()
			err := f.srv.Kill()
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err = f.srv.Restart(ctx, f.srv.Config())
				cancel()
			}
			f.mu.Lock()
			f.back, f.err = time.Now(), err
			f.mu.Unlock()
		}()
	})
}

// backTooLate says whether the server came back too near the end of a workload planned for
// d to leave room for a whole interval after it: then no interval after the restart says
// nothing about the workload, only about how slow the restart was on this host (a busy host
// restarts a server in 2 to 6 s). Intervals are 1 s and the first measured one starts the
// measured part.
func (f *failover) backTooLate(d time.Duration) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.intervals) == 0 {
		return false
	}
	end := f.intervals[0].start.Add(d)
	return f.back.After(end.Add(-2 * time.Second))
}

// after counts the intervals that began once the server was back, and their events.
func (f *failover) after() (n int, events int64) {
	f.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		f.t.Fatalf("killing and restarting the server: %v", f.err)
	}
	f.t.Logf("server down for %.1fs", f.back.Sub(f.killed).Seconds())
	for _, iv := range f.intervals {
		if iv.start.After(f.back) {
			n++
			events += iv.events
		}
	}
	return n, events
}

// spanningCapture is a .qcap of two long sessions spanning the whole replay and short ones starting
// every 200 ms, so that sessions run through the cut and some connect while the server is down.
func spanningCapture(t *testing.T, seconds int) string {
	var b bytes.Buffer
	w, err := traffic.NewWriter(&b, traffic.QCapHeader{Timed: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1700000000, 0)
	var sts []traffic.Statement
	for ms := 0; ms < seconds*1000; ms += 10 {
		at := start.Add(time.Duration(ms) * time.Millisecond)
		for s := range 2 {
			sts = append(sts, traffic.Statement{Session: uint64(1 + s), Start: at, Text: "SELECT 1"})
		}
		if ms%200 == 0 {
			for j := range 5 {
				sts = append(sts, traffic.Statement{Session: uint64(100 + ms), Start: at.Add(time.Duration(j) * 20 * time.Millisecond), Text: "SELECT 2"})
			}
		}
	}
	for i := range sts {
		sts[i].Duration, sts[i].RowsSent, sts[i].RowsExamined = -1, -1, -1
		if err := w.Write(&sts[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The codes a failover brings: the killed connection's lost reply (2013) or gone server
// (2006), refused connects (2003), and a graceful shutdown's (1053, MariaDB's 1927).
const failoverCodes = "on_error: {reconnect: [2013, 2006, 2003, 1927, 1053]}"

// Every kind goes on after its server is killed and started again at the same address:
// intervals that began after it was back have transactions, errors and reconnects are in
// the summary, and the run is done (not failed, not hung).
func TestWorkloadContinuesAfterTheServerIsBack(t *testing.T) {
	// tpcc's load is most of the test's time: its redo log flushed once a second.
	c := sandboxtest.Start(t, sandbox.Options{Name: "failover", Config: []sandbox.Option{{Name: "innodb_flush_log_at_trx_commit", Value: "2"}}})
	dsn := c.Primary.DSN("")
	cases := []struct {
		name, setup, workload string
		duration              string // 6s if not set
		files                 map[string]string
		check                 func(t *testing.T, run *results.Run)
		onError               string // failoverCodes if not set
		fails                 string // set: the iteration fails at the cut, its error saying this
	}{
		{name: "oltp_read_write", setup: "{builtin: oltp_read_write, action: prepare, options: {table_size: 1000}}",
			workload: "builtin: oltp_read_write\n    options: {table_size: 1000}"},
		{name: "oltp_point_select", workload: "builtin: oltp_point_select\n    options: {table_size: 1000}"},
		{name: "oltp_insert", workload: "builtin: oltp_insert\n    options: {table_size: 1000}"},
		// The sysbench binary (1.0.20) does not survive a restart: a clear failure, not a hang.
		{name: "sysbench", workload: "sysbench: {script: oltp_point_select, args: {table_size: 1000}}",
			fails: "sysbench stops at a lost connection"},
		{name: "custom", workload: `transactions: [{name: rw, statements: [{sql: "SELECT 1"}, {sql: "SELECT 2"}]}]`},
		// Without on_error.reconnect a lost connection fails the iteration, saying what to add.
		{name: "custom_without_reconnect", workload: selectOne, onError: "on_error: {}",
			fails: "to on_error.reconnect to reconnect instead"},
		{name: "tpcc", setup: "{builtin: tpcc, action: prepare, threads: 2, options: {warehouses: 1}}",
			// Crash recovery after its load takes the server longest to come back.
			workload: "builtin: tpcc\n    options: {warehouses: 1}", duration: "10s"},
		// A replay ends with its capture's last statement (5 s); the duration is only a bound.
		{name: "replay", workload: "replay: {file: traffic.qcap, timing: original}", duration: "60s",
			files: map[string]string{"traffic.qcap": spanningCapture(t, 5)}, check: replayedAcross},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setup := ""
			if tc.setup != "" {
				setup = "setup:\n  - workload: " + tc.setup + "\n"
			}
			duration := 6 * time.Second
			if tc.duration != "" {
				duration, _ = time.ParseDuration(tc.duration)
			}
			onError := tc.onError
			if onError == "" {
				onError = failoverCodes
			}
			var (
				f        *failover
				run      *results.Run
				out      *Outcome
				err      error
				n        int
				events   int64
				attempts = 3
			)
			// A restart slower than the workload's bound (a busy host) leaves no interval to
			// judge: the case runs again with a longer bound rather than fail on the host's speed.
			for a := 1; ; a++ {
				f = &failover{t: t, srv: c.Primary}
				run, out, err = runPlan(t, fmt.Sprintf(`
version: 1
name: failover
targets: {db: {dsn: "%s"}}
%siteration:
  workload:
    %s
    threads: 2
    duration: %s
    %s
`, dsn, setup, tc.workload, duration, onError), tc.files, Options{Observer: f})
				n, events = f.after()
				if tc.fails != "" || n > 0 || a == attempts || !f.backTooLate(duration) {
					break
				}
				t.Logf("the server came back too near the end of the %s workload to leave an interval after it; again with %s", duration, 3*duration)
				duration *= 3
				setup = "" // its tables are there from the first attempt
			}
			if tc.fails != "" {
				failedSaying(t, run, out, err, tc.fails)
				return
			}
			requireDone(t, run, out, err, 1)
			if out.ErrorsFailed != 0 {
				t.Errorf("outcome %+v: quadrant run would exit 3, not 0", out)
			}
			var counted []string
			for _, h := range run.Summary.Header {
				if h == "errors" || h == "reconnects" || strings.HasPrefix(h, "error.") {
					counted = append(counted, h+"="+run.Summary.Value(0, h))
				}
			}
			t.Logf("%d intervals after the server was back, %d transactions in them; %s", n, events, strings.Join(counted, " "))
			if n == 0 {
				t.Fatalf("no measured interval began after the server was back, though it was back with time left in the %s workload: the workload stopped at the cut", duration)
			}
			if events == 0 {
				t.Errorf("no transactions in the %d intervals after the server was back: the workload stopped at the cut", n)
			}
			for _, col := range []string{"errors", "reconnects"} {
				if v, _ := run.Summary.Float(0, col); v == 0 {
					t.Errorf("summary %s = 0 across a server restart: %v", col, run.Summary.Rows[0])
				}
			}
			if tc.check != nil {
				tc.check(t, run)
			}
		})
	}
}

// replayedAcross: every captured session ran, those that were to connect while the server
// was down included, and every statement either ran or is counted as an error.
func replayedAcross(t *testing.T, run *results.Run) {
	if len(run.Table("replay.csv").Rows) == 0 {
		t.Fatal("no replay.csv")
	}
	get := func(col string) float64 { v, _ := run.Table("replay.csv").Float(0, col); return v }
	if get("sessions_replayed") != get("sessions_captured") {
		t.Errorf("%v of %v captured sessions replayed: a session the cut met never ran", get("sessions_replayed"), get("sessions_captured"))
	}
	// A statement whose connect found no server is not replayed; one in flight at the cut is.
	if get("statements_replayed")+get("errors_unlike_capture") < get("statements_captured") || get("errors_unlike_capture") == 0 {
		t.Errorf("replay.csv %v: every statement must have run or be counted as an error unlike the capture", run.Table("replay.csv").Rows[0])
	}
}

// failedSaying: the iteration failed at the cut, its error saying want, and kept the
// intervals it measured before.
func failedSaying(t *testing.T, run *results.Run, out *Outcome, err error, want string) {
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	// ErrorsFailed is what makes quadrant run exit 3.
	if out.Status != results.StatusFailed || out.ErrorsFailed == 0 || len(run.Info.Iterations) != 1 || run.Info.Iterations[0].Status != results.StatusFailed {
		t.Fatalf("outcome %+v, iterations %+v: want the iteration failed", out, run.Info.Iterations)
	}
	if msg := run.Info.Iterations[0].Error; !strings.Contains(msg, want) {
		t.Errorf("the failed iteration's error does not say %q: %s", want, msg)
	}
	before := false
	for _, v := range series(t, run, "db", "tps", 1) {
		before = before || v > 0
	}
	if !before {
		t.Errorf("the intervals before the cut are not in the time series")
	}
}
