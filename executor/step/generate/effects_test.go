package generate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// A generate step's after: file is SQL run on the target: in a stranger's folder, a GRANT in
// it is a change of the user's server that the trust check refuses without
// --allow-server-changes, as in a sql_file; a foreign key added back to the plan's own table
// is not.
func TestAfterFileServerChanges(t *testing.T) {
	for _, tc := range []struct{ after, want string }{
		{"CREATE USER evil IDENTIFIED BY 'x';\nGRANT ALL ON *.* TO evil;\n", "generate after after.sql (line 1): "},
		{"ALTER TABLE t ADD FOREIGN KEY (p) REFERENCES t (id);\n", ""},
	} {
		dir := t.TempDir()
		for name, body := range map[string]string{"after.sql": tc.after, "plan.yaml": `version: 1
name: gen
targets: {db: {dsn: "u:p@tcp(127.0.0.1:3306)/shop"}}
setup:
  - generate: {tables: {t: {rows: 10}}, after: after.sql}
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := spec.Load(filepath.Join(dir, "plan.yaml"), spec.Options{Kinds: kinds.Registry()})
		if err != nil {
			t.Fatal(err)
		}
		refused := trust.Check(p, trust.Allow{Folder: true, Paths: []string{dir}})
		switch {
		case tc.want == "" && refused != nil && strings.Contains(refused.Error(), "--allow-server-changes"):
			t.Errorf("%q: refused: %v", tc.after, refused)
		case tc.want != "" && (refused == nil || !strings.Contains(refused.Error(), tc.want) || !strings.Contains(refused.Error(), "--allow-server-changes")):
			t.Errorf("%q: want refused with %q and --allow-server-changes, got %v", tc.after, tc.want, refused)
		}
		if tc.want != "" {
			if r := trust.Check(p, trust.Allow{Folder: true, Paths: []string{dir}, ServerChanges: true}); r != nil && strings.Contains(r.Error(), "generate after") {
				t.Errorf("allowed, still refused: %v", r)
			}
		}
	}
}
