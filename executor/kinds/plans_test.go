package kinds_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/templates"
)

var update = flag.Bool("update", false, "rewrite the generated docs (docs/) from the current code")

// testEnv is the environment the corpus is loaded with, so that results do not depend on the machine.
var testEnv = map[string]string{"HOME": "/home/dba", "BENCH_PASSWORD": "s3cret-pw"}

func TestTemplatesAndExamplesValidate(t *testing.T) {
	for _, name := range templates.Names() {
		if _, err := spec.Load("builtin:"+name, spec.Options{Env: testEnv, Kinds: kinds.Registry()}); err != nil {
			t.Errorf("template %s: %v", name, err)
		}
	}
	examples, _ := filepath.Glob("../../examples/*.yaml")
	if len(examples) < 7 {
		t.Fatalf("found %d examples", len(examples))
	}
	all := append([]string(nil), examples...)
	tpl, _ := filepath.Glob("../../templates/*.yaml")
	all = append(all, tpl...)
	for _, f := range all {
		if _, err := spec.Load(f, spec.Options{Env: testEnv, Kinds: kinds.Registry()}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		data, _ := os.ReadFile(f)
		if !strings.HasPrefix(string(data), "# yaml-language-server: $schema=../docs/plan.schema.json\n") {
			t.Errorf("%s does not start with the yaml-language-server schema line", f)
		}
	}
}

// BenchmarkLoadExample measures loading a typical plan (extends + 6 iterations), which the
// executor does twice per run (before and after sandboxes get their ports).
func BenchmarkLoadExample(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := spec.Load("../../examples/semisync-replay.yaml", spec.Options{Env: testEnv, Kinds: kinds.Registry()}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWorkloadString(t *testing.T) {
	p, err := spec.LoadBytes("plan.yaml", []byte(`version: 1
name: t
targets:
  db: {dsn: "bench:pw@tcp(db1:3307)/sbtest"}

setup:
  - workload: {sysbench: {script: oltp_read_write, args: {tables: 4}}, action: prepare, threads: 4}
  - workload: {replay: {file: plans_test.go}}
iteration:
  workload:
    rate: 50
    events: 1000
    duration: 1m
    transactions:
      - {name: lookup, weight: 9, statements: [{sql: "SELECT ?", args: ["rand_int(1, 10)"]}]}
      - {name: touch, statements: [{sql: "DO 1"}]}
`), spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want string }{
		{spec.StepBody[*spec.Workload](&p.Setup[0]).String(), "sysbench oltp_read_write prepare (tables=4), 4 thread(s)"},
		{spec.StepBody[*spec.Workload](&p.Setup[1]).String(), "replay plans_test.go over 1 connection(s)"},
		{p.Iterations[0].Workload.String(), "transactions lookup x9, touch x1, 1 thread(s), 1m0s, at most 1000 events, rate 50/s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
