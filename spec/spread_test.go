package spec

import (
	"slices"
	"testing"
)

// The spread rule: equal weights are plain round robin; weights give every prefix of the
// threads its shares as near as whole threads can (a stage that opens threads in order
// keeps them); a node of weight 0 gets no thread; one puts them all on the target.
func TestAssign(t *testing.T) {
	for _, c := range []struct {
		weights []int
		n       int
		want    []int
	}{
		{[]int{1, 1, 1}, 7, []int{0, 1, 2, 0, 1, 2, 0}},
		{[]int{1, 0, 0}, 3, []int{0, 0, 0}},
		{[]int{1, 3}, 8, []int{1, 0, 1, 1, 1, 0, 1, 1}},
		{[]int{0, 2, 1}, 6, []int{1, 2, 1, 1, 2, 1}},
		{[]int{0, 0}, 2, []int{0, 0}},
	} {
		if got := Assign(c.weights, c.n); !slices.Equal(got, c.want) {
			t.Errorf("Assign(%v, %d) = %v, want %v", c.weights, c.n, got, c.want)
		}
	}
	// Any first k threads are within one thread of each node's share.
	w := []int{2, 5, 3}
	a := Assign(w, 100)
	for k := 1; k <= len(a); k++ {
		counts := make([]int, len(w))
		for _, i := range a[:k] {
			counts[i]++
		}
		for i := range w {
			share := float64(k) * float64(w[i]) / 10
			if d := float64(counts[i]) - share; d > 1 || d < -1 {
				t.Fatalf("first %d threads: node %d has %d, share %.1f", k, i, counts[i], share)
			}
		}
	}
}

const spreadPlan = `version: 1
name: t
targets:
  db: {sandbox: {galera: 3}}
matrix:
  writers: [one, all, [db_node2, db_node3], {db: 1, db_node3: 3}]
iteration:
  workload:
    builtin: oltp_read_write
    threads: 8
    duration: 1s
    nodes: ${{ matrix.writers }}
`

// A matrix axis gives nodes: each of its shapes: a word, a list of nodes, a map of weights.
func TestSpreadFromAxis(t *testing.T) {
	p := mustLoad(t, spreadPlan, Options{})
	nodes := []string{"db", "db_node2", "db_node3"}
	want := []struct {
		weights []int
		says    string
	}{
		{[]int{1, 0, 0}, ""},
		{[]int{1, 1, 1}, "threads spread round robin over every node: db 3, db_node2 3, db_node3 2"},
		{[]int{0, 1, 1}, "threads spread by weight {db_node2: 1, db_node3: 1}: db_node2 4, db_node3 4"},
		{[]int{1, 0, 3}, "threads spread by weight {db: 1, db_node3: 3}: db 2, db_node3 6"},
	}
	if len(p.Iterations) != len(want) {
		t.Fatalf("%d iterations, want %d", len(p.Iterations), len(want))
	}
	for i, it := range p.Iterations {
		s := it.Workload.Nodes
		if got := s.Weights(nodes); !slices.Equal(got, want[i].weights) {
			t.Errorf("iteration %d (%s): weights %v, want %v", i+1, s, got, want[i].weights)
		}
		if got := s.Describe(nodes, 8); got != want[i].says {
			t.Errorf("iteration %d: %q, want %q", i+1, got, want[i].says)
		}
	}
}
