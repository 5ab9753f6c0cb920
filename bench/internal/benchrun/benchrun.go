// Package benchrun holds what the benchmark programs share: running a workload the way a
// plan would, and a sandbox directory its unprivileged server can enter.
package benchrun

import (
	"context"
	"os"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/kinds"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// DefaultIgnore is sysbench's --mysql-ignore-errors default, as a plan's on_error.ignore has it.
var DefaultIgnore = []int{1213, 1020, 1205}

// Workload runs w through its kind on cfg, with the defaults a plan would give it.
func Workload(ctx context.Context, cfg *mysql.Config, w *spec.Workload) (*measure.Total, error) {
	if w.Action == "" {
		w.Action = "run"
	}
	if w.ReportInterval == 0 {
		w.ReportInterval = time.Second
	}
	w.Threads = max(w.Threads, 1)
	w.OnError.Ignore = DefaultIgnore
	return kinds.Do(ctx, w, workload.Env{Server: cfg}, func(*measure.Interval) {})
}

// Settings turns script options into a plan's settings.
func Settings(m map[string]string) spec.Settings {
	var out spec.Settings
	for k, v := range m {
		out = append(out, spec.Setting{Name: k, Value: v})
	}
	return out
}

// SandboxDir is a new temporary directory for sandboxes: run as root, their server is an
// unprivileged user that must pass through it (MkdirTemp makes it 0700).
func SandboxDir(prefix string) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}
