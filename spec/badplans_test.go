package spec_test

// An external test package: it loads spec's own corpus with the real kinds, which
// executor/kinds registers (layout_test.go lets spec's external tests import that
// registry and nothing else of the executor; spec itself never does).

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/bad/*.err) from the current output")

// testEnv is the environment the corpus is loaded with, so that results do not depend on the machine.
var testEnv = map[string]string{"HOME": "/home/dba", "BENCH_PASSWORD": "s3cret-pw"}

// TestBadPlans loads every plan of testdata/bad with the real kinds and compares all its
// errors, with positions, to the golden NAME.err next to it.
func TestBadPlans(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) < 30 {
		t.Fatalf("want at least 30 bad plans, found %d (%v)", len(files), err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			_, err := spec.Load(f, spec.Options{Env: testEnv, Kinds: kinds.Registry()})
			if err == nil {
				t.Fatalf("%s loaded without error", f)
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden file: %v (run go test ./spec -run TestBadPlans -update and review it)", err)
			}
			if got != string(want) {
				t.Errorf("errors of %s differ\n got:\n%s\nwant:\n%s", f, got, want)
			}
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				if !strings.HasPrefix(line, f+":") && !strings.HasPrefix(line, "testdata/bad/") {
					t.Errorf("error without a position in the plan: %q", line)
				}
			}
		})
	}
}
