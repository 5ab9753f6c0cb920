package generate

import "sync"

// distinctDraws gives the parents of one child's lines in a key of two foreign keys (the
// second foreign key of dept_emp's (emp_no, dept_no)): the n lines of child-layout parent p
// take n distinct parent rows, each drawn by the foreign key's distribution, so that the
// pair never repeats and yet the rows spread as asked over the whole parent table.
type distinctDraws struct {
	key  uint64
	dist string
	m    uint64 // the second parent's rows
	scat perm   // spreads zipf's and normal's favoured ranks over the table

	mu    sync.Mutex
	cache map[int64][]uint64 // recent first parents' lists: their lines are consecutive rows
}

func newDistinctDraws(key uint64, dist string, m uint64) *distinctDraws {
	return &distinctDraws{key: key, dist: dist, m: m, scat: newPerm(m, key^0x5bd1e995), cache: map[int64][]uint64{}}
}

// at is line l of the n lines of first parent p.
func (d *distinctDraws) at(p, l, n int64) uint64 {
	d.mu.Lock()
	list, ok := d.cache[p]
	d.mu.Unlock()
	if !ok {
		list = d.list(p, n)
		d.mu.Lock()
		if len(d.cache) >= 1024 {
			clear(d.cache) // the threads walk their own ranges: old parents do not come back
		}
		d.cache[p] = list
		d.mu.Unlock()
	}
	return list[l]
}

// list draws the n distinct values of parent p: by the distribution, a value seen already
// drawn again; past a bound of tries (a zipf asked for nearly every parent row), the values
// left come in the order of a permutation of p's own, so the list always ends.
func (d *distinctDraws) list(p, n int64) []uint64 {
	out := make([]uint64, 0, n)
	seen := make(map[uint64]bool, n)
	if d.dist == "sequential" {
		for l := range n {
			out = append(out, (uint64(p)+uint64(l))%d.m)
		}
		return out
	}
	r := newStream(d.key, p)
	for tries := 0; int64(len(out)) < n && tries < 8*int(n)+64; tries++ {
		x := r.pick(d.dist, d.m, 0)
		if d.dist == "zipf" || d.dist == "normal" {
			x = d.scat.at(x)
		}
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	rest := newPerm(d.m, d.key^mix(uint64(p)))
	for i := uint64(0); int64(len(out)) < n && i < d.m; i++ {
		if x := rest.at(i); !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
