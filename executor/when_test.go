package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A step's when: leaves it out of the iterations where it is false: the before step inserts
// only in cell b, the during step in neither, and the after step counts what ran (its
// statement fails on another count); the log says which steps were skipped.
func TestStepWhen(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("when", "{}", `setup:
  - sql: "CREATE DATABASE bench; CREATE TABLE bench.t (id INT AUTO_INCREMENT PRIMARY KEY, cell VARCHAR(8))"
matrix:
  cell: [a, b]
iteration:
  before:
    - sql: "INSERT INTO bench.t (cell) VALUES ('${{ matrix.cell }}')"
      when: "${{ matrix.cell == 'b' }}"
  workload:
    transactions:
      - name: read
        statements: [{sql: "SELECT 1"}]
    duration: 2s
  during:
    - at: 0s
      sql: "INSERT INTO bench.t (cell) VALUES ('during')"
      when: false
  after:
    - sql: "SELECT IF((SELECT COUNT(*) FROM bench.t) = ${{ matrix.cell == 'b' ? 1 : 0 }}, 1, (SELECT 1 UNION SELECT 2))"
`), nil, Options{})
	requireDone(t, run, out, err, 2)
	b, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	log := string(b)
	if n := strings.Count(log, "skipped (when: false)"); n != 3 {
		t.Errorf("the log says %d steps were skipped, want 3 (cell a's before, both during):\n%s", n, log)
	}
}
