package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// A pid_file that names a file of secrets (once /etc/shadow: 18 of its lines reached
// run.json, the report and the console) is refused as holding no process id, and none of
// its content is quoted in the error, log.txt or run.json.
func TestPidFileIsNeverQuoted(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "pidshadow"})
	shadow := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(shadow, []byte("root:$6$hash-of-the-victim:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"), 0o600)
	plan := fmt.Sprintf(`
version: 1
name: executor-pidshadow
targets:
  db: {dsn: "%s", pid_file: %s}
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 10}, duration: 1s}
`, c.Primary.DSN(""), shadow)
	run, _, err := runPlan(t, plan, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "pid_file "+shadow+" does not hold a process id") {
		t.Fatalf("want the pid_file refused as holding no process id, got %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(run.Dir, "log.txt"))
	info, _ := os.ReadFile(filepath.Join(run.Dir, "run.json"))
	for name, text := range map[string]string{"the error": err.Error(), "log.txt": string(log), "run.json": string(info)} {
		if strings.Contains(text, "victim") || strings.Contains(text, "daemon:") {
			t.Errorf("%s quotes the pid_file's content:\n%s", name, text)
		}
	}
}
