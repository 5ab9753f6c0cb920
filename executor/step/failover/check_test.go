package failover_test

import (
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/workload/kinds"
	"github.com/quadrant-bench/quadrant/spec"
)

// validate refuses, at the step's position, a drill on a target it cannot fail over.
func TestCheckRefusesTargetsWithoutReplicas(t *testing.T) {
	for _, tc := range []struct{ targets, want string }{
		{"db: {sandbox: {}}", "plan.yaml:11:17: failover on db, a sandbox without replicas: there is no replica to promote"},
		{"db: {dsn: 'u:p@tcp(127.0.0.1:3306)/'}", "plan.yaml:11:17: failover on db, a dsn target: quadrant cannot kill or promote its servers"},
		{"db: {sandbox: {replicas: 1}}", ""},
	} {
		plan := `version: 1
name: drill
targets:
  ` + tc.targets + `
iteration:
  workload:
    builtin: oltp_point_select
    duration: 4s
  during:
    - at: 1s
      failover: {fault: kill}
`
		_, err := spec.LoadBytes("plan.yaml", []byte(plan), spec.Options{Kinds: kinds.Registry()})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.targets, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: want %q, got %v", tc.targets, tc.want, err)
		}
	}
}
