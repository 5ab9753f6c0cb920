package spec

import (
	"fmt"
	"strings"
	"testing"
)

func orderOf(t *testing.T, order string, seed int) string {
	t.Helper()
	return orderWith(t, fmt.Sprintf("order: %s\norder_seed: %d\n", order, seed), Options{})
}

// orderWith is the order of a 2-cell plan of 3 repeats with the keys given, as "A1 B1 ...".
func orderWith(t *testing.T, keys string, opts Options) string {
	t.Helper()
	p := mustLoad(t, basePlan+`matrix: {threads: [1, 2]}
repeat: 3
`+keys+`iteration:
  workload: {builtin: oltp_point_select, threads: "${{ matrix.threads }}", duration: 1s}
`, opts)
	var s []string
	for i, it := range p.Iterations {
		if it.Index != i+1 {
			t.Fatalf("iteration %d has index %d", i+1, it.Index)
		}
		s = append(s, fmt.Sprintf("%s%d", "AB"[it.Cell-1:it.Cell], it.Repeat))
	}
	return strings.Join(s, " ")
}

func TestOrderOfRepeats(t *testing.T) {
	if got := orderOf(t, "sequential", 1); got != "A1 A2 A3 B1 B2 B3" {
		t.Errorf("sequential: %s", got)
	}
	if got := orderOf(t, "interleaved", 1); got != "A1 B1 A2 B2 A3 B3" {
		t.Errorf("interleaved: %s", got)
	}
	r1, r2 := orderOf(t, "random", 7), orderOf(t, "random", 7)
	if r1 != r2 {
		t.Errorf("random with one seed gave %s then %s", r1, r2)
	}
	// repeat numbers count each cell's runs in time, whatever the shuffle
	for _, c := range "AB" {
		want := 1
		for _, f := range strings.Fields(r1) {
			if rune(f[0]) == c {
				if f[1:] != fmt.Sprint(want) {
					t.Errorf("random %s: cell %c out of repeat order", r1, c)
				}
				want++
			}
		}
	}
	if msg := loadErr(t, basePlan+"order: shuffled\niteration: {workload: {builtin: oltp_point_select, duration: 1s}}\n", Options{}); !strings.Contains(msg, "plan.yaml:5:8") || !strings.Contains(msg, "interleaved") {
		t.Errorf("a bad order: %s", msg)
	}
}

// The repeats of compared cells alternate unless the plan says otherwise, so that a drift
// of the host falls on every cell alike; a resumed run keeps the order it started in
// (Options.Order), which a plan's own order: overrides.
func TestRepeatsAlternateByDefault(t *testing.T) {
	if got := orderWith(t, "", Options{}); got != "A1 B1 A2 B2 A3 B3" {
		t.Errorf("default: %s", got)
	}
	if got := orderWith(t, "", Options{Order: OrderSequential}); got != "A1 A2 A3 B1 B2 B3" {
		t.Errorf("a resumed sequential run: %s", got)
	}
	if got := orderWith(t, "order: interleaved\n", Options{Order: OrderSequential}); got != "A1 B1 A2 B2 A3 B3" {
		t.Errorf("the plan's own order: %s", got)
	}
}
