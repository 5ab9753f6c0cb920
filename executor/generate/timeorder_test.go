package generate

import (
	"testing"
)

// TestPermInverse: inv undoes at over the whole of [0, n), for sizes that need the walk.
func TestPermInverse(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 17, 1000, 4097} {
		p := newPerm(n, 42)
		for i := range n {
			if got := p.inv(p.at(i)); got != i {
				t.Fatalf("n=%d: inv(at(%d)) = %d", n, i, got)
			}
		}
	}
}

// TestOrderedTime: row i's time never goes back as i goes up, covers the range, and with a
// step per row no two rows share one.
func TestOrderedTime(t *testing.T) {
	c := &column{name: "at", dataType: "datetime", columnType: "datetime"}
	const rows = 5000
	g, err := orderedTimeGen(c, Settings{Min: "2024-01-01", Max: "2024-01-01 02:00:00"}, rows)
	if err != nil {
		t.Fatal(err)
	}
	prev := ""
	for i := range int64(rows) {
		r := newStream(7, i)
		v := string(g(nil, i, &r))
		if v <= prev {
			t.Fatalf("row %d: %s after %s", i, v, prev)
		}
		prev = v
	}
	if prev != "'2024-01-01 02:00:00'" && prev < "'2024-01-01 01:59:00'" {
		t.Errorf("the last row's time %s is not near max", prev)
	}
}

// TestScatteredLayout: a scattered layout keeps each parent's count, and rowOf finds the rows
// at gives each parent.
func TestScatteredLayout(t *testing.T) {
	base := countLayout(3, 200, &PerParent{Min: 1, Max: 40})
	l := base.scattered(9)
	rows := l.start[len(l.start)-1]
	seen := make([]int64, 200)
	for row := range rows {
		p, line := l.at(row)
		seen[p]++
		if back := l.rowOf(p, line); back != row {
			t.Fatalf("row %d is parent %d line %d, whose row is %d", row, p, line, back)
		}
	}
	for p := range int64(200) {
		if seen[p] != l.count(p) {
			t.Fatalf("parent %d has %d rows, its count is %d", p, seen[p], l.count(p))
		}
	}
	// expr's line numbers each parent's rows 0, 1, 2... in row (time) order
	next := make([]int64, 200)
	for row := range rows {
		p, _ := l.at(row)
		if got := l.timeLine(row); got != next[p] {
			t.Fatalf("row %d is parent %d's row number %d in row order, timeLine says %d", row, p, next[p], got)
		}
		next[p]++
	}
}
