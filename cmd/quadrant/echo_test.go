package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/kinds/testdata/echo"
	"github.com/quadrant-bench/quadrant/spec"
)

// explain shows a step kind it has never heard of through the kind's own Explain: the CLI's
// part of executor/kinds' TestAStepKindIsOnePackage, which runs testdata/echo end to end.
func TestExplainShowsAStepKindOfOnePackage(t *testing.T) {
	registry, err := kinds.Registry().WithSteps(&echo.Kind) // the one line
	if err != nil {
		t.Fatal(err)
	}
	plan := "version: 1\nname: echo\ntargets: {db: {sandbox: {}}}\nmatrix: {n: [1, 2]}\n" +
		"iteration:\n  workload: {builtin: oltp_point_select, duration: 1s, options: {tables: 1, table_size: 100}}\n" +
		"  after:\n    - echo: \"after iteration ${{ iteration.index }}\"\n"
	p, err := spec.LoadBytes("plan.yaml", []byte(plan), spec.Options{Kinds: registry})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	explain(&out, p)
	if !strings.Contains(out.String(), "after:\n    echo: logs after iteration 2") {
		t.Errorf("explain shows no echo step:\n%s", out.String())
	}
}
