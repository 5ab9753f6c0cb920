package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/step/testdata/echo"
	"github.com/quadrant-bench/quadrant/executor/workload/kinds"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// A step kind is one package and one registration line: executor/step/testdata/echo,
// registered here, is checked at its line, explained, and run between the iterations of a
// real sandbox's run, its line in log.txt.
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
	var out bytes.Buffer
	explain(&out, p)
	if !strings.Contains(out.String(), "after:\n    echo: logs after iteration 2") {
		t.Errorf("explain shows no echo step:\n%s", out.String())
	}
	sandboxtest.SkipShort(t)
	folder := filepath.Join(dir, "results")
	w, err := results.Create(folder)
	if err != nil {
		t.Fatal(err)
	}
	yaml, _ := p.Redacted()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var con bytes.Buffer
	_, runErr := executor.Run(ctx, p, w, executor.Options{PlanYAML: yaml, Version: "test", SandboxDir: sandboxtest.Dir(t),
		Observer: &console{out: &con, err: &con}})
	w.Close()
	if runErr != nil {
		t.Fatalf("run: %v", runErr)
	}
	// What the kind records, as it describes it: run.json carries the description, and the
	// console's end of each iteration shows it, knowing no step kind.
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
	for _, want := range []string{"iteration 1/2 n=1: done", "· echo_length 17\n"} {
		if !strings.Contains(con.String(), want) {
			t.Errorf("the console has no %q:\n%s", want, con.String())
		}
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
