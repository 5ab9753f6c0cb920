package executor

import (
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Observer is told what a run does while it does it; the CLI draws its console from it.
// Its methods are called from the run's goroutines and must return quickly.
type Observer interface {
	// Logged gets each line of the run's log (what runs, warnings) as it goes to log.txt.
	Logged(line string)
	// Interval gets every report interval of every workload, measured or not.
	Interval(t Progress)
	// SandboxStarted gets the directory of each sandbox cluster as it starts, for an exit
	// that cannot wait for Run to stop it.
	SandboxStarted(dir string)
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
}

// WatchObserver is an Observer that also wants the watched values of every measured
// interval, per watched target, as the time series gets them (live metrics do).
type WatchObserver interface {
	Watched(p Progress, target string, values []measure.Value)
}

// quiet is the Observer of a run nobody watches.
type quiet struct{}

func (quiet) Logged(string)         {}
func (quiet) Interval(Progress)     {}
func (quiet) SandboxStarted(string) {}
