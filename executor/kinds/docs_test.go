package kinds_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// TestGeneratedDocs fails when docs/plan.schema.json, docs/plan-reference.md or
// docs/metrics.md differ from what the plan's and the kinds' types and metrics (and the
// samplers' declared columns) generate. Regenerate with: go generate ./executor/kinds.
func TestGeneratedDocs(t *testing.T) {
	schema := spec.JSONSchema(kinds.Registry())
	var v map[string]any
	if err := json.Unmarshal(schema, &v); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	defs, _ := v["$defs"].(map[string]any)
	for _, name := range []string{"plan", "target", "sandbox", "snmp", "iteration", "step", "wait", "workload", "watch", "report", "expression"} {
		if defs[name] == nil {
			t.Errorf("schema has no definition of %s", name)
		}
	}
	for file, want := range map[string][]byte{
		"../../docs/plan.schema.json":  schema,
		"../../docs/plan-reference.md": spec.MarkdownReference(kinds.Registry()),
		"../../docs/metrics.md":        append(results.MetricsMarkdown(kinds.Metrics()), watch.ColumnsMarkdown(kinds.Samplers())...),
	} {
		if *update {
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (generate it: go generate ./executor/kinds)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is out of date with the plan types; run go generate ./executor/kinds and commit it", file)
		}
	}
}
