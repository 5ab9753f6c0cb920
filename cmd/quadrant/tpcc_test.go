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
		"plan.yaml:6:50: action check: a builtin workload has no consistency check",
		"plan.yaml:11:14: wait_times needs 10 terminals (connections) per warehouse: threads: 20 for 2 warehouse(s), not 8",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("validate does not say %q:\n%s", want, errOut)
		}
	}
}
