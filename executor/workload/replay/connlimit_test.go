package replay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// writeSessions writes a capture of n sessions, all at once (overlapping) or one after
// the other.
func writeSessions(t *testing.T, n int, overlapping bool) string {
	path := filepath.Join(t.TempDir(), "many.qcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := traffic.NewWriter(f, traffic.QCapHeader{Timed: true})
	start := time.Unix(1700000000, 0)
	for i := range n {
		at := start
		if !overlapping {
			at = start.Add(time.Duration(i) * 100 * time.Millisecond)
		}
		st := traffic.Statement{Session: uint64(1000 + i), Start: at, Duration: time.Millisecond, RowsSent: -1, RowsExamined: -1, Text: "SELECT 1"}
		if err := w.Write(&st); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	f.Close()
	return path
}

// A capture with more sessions than the server takes connections is refused before any
// session connects, with both numbers and what to do (a 100k-session capture once met
// 72,145 errors 1040 and aborted at 1.2 GB after 34 s).
func TestReplayRefusesMoreSessionsThanMaxConnections(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "maxconn", Config: []sandbox.Option{{Name: "max_connections", Value: "20"}}})
	run := func(r *Replay) error {
		r.Top = 10
		w := Workload(r.File, *r)
		if errs := spec.CheckWorkload(w, ".", nil); len(errs) > 0 {
			t.Fatalf("validate: %v", errs)
		}
		wl, err := Kind.New(w, env(t, c.Primary))
		if err != nil {
			t.Fatal(err)
		}
		_, err = wl.Run(context.Background(), func(*measure.Interval) {})
		return err
	}
	err := run(&Replay{File: writeSessions(t, 60, true)})
	if err == nil {
		t.Fatal("a 60-session replay ran against max_connections 20")
	}
	for _, want := range []string{"60 connections at once", "60 captured sessions", "max_connections 20", "--shard", "raise max_connections"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "1040") {
		t.Errorf("the sessions connected before the refusal: %v", err)
	}
	// Sessions one after the other, at their captured times, need one connection at a time.
	if err := run(&Replay{File: writeSessions(t, 30, false), Timing: "original", Speed: 10}); err != nil {
		t.Errorf("30 sessions that never overlap, timing: original: %v", err)
	}
}
