package generate

import (
	"hash/fnv"
	"math"
	"math/bits"

	"github.com/quadrant-bench/quadrant/executor/workload/sbrand"
)

// stream is the randomness of one value: seeded from (seed, table, column, row), so a row
// comes out the same whichever thread makes it and in whatever order.
type stream struct{ s uint64 }

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func hashName(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

func newStream(key uint64, row int64) stream {
	return stream{s: mix(key ^ mix(uint64(row)+0x9e3779b97f4a7c15))}
}

func (r *stream) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix(r.s)
}

// intn is uniform in [0, n).
func (r *stream) intn(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}

func (r *stream) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// pick draws an index of [0, n) by distribution; row is the row's index, for sequential.
func (r *stream) pick(dist string, n uint64, row int64) uint64 {
	if n <= 1 {
		return 0
	}
	switch dist {
	case "zipf":
		return zipf(r, n) - 1
	case "normal":
		// around the middle, a sixth of the range for a standard deviation, as most of
		// the values then fall in it
		mean, sd := float64(n-1)/2, float64(n)/6
		for {
			u1, u2 := r.float(), r.float()
			if u1 == 0 {
				continue
			}
			x := mean + sd*math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2)
			if x >= 0 && x < float64(n) {
				return uint64(x)
			}
		}
	case "sequential":
		return uint64(row) % n
	}
	return r.intn(n)
}

// zipf draws a rank of 1..n with exponent 1, sysbench's zipfian (rejection-inversion),
// from a row's own stream.
func zipf(r *stream, n uint64) uint64 { return sbrand.ZipfRank(r.float, n, 1) }

// perm is a bijection of [0, n): a Feistel network over the next even power of two, walked
// until it lands inside [0, n). Unique keys come from it, so they never collide and need no
// duplicate-key retries, yet do not follow the insert order.
type perm struct {
	n    uint64
	half uint
	keys [4]uint64
}

func newPerm(n uint64, key uint64) perm {
	half := uint(1)
	for n > 1<<(2*half) {
		half++
	}
	p := perm{n: n, half: half}
	for i := range p.keys {
		p.keys[i] = mix(key + uint64(i)*0x9e3779b97f4a7c15)
	}
	return p
}

func (p perm) at(i uint64) uint64 {
	mask := uint64(1)<<p.half - 1
	x := i
	for {
		l, r := x>>p.half, x&mask
		for _, k := range p.keys {
			l, r = r, l^(mix(r^k)&mask)
		}
		x = l<<p.half | r
		if x < p.n {
			return x
		}
	}
}

// inv is at's inverse: the i whose at is x. The walk back from x passes the points at
// passed (all outside [0, n)) and stops at the first inside, which is where at began.
func (p perm) inv(x uint64) uint64 {
	mask := uint64(1)<<p.half - 1
	for {
		l, r := x>>p.half, x&mask
		for k := len(p.keys) - 1; k >= 0; k-- {
			l, r = r^(mix(l^p.keys[k])&mask), l
		}
		x = l<<p.half | r
		if x < p.n {
			return x
		}
	}
}
