package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// A replay whose every session fails with the server's 1049 (its captured database does not
// exist on the target) is a server answering: log.txt must not call the target unreachable,
// which sent a user looking for a network fault that was not there.
func TestServerErrorsAreNotUnreachable(t *testing.T) {
	var log strings.Builder
	for s := 1; s <= 3; s++ {
		fmt.Fprintf(&log, "# Time: 261201 10:00:0%d\n# User@Host: app[app] @ localhost []\n# Thread_id: %d  Schema: nosuch  QC_hit: No\n"+
			"# Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\n# Rows_affected: 0  Bytes_sent: 58\n"+
			"SET timestamp=%d;\nSELECT %d;\n", s, 10+s, 1796112000+s, s)
	}
	run, _, err := runPlan(t, `
version: 1
name: answered
targets: {db: {sandbox: {}}}
iteration:
  workload:
    replay: {file: slow.log, timing: none}
    duration: 3s
`, map[string]string{"slow.log": log.String()}, Options{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	text, err := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	// A replay goes on after the server's errors and counts them by code.
	if n, ok := run.Summary.Float(0, "error.1049"); !ok || n < 3 {
		t.Fatalf("the sessions did not meet 1049 (error.1049 %q), so the test shows nothing:\n%s", run.Summary.Value(0, "error.1049"), text)
	}
	if strings.Contains(string(text), "unreachable") {
		t.Errorf("log.txt calls a server that answered 1049 unreachable:\n%s", text)
	}
}
