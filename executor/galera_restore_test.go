package executor

import (
	"testing"

	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// restore: setup on a Galera sandbox puts every node's data back: the second iteration
// starts from setup's 0 rows on every node, though the first wrote 20 through node 1.
func TestGaleraRestore(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("galera_restore", "{galera: 3}", `setup:
  - sql: "CREATE DATABASE bench; CREATE TABLE bench.t (id INT PRIMARY KEY)"
    target: db_node2
matrix:
  n: [1, 2]
iteration:
  restore: setup
  before:
    - sql: "SET SESSION wsrep_sync_wait = 1; SELECT IF((SELECT COUNT(*) FROM bench.t) = 0, 1, (SELECT 1 UNION SELECT 2))"
      target: db_node3
  workload:
    transactions:
      - name: ins
        statements: [{sql: "INSERT INTO bench.t VALUES (?)", args: ["seq()"]}]
    events: 20
  after:
    - sql: "SET SESSION wsrep_sync_wait = 1; SELECT IF((SELECT COUNT(*) FROM bench.t) = 20, 1, (SELECT 1 UNION SELECT 2))"
      target: db_node3
  assert: ["errors == 0"]
`), nil, Options{})
	requireDone(t, run, out, err, 2)
}
