package kinds_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/kinds/testdata/example"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// A sampler is one package and one registration line: testdata/example, registered here
// with kinds.SamplersWith, is opened, read every interval and summarized on a real sandbox by
// the collection, which knows it only by its declaration: the time series and the summary
// have its column, run.json describes it; a run without the line has none of it.
func TestASamplerIsOnePackage(t *testing.T) {
	sandboxtest.SkipShort(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.yaml")
	plan := "version: 1\nname: sampler\ntargets: {db: {sandbox: {}}}\niteration:\n" +
		"  workload: {builtin: oltp_point_select, options: {tables: 1, table_size: 100}, duration: 3s}\n" +
		"setup:\n  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 100}}\n"
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := spec.Load(path, spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, opts executor.Options) *results.Run {
		out := filepath.Join(dir, name)
		w, err := results.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		yaml, _ := p.Redacted()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		opts.PlanYAML, opts.Version, opts.SandboxDir = yaml, "test", sandboxtest.Dir(t)
		_, runErr := executor.Run(ctx, p, w, opts)
		w.Close()
		if runErr != nil {
			t.Fatalf("run: %v", runErr)
		}
		r, err := results.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		if st := r.Info.Iterations[0].Status; st != results.StatusDone {
			t.Fatalf("iteration: %s (%s)", st, r.Info.Iterations[0].Error)
		}
		return r
	}
	r := run("with", executor.Options{Samplers: kinds.SamplersWith(&example.Kind)}) // the one line
	ts := r.Timeseries["db"]
	if ts == nil || len(ts.Rows) == 0 {
		t.Fatalf("no time series of db")
	}
	for i := range ts.Rows {
		if v, err := strconv.ParseFloat(ts.Value(i, example.Column), 64); err != nil || v <= 0 {
			t.Errorf("time-series row %d: %s = %q, want the server's uptime", i, example.Column, ts.Value(i, example.Column))
		}
	}
	if v, ok := r.Summary.Float(0, example.Column); !ok || v <= 0 {
		t.Errorf("summary: %s = %q", example.Column, r.Summary.Value(0, example.Column))
	}
	described := false
	for _, c := range r.Info.Targets[0].Watched {
		described = described || c.Name == example.Column && c.Source == "example"
	}
	if !described {
		t.Errorf("run.json does not describe %s: %+v", example.Column, r.Info.Targets[0].Watched)
	}
	if ts.Value(0, "status.Com_select") == "" {
		t.Errorf("the built-in samplers lost their columns beside the example's: %v", ts.Header)
	}
	without := run("without", executor.Options{})
	if h := without.Timeseries["db"].Header; slices.Contains(h, example.Column) {
		t.Errorf("a run without the registration has %s: %v", example.Column, h)
	}
}
