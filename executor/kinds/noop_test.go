package kinds_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/kinds/testdata/noop"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// A kind is one package and one registration line: testdata/noop, registered here with
// kinds.With, is decoded with positions, checked, explained and run on a real sandbox
// through the executor and the engine's loop, and its run lands in the results folder
// like any kind's.
func TestAKindIsOnePackage(t *testing.T) {
	registry := kinds.With(&noop.Kind) // the one line
	bad := "version: 1\nname: n\ntargets: {db: {sandbox: {}}}\niteration:\n  workload: {noop: {statement: SELECT 1}, duration: 1s}\n"
	_, err := spec.LoadBytes("plan.yaml", []byte(bad), spec.Options{Kinds: registry})
	if err == nil || !strings.Contains(err.Error(), "plan.yaml:5:32: noop runs a DO statement") {
		t.Fatalf("the kind's own check, at its line: %v", err)
	}
	if _, err := spec.LoadBytes("plan.yaml", []byte(bad), spec.Options{Kinds: kinds.Registry()}); err == nil || !strings.Contains(err.Error(), `unknown key "noop" in workload`) {
		t.Fatalf("an unregistered kind: %v", err)
	}
	sandboxtest.SkipShort(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.yaml")
	plan := "version: 1\nname: noop\ntargets: {db: {sandbox: {}}}\nmatrix: {threads: [1, 2]}\niteration:\n" +
		"  workload: {noop: {}, threads: \"${{ matrix.threads }}\", duration: 2s}\n  assert: [\"transactions > 0\"]\n"
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := spec.Load(path, spec.Options{Kinds: registry})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Iterations[1].Workload.String(); got != `noop "DO 0", 2 thread(s), 2s` {
		t.Errorf("described as %q", got)
	}
	out := filepath.Join(dir, "results")
	w, err := results.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	yaml, _ := p.Redacted()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, runErr := executor.Run(ctx, p, w, executor.Options{PlanYAML: yaml, Version: "test", SandboxDir: sandboxtest.Dir(t)})
	w.Close()
	if runErr != nil {
		t.Fatalf("run: %v", runErr)
	}
	run, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Info.Iterations) != 2 {
		t.Fatalf("%d iterations in run.json, want 2", len(run.Info.Iterations))
	}
	for i, it := range run.Info.Iterations {
		if it.Status != results.StatusDone {
			t.Errorf("iteration %d: %s (%s)", i+1, it.Status, it.Error)
		}
	}
	for row := range run.Summary.Rows {
		if tps, ok := run.Summary.Float(row, "tps"); !ok || tps <= 0 {
			t.Errorf("summary row %d: tps %q", row, run.Summary.Value(row, "tps"))
		}
	}
}
