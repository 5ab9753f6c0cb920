package executor

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results"
)

// works records what a run says of its long steps.
type works struct {
	mu   sync.Mutex
	seen []Work
}

func (w *works) Logged(string)         {}
func (w *works) Interval(Progress)     {}
func (w *works) SandboxStarted(string) {}
func (w *works) Working(x Work) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, x)
}

// A data load shows its rows before it is done, ends at its total, and a wait shows the
// value its condition reads, changing.
func TestLongStepsShowTheirProgress(t *testing.T) {
	obs := &works{}
	run, out, err := runPlan(t, `
version: 1
name: progress
targets: {db: {sandbox: {}}}
setup:
  - workload: {builtin: oltp_read_only, action: prepare, threads: 2, options: {tables: 2, table_size: 300000}}
  - sql: "CREATE SEQUENCE sbtest.polls"
  - wait: {until: "row.n >= 55", sql: "SELECT NEXTVAL(sbtest.polls) AS n", interval: 200ms}
iteration:
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], duration: 1s}
`, nil, Options{Observer: obs})
	requireDone(t, run, out, err, 1)
	var during, last Work
	uptimes := map[string]bool{}
	for _, w := range obs.seen {
		switch {
		case w.Unit == "rows" && !w.Finished && w.Done > 0 && w.Done < w.Total && during.Step == "":
			during = w
		case w.Unit == "rows" && w.Finished:
			last = w
		case strings.Contains(w.Step, "until row.n") && !w.Finished:
			uptimes[w.State] = true
		}
	}
	if during.Step == "" || !strings.Contains(during.String(), "/600,000 rows (") {
		t.Errorf("no progress line before the load finished; seen %d updates, last %q", len(obs.seen), last.String())
	}
	if last.Done != 600000 || last.Total != 600000 {
		t.Errorf("the load ended at %v of %v rows", last.Done, last.Total)
	}
	if len(uptimes) < 2 {
		t.Errorf("the wait showed %v: want row.n changing", uptimes)
	}
	// A wait of more than 10 s leaves its progress in log.txt, for logs of piped runs.
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if !regexp.MustCompile(`progress: setup: wait \(.*\): until row.n >= 55: row.n = \d+`).Match(log) {
		t.Errorf("log.txt has no progress line of the 11 s wait:\n%s", log)
	}
}

func TestWorkLine(t *testing.T) {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	now := start.Add(10 * time.Second)
	w := Work{Step: "setup: workload (p.yaml:7:5)", Done: 1234567, Total: 4000000, Unit: "rows", Started: start}
	got := w.Line(now)
	for _, want := range []string{"setup: workload (p.yaml:7:5): 1,234,567/4,000,000 rows (31%)", "123,457 rows/s", "~22s left"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	w = Work{Step: "before: wait", State: "replica.Seconds_Behind_Master = 412", Started: start, Deadline: now.Add(time.Minute)}
	if got := w.Line(now); !strings.Contains(got, "replica.Seconds_Behind_Master = 412 · 1m0s to its timeout") {
		t.Errorf("wait line %q", got)
	}
}

// The first sandbox start on a machine builds a template datadir, which takes a while: the
// run says what it is doing.
func TestTemplateBuildShowsWhatItDoes(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // an empty cache: this start builds the template
	obs := &works{}
	run, out, err := runPlan(t, `
version: 1
name: firststart
targets: {db: {sandbox: {}}}
iteration:
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], duration: 1s}
`, nil, Options{Observer: obs})
	requireDone(t, run, out, err, 1)
	building, finished := false, false
	for _, w := range obs.seen {
		if w.Step == "sandbox db" {
			building = building || strings.Contains(w.State, "initialising template datadir")
			finished = finished || w.Finished
		}
	}
	if !building || !finished {
		t.Fatalf("the template build was not shown (building %v, finished %v): %v", building, finished, obs.seen)
	}
}

// A wait on a replica that is behind (delayed replication: it applies each event 8 s
// late) shows its lag as it changes, then ends when the replica has caught up. The delay is
// long because a busy host can start the wait seconds after the event reached the replica:
// with 3 s, CI's wait saw only "2" before the event was applied.
func TestWaitShowsReplicaLagChanging(t *testing.T) {
	obs := &works{}
	run, out, err := runPlan(t, `
version: 1
name: lag
targets: {db: {sandbox: {replicas: 1}}}
setup:
  - sql: "CREATE DATABASE IF NOT EXISTS sbtest"
  - {target: db_replica1, sql: "STOP SLAVE; CHANGE MASTER TO MASTER_DELAY = 8; START SLAVE"}
  - sql: "CREATE TABLE sbtest.lagged (id INT PRIMARY KEY)"
  - target: db_replica1
    wait:
      until: "row.n == 1 && replica.Seconds_Behind_Master == 0"
      sql: "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name = 'lagged'"
      interval: 200ms
      timeout: 1m
iteration:
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], duration: 1s}
`, nil, Options{Observer: obs})
	requireDone(t, run, out, err, 1)
	lags := map[string]bool{}
	for _, w := range obs.seen {
		if i := strings.Index(w.State, "replica.Seconds_Behind_Master = "); i >= 0 && !w.Finished {
			lags[strings.SplitN(w.State[i:], ",", 2)[0]] = true
		}
	}
	if len(lags) < 2 {
		t.Fatalf("the wait showed the replica's lag as %v: want it changing", lags)
	}
	t.Logf("lag seen: %v", lags)
}
