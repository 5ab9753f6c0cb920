package executor

import (
	"testing"

	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A plan's Galera sandbox gives the run its nodes as targets: db (node 1) runs the workload,
// a setup step on db_node3 makes its table, and an after step on db_node2 reads every row
// the workload wrote on node 1 (through wsrep_sync_wait, or the statement fails); run.json
// has each node with its SST method.
func TestGaleraNodesAreTargets(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("galera", "{galera: 3}", `setup:
  - sql: "CREATE DATABASE bench; CREATE TABLE bench.t (id INT PRIMARY KEY)"
    target: db_node3
iteration:
  workload:
    transactions:
      - name: ins
        statements: [{sql: "INSERT INTO bench.t VALUES (?)", args: ["seq()"]}]
    events: 20
  after:
    - sql: "SET SESSION wsrep_sync_wait = 1; SELECT IF((SELECT COUNT(*) FROM bench.t) = 20, 1, (SELECT 1 UNION SELECT 2))"
      target: db_node2
  assert: ["errors == 0"]
`), nil, Options{})
	requireDone(t, run, out, err, 1)
	kinds := map[string]string{}
	for _, ti := range run.Info.Targets {
		kinds[ti.Name] = ti.Kind
		// run.json records how each node joined and that it replicates, in its variables.
		if m, on := ti.VariablesBefore["wsrep_sst_method"], ti.VariablesBefore["wsrep_on"]; m != "rsync" || on != "ON" {
			t.Errorf("run.json's target %s: wsrep_sst_method %q, wsrep_on %q; want rsync, ON", ti.Name, m, on)
		}
	}
	for _, name := range []string{"db", "db_node2", "db_node3"} {
		if kinds[name] != "sandbox" {
			t.Errorf("run.json's target %s: kind %q, want sandbox (targets %v)", name, kinds[name], kinds)
		}
	}
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, "target") == "db" {
			if n := col(t, run.Summary, i, "transactions"); n != 20 {
				t.Errorf("db committed %v transactions, want 20", n)
			}
		}
	}
}
