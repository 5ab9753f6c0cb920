package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// globals: and set_global: are SET GLOBAL, the my.cnf option by another road: on a sandbox,
// a general log written anywhere the server's OS user can is refused as it is in config.
func TestSandboxGlobalsKeepFilesInside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "statements.log")
	_, _, err := runPlan(t, `
version: 1
name: globals-guard
targets: {db: {sandbox: {}}}
setup:
  - set_global: {general_log_file: "`+outside+`"}
iteration:
  workload: {builtin: oltp_point_select, options: {tables: 1, table_size: 10}, duration: 1s}
`, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "general_log_file") || !strings.Contains(err.Error(), "outside the sandbox's directory") {
		t.Fatalf("run: %v, want the set_global refused", err)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the general log was written outside the sandbox")
	}
}
