package spec

import (
	"encoding/json"
	"os"
	"testing"
)

// TestGeneratedDocs fails when docs/plan.schema.json or docs/plan-reference.md differ from what
// the types generate. Regenerate with: go generate ./spec (or go test ./spec -run TestGeneratedDocs -update).
func TestGeneratedDocs(t *testing.T) {
	schema := JSONSchema()
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
		"../docs/plan.schema.json":  schema,
		"../docs/plan-reference.md": MarkdownReference(),
	} {
		if *update {
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (generate it: go generate ./spec)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is out of date with the plan types; run go generate ./spec and commit it", file)
		}
	}
}
