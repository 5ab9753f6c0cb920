package preflight

import (
	"os/exec"
	"strings"
	"testing"
)

// The pre-flight is pure functions of the plan and the servers' answers: it depends on
// spec and the targets, and knows no workload or step kind by its package (a kind declares
// what the pre-flight asks in its spec.Kind or spec.StepKind). go list, not a grep of the
// imports: a kind reached through another package counts too.
func TestDependsOnNoKind(t *testing.T) {
	// go test puts its own go first on the PATH
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/quadrant-bench/quadrant/"
	var deps []string
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, module) {
			continue
		}
		deps = append(deps, p)
		rel := strings.TrimPrefix(p, module)
		for _, kinds := range []string{"executor/workload", "executor/step", "executor/generate", "executor/kinds"} {
			if rel == kinds || strings.HasPrefix(rel, kinds+"/") {
				t.Errorf("the pre-flight depends on %s: have the kind declare what the pre-flight needs in spec instead", p)
			}
		}
	}
	if len(deps) < 2 {
		t.Fatalf("go list -deps named %v: the test would find nothing", deps)
	}
}
