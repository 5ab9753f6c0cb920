package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/plantest"
	"github.com/quadrant-bench/quadrant/spec/trust"
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

// A Galera sandbox's sandbox.dir as a matrix axis: every node moves, data included, and the
// cluster comes back whole (node 1 bootstrapping, the others rejoining), nothing left behind.
func TestGaleraMoves(t *testing.T) {
	first, second := sandboxtest.Dir(t), sandboxtest.Dir(t)
	plan := fmt.Sprintf(`version: 1
name: galera_move
matrix:
  storage: [%s, %s]
targets:
  db:
    sandbox: {galera: 3, dir: "${{ matrix.storage }}"}
setup:
  - sql: "CREATE DATABASE bench; CREATE TABLE bench.t (id INT AUTO_INCREMENT PRIMARY KEY); INSERT INTO bench.t () VALUES ()"
    target: db_node2
iteration:
  before:
    - sql: "SET SESSION wsrep_sync_wait = 1; SELECT IF((SELECT COUNT(*) FROM bench.t) > 0 AND (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'wsrep_cluster_size') = 3, 1, (SELECT 1 UNION SELECT 2))"
      target: db_node3
  workload:
    transactions:
      - name: ins
        statements: [{sql: "INSERT INTO bench.t () VALUES ()"}]
    events: 5
  assert: ["errors == 0"]
`, first, second)
	run, out, err := runPlan(t, plan, nil, Options{Allow: trust.Allow{Paths: []string{first, second}}})
	requireDone(t, run, out, err, 2)
	log, err := os.ReadFile(filepath.Join(run.Dir, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "moving sandbox db"); n != 1 {
		t.Errorf("the sandbox moved %d times, want once", n)
	}
	if entries, _ := filepath.Glob(filepath.Join(first, "quadrant-*")); len(entries) != 0 {
		t.Errorf("the move left %v behind", entries)
	}
}
