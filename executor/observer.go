package executor

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Observer is told what a run does while it does it; the CLI draws its console from it.
// Its methods are called from the run's goroutines and must return quickly.
type Observer interface {
	// Logged gets each line of the run's log (what runs, warnings) as it goes to log.txt.
	Logged(line string)
	// Interval gets every report interval of every workload, measured or not.
	Interval(t Progress)
	// SandboxStarted gets the directory of each sandbox cluster as it starts, and again
	// when it moves (sandbox.dir), for an exit that cannot wait for Run to stop it.
	SandboxStarted(dir string)
	// Working gets where a long step stands (a data load, a SQL file, a wait) about once a
	// second while it runs, and once with Finished set when it ends.
	Working(w Work)
}

// Work is where a long step stands.
type Work struct {
	Step string // where it is in the plan: "setup: workload (plan.yaml:12:5)"
	// Done of Total Units (Total 0: unknown), since Started.
	Done, Total float64
	Unit        string
	Started     time.Time
	// State is what a wait sees now ("replica.Seconds_Behind_Master = 412"); Deadline is
	// when it gives up.
	State    string
	Deadline time.Time
	Finished bool
}

// String is the one-line form the console and log.txt show.
func (w Work) String() string { return w.Line(time.Now()) }

// Line is String as of now: rates and times left are fixed figures for a given instant.
func (w Work) Line(now time.Time) string {
	var b strings.Builder
	b.WriteString(w.Step)
	elapsed := now.Sub(w.Started)
	if w.Unit != "" {
		fmt.Fprintf(&b, ": %s", count(w.Done))
		if w.Total > 0 {
			fmt.Fprintf(&b, "/%s %s (%.0f%%)", count(w.Total), w.Unit, 100*w.Done/w.Total)
		} else {
			fmt.Fprintf(&b, " %s", w.Unit)
		}
		if s := elapsed.Seconds(); s >= 1 && w.Done > 0 {
			rate := w.Done / s
			fmt.Fprintf(&b, " · %s %s/s", count(rate), w.Unit)
			if w.Total > w.Done && !w.Finished {
				fmt.Fprintf(&b, " · ~%s left", (time.Duration((w.Total-w.Done)/rate) * time.Second).Round(time.Second))
			}
		}
	}
	if w.State != "" {
		fmt.Fprintf(&b, ": %s", w.State)
	}
	if !w.Deadline.IsZero() && !w.Finished {
		fmt.Fprintf(&b, " · %s to its timeout", w.Deadline.Sub(now).Round(time.Second))
	}
	if w.Finished {
		fmt.Fprintf(&b, " · done in %s", elapsed.Round(100*time.Millisecond))
	}
	return b.String()
}

// count writes n with thousands separators: 1,234,567.
func count(n float64) string {
	s := strconv.FormatInt(int64(n+0.5), 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Progress is one report interval and where the run stands.
type Progress struct {
	Interval *measure.Interval
	OpenLoop bool
	// Measured is true for an iteration's measured workload; the fields below are set for it.
	Measured      bool
	Iteration, Of int
	Cell          string        // matrix values, "threads=8 flush=O_DIRECT"
	Target        string        // the workload's target
	Length        time.Duration // the workload's duration (0 when bounded by events only)
	Left          time.Duration // workload time left in the run after this iteration
	// Figures are, at an iteration's end (IterationObserver), the metrics its steps recorded,
	// described by their kinds (a drill's acknowledged commits lost); nil on an interval.
	Figures []Figure
	// Stages are the workload's load shape as the plan gives it (nil without): the level of
	// the Interval's Stage.
	Stages []spec.Stage
}

// WatchObserver is an Observer that also wants the watched values of every measured
// interval, per watched target, as the time series gets them (live metrics do).
type WatchObserver interface {
	Watched(p Progress, target string, values []measure.Value)
}

// watchedBy is how obs gets the watched values of a measured workload's intervals (p: where
// the run stands): nil when it does not want them.
func watchedBy(obs Observer, p Progress) func(*measure.Interval, string, []measure.Value) {
	wo, ok := obs.(WatchObserver)
	if !ok {
		return nil
	}
	return func(iv *measure.Interval, target string, values []measure.Value) {
		p := p
		p.Interval = iv
		wo.Watched(p, target, values)
	}
}

// IterationObserver is an Observer that also wants each iteration's end, once its summary
// rows are written: its outcome and what its workload measured (nil when it never ran), for
// the console's line of what the iteration came to.
type IterationObserver interface {
	IterationEnded(p Progress, info results.IterationInfo, total *measure.Total)
}

// quiet is the Observer of a run nobody watches.
type quiet struct{}

func (quiet) Logged(string)         {}
func (quiet) Interval(Progress)     {}
func (quiet) SandboxStarted(string) {}
func (quiet) Working(Work)          {}

// progressLogEvery is how often a long step's progress goes to log.txt (and to a piped
// console): often enough that a log shows a load is alive, rarely enough to stay readable.
const progressLogEvery = 10 * time.Second

// tracker follows one long step: the observer sees it about twice a second, log.txt every
// progressLogEvery.
type tracker struct {
	mu     sync.Mutex
	log    *runLog
	w      Work
	shown  time.Time
	logged time.Time
}

func (l *runLog) track(step, unit string, total float64) *tracker {
	now := time.Now()
	return &tracker{log: l, w: Work{Step: step, Unit: unit, Total: total, Started: now}, logged: now}
}

// update changes the work and shows it when it is time to.
func (t *tracker) update(f func(w *Work)) {
	t.mu.Lock()
	f(&t.w)
	now := time.Now()
	show := now.Sub(t.shown) >= 500*time.Millisecond
	log := now.Sub(t.logged) >= progressLogEvery
	if show {
		t.shown = now
	}
	if log {
		t.logged = now
	}
	w := t.w
	t.mu.Unlock()
	if show {
		t.log.obs.Working(w)
	}
	if log {
		t.log.logf("progress: %s", w)
	}
}

// finish shows the work's end.
func (t *tracker) finish() {
	t.mu.Lock()
	t.w.Finished = true
	w := t.w
	t.mu.Unlock()
	t.log.obs.Working(w)
}
