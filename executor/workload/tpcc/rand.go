package tpcc

import (
	"math/rand/v2"
)

// rng is one terminal's or loader's random source (never shared: no lock).
type rng struct{ r *rand.Rand }

func newRng(seed uint64) *rng {
	return &rng{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// between is a uniform integer in [lo, hi].
func (g *rng) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// cents is a uniform amount in [lo, hi] with two decimals.
func (g *rng) cents(lo, hi float64) float64 {
	return float64(g.between(int(lo*100), int(hi*100))) / 100
}

// nurand is the specification's non-uniform random NURand(A, x, y) with run constant c
// (clause 2.1.6): hot keys exist, and where they are depends on c.
func (g *rng) nurand(a, c, x, y int) int {
	return ((g.between(0, a)|g.between(x, y))+c)%(y-x+1) + x
}

// constants are the C values of NURand: the customer last name's at load and at run,
// the customer id's and the item id's.
type constants struct{ cLast, cID, olIID int }

// loadCLast is the C of C_LAST at load: fixed, so a run's C can keep the distance from it
// that clause 2.1.6.1 asks without storing anything beside the nine tables.
const loadCLast = 157

// runConstants draws the run's C values; C_LAST's differs from the load's by 65..119 but
// not 96 or 112 (clause 2.1.6.1).
func runConstants(g *rng) constants {
	c := constants{cID: g.between(0, 1023), olIID: g.between(0, 8191)}
	for {
		c.cLast = g.between(0, 255)
		d := c.cLast - loadCLast
		if d < 0 {
			d = -d
		}
		if d >= 65 && d <= 119 && d != 96 && d != 112 {
			return c
		}
	}
}

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastName is C_LAST for n in 0..999: three syllables by n's digits (clause 4.3.2.3).
func lastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// astring is a random alphanumeric string of lo..hi characters.
func (g *rng) astring(lo, hi int) string {
	b := make([]byte, g.between(lo, hi))
	for i := range b {
		b[i] = alnum[g.r.IntN(len(alnum))]
	}
	return string(b)
}

// nstring is a random numeric string of n digits.
func (g *rng) nstring(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	return string(b)
}

// data is I_DATA / S_DATA: 26..50 characters, 10% with ORIGINAL somewhere inside.
func (g *rng) data() string {
	s := g.astring(26, 50)
	if g.r.IntN(10) == 0 {
		at := g.r.IntN(len(s) - 8)
		s = s[:at] + "ORIGINAL" + s[at+8:]
	}
	return s
}

func (g *rng) zip() string { return g.nstring(4) + "11111" }
