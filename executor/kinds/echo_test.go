package kinds_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/kinds/testdata/echo"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// A step kind is one package and one registration line: testdata/echo, registered here, is
// checked at its line and run between the iterations of a real sandbox's run, its line in
// log.txt, its outcome described in run.json and handed to the run's observer (whose
// console line cmd/quadrant's TestConsoleEndLineShowsTheStepsOutcomes checks, and whose
// explain lines its TestExplainShowsAStepKindOfOnePackage).
func TestAStepKindIsOnePackage(t *testing.T) {
	registry, err := kinds.Registry().WithSteps(&echo.Kind) // the one line
	if err != nil {
		t.Fatal(err)
	}
	head := "version: 1\nname: echo\ntargets: {db: {sandbox: {}}}\nmatrix: {n: [1, 2]}\n"
	bad := head + "iteration:\n  workload: {builtin: oltp_point_select, duration: 1s}\n  after:\n    - echo: \"\"\n"
	if _, err := spec.LoadBytes("plan.yaml", []byte(bad), spec.Options{Kinds: registry}); err == nil || !strings.Contains(err.Error(), "plan.yaml:8:13: echo has no text") {
		t.Fatalf("the kind's own check, at its line: %v", err)
	}
	if _, err := spec.LoadBytes("plan.yaml", []byte(bad), spec.Options{Kinds: kinds.Registry()}); err == nil || !strings.Contains(err.Error(), `unknown key "echo" in step`) {
		t.Fatalf("an unregistered step kind: %v", err)
	}
	sandboxtest.SkipShort(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.yaml")
	plan := head + "setup:\n  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 100}}\n" +
		"iteration:\n  workload: {builtin: oltp_point_select, duration: 1s, options: {tables: 1, table_size: 100}}\n" +
		"  after:\n    - echo: \"after iteration ${{ iteration.index }}\"\n"
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := spec.Load(path, spec.Options{Kinds: registry})
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "results")
	w, err := results.Create(folder)
	if err != nil {
		t.Fatal(err)
	}
	yaml, _ := p.Redacted()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	obs := &outcomes{}
	_, runErr := executor.Run(ctx, p, w, executor.Options{PlanYAML: yaml, Version: "test", SandboxDir: sandboxtest.Dir(t), Observer: obs})
	w.Close()
	if runErr != nil {
		t.Fatalf("run: %v", runErr)
	}
	// What the kind records, as it describes it: run.json carries the description, and the
	// observer gets it at each iteration's end, the executor knowing no step kind.
	run, err := results.Load(folder)
	if err != nil {
		t.Fatal(err)
	}
	described := false
	for _, m := range run.Info.Metrics {
		described = described || m.Name == echo.Length && m.Outcome
	}
	if !described {
		t.Errorf("run.json describes no outcome %s: %+v", echo.Length, run.Info.Metrics)
	}
	if want := []string{"1/2 echo_length 17", "2/2 echo_length 17"}; fmt.Sprint(obs.got) != fmt.Sprint(want) {
		t.Errorf("the observer was told the outcomes %q, want %q", obs.got, want)
	}
	log, err := os.ReadFile(filepath.Join(folder, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"iteration 1: after: echo (" + path + ":10:7): after iteration 1", "iteration 2: after: echo (" + path + ":10:7): after iteration 2"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log.txt has no %q:\n%s", want, log)
		}
	}
}

// outcomes is an executor.IterationObserver that keeps the outcome figures of each
// iteration's end, "ITERATION/OF NAME VALUE".
type outcomes struct {
	mu  sync.Mutex
	got []string
}

func (o *outcomes) Logged(string)              {}
func (o *outcomes) Interval(executor.Progress) {}
func (o *outcomes) SandboxStarted(string)      {}
func (o *outcomes) Working(executor.Work)      {}

func (o *outcomes) IterationEnded(p executor.Progress, _ results.IterationInfo, _ *measure.Total) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, f := range p.Figures {
		if f.Outcome {
			o.got = append(o.got, fmt.Sprintf("%d/%d %s %g", p.Iteration, p.Of, f.Name, f.Value))
		}
	}
}
