package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// A watch.status glob that matches no variable of the server gives no column: the run says
// so, with the glob and the server's version, rather than leaving the user to wonder why
// Innodb_rows_* (MySQL's; MariaDB 10.6+ has none) is missing from the time series.
func TestStatusGlobMatchingNothingIsSaid(t *testing.T) {
	run, _, err := runPlan(t, `
version: 1
name: glob
targets: {db: {sandbox: {}}}
iteration:
  workload: {builtin: oltp_point_select, options: {tables: 1, table_size: 10}, duration: 1s}
watch:
  status: [Com_select, "Innodb_rows_*", "Handler_read_*"]
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 10}}
`, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	text := string(log)
	if !strings.Contains(text, `warning: watch.status: "Innodb_rows_*" matches no status variable of target db (MariaDB 10.`) {
		t.Fatalf("log.txt does not name the glob that matched nothing and the server:\n%s", text)
	}
	if strings.Contains(text, `"Handler_read_*" matches no`) || strings.Contains(text, `"Com_select" matches no`) {
		t.Fatalf("a glob that matched, or a literal name, was warned about:\n%s", text)
	}
}
