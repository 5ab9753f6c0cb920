package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What only a workload's kind knows is still a validate error at the plan's line and column.
func TestValidateTPCCKindErrors(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	os.WriteFile(plan, []byte(`version: 1
name: bad
targets:
  primary: {sandbox: {}}
setup:
  - workload: {builtin: oltp_read_write, action: check}
iteration:
  workload:
    builtin: tpcc
    options: {warehouses: 2, wait_times: true}
    threads: 8
    duration: 10s
`), 0o644)
	code, _, errOut := runCLI("validate", plan)
	if code != exitInvalid {
		t.Errorf("exit %d, want %d", code, exitInvalid)
	}
	for _, want := range []string{
		"plan.yaml:6:50: action check: a builtin workload has no such action (it has run, prepare, cleanup; check is one of tpcc's)",
		"plan.yaml:11:14: wait_times needs 10 terminals (connections) per warehouse: threads: 20 for 2 warehouse(s), not 8",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("validate does not say %q:\n%s", want, errOut)
		}
	}
}

// A run over more warehouses than the plan's own setup loads is a validate error at the
// run's warehouses; a plan whose iterations load their own data, or that loads none, is not.
func TestValidateTPCCMoreWarehousesThanLoaded(t *testing.T) {
	dir := t.TempDir()
	write := func(name, iteration string) string {
		plan := filepath.Join(dir, name)
		os.WriteFile(plan, []byte(`version: 1
name: bad
targets:
  primary: {sandbox: {}}
setup:
  - workload: {builtin: tpcc, action: prepare, options: {warehouses: 2}}
matrix:
  w: [1, 4]
iteration:
`+iteration+`
teardown:
  - workload: {builtin: tpcc, action: check, options: {warehouses: 3}}
`), 0o644)
		return plan
	}
	bad := write("bad.yaml", `  workload:
    builtin: tpcc
    options: {warehouses: "${{ matrix.w }}"}
    duration: 10s`)
	code, _, errOut := runCLI("validate", bad)
	if code != exitInvalid {
		t.Errorf("exit %d, want %d:\n%s", code, exitInvalid, errOut)
	}
	for _, want := range []string{
		"bad.yaml:12:27: tpcc run over 4 warehouses, but the prepare at " + bad + ":6:15 loads 2 into target primary; prepare with warehouses: 4 or more, or run with warehouses: 2",
		"bad.yaml:15:68: tpcc check over 3 warehouses, but the prepare at " + bad + ":6:15 loads 2 into target primary; prepare with warehouses: 3 or more, or check with warehouses: 2",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("validate does not say %q:\n%s", want, errOut)
		}
	}
	if strings.Count(errOut, "tpcc run over") != 1 {
		t.Errorf("the run over 1 warehouse is fine, and the one over 4 is one error, not one per iteration:\n%s", errOut)
	}

	// The iterations prepare their own warehouses: setup's count says nothing about them.
	ok := write("ok.yaml", `  before:
    - workload: {builtin: tpcc, action: prepare, options: {warehouses: "${{ matrix.w }}"}}
  workload:
    builtin: tpcc
    options: {warehouses: "${{ matrix.w }}"}
    duration: 10s`)
	code, _, errOut = runCLI("validate", ok)
	if code != exitOK {
		t.Errorf("a plan that prepares before each run: exit %d\n%s", code, errOut)
	}
}

// action: check on every kind but builtin tpcc is a validate error that says only tpcc checks.
func TestValidateCheckOnKindsThatCannot(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.sql"), []byte("SELECT 1;\n"), 0o644)
	for i, c := range []struct{ step, want string }{
		{`{sysbench: {script: oltp_read_write}, action: check}`, "plan.yaml:6:61: action check: a sysbench workload has no such action (it has run, prepare, cleanup; check is one of tpcc's)"},
		{`{transactions: [{name: a, statements: [{sql: "SELECT 1"}]}], action: check}`, "plan.yaml:6:84: action check: a transactions workload has no such action (it has run; check is one of tpcc's)"},
		{`{replay: {file: x.sql}, action: check}`, "plan.yaml:6:47: action check: a replay workload has no such action (it has run; check is one of tpcc's)"},
	} {
		plan := filepath.Join(dir, "plan.yaml")
		os.WriteFile(plan, []byte(`version: 1
name: bad
targets:
  primary: {sandbox: {}}
setup:
  - workload: `+c.step+`
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`), 0o644)
		code, _, errOut := runCLI("validate", plan)
		if code != exitInvalid || !strings.Contains(errOut, c.want) {
			t.Errorf("case %d: exit %d, want %d and %q:\n%s", i, code, exitInvalid, c.want, errOut)
		}
	}
}
