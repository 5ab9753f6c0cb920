package reproduce

import (
	"math"
	"strings"
	"testing"
)

func sd(change, lo, hi float64, n int) Side {
	return Side{Change: change, Lo: lo, Hi: hi, Repeats: n}
}

func eff(p, h Side, dlo, dhi float64, marks ...string) Effect {
	return Effect{Published: p, Here: h, Diff: h.Change - p.Change, DiffLo: dlo, DiffHi: dhi, Band: band(p.Change), Marks: marks}
}

// Each branch of the rule, on numbers worked by hand.
func TestDecideEachBranch(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		e    Effect
		want string
		why  string
	}{
		{"same direction, difference holds 0", eff(sd(21.9, 3.5, 43, 3), sd(20, 12, 28, 3), -25, 20), Reproduced, "same direction"},
		// +200% published: the band is 40 points, a difference of -30 (-38..-22) is within it
		{"same direction, difference within the band", eff(sd(200, 190, 210, 3), sd(170, 165, 175, 3), -38, -22), Reproduced, "band"},
		{"opposite direction", eff(sd(-20, -22, -18, 3), sd(10, 8, 12, 3), 26, 34), NotReproduced, "opposite direction"},
		{"opposite direction, two repeats", eff(sd(-20, -22, -18, 3), sd(10, 8, 12, 2), 26, 34), Inconclusive, "too few to call it not reproduced"},
		{"the effect's environment is gone", eff(sd(-60, -62, -58, 3), sd(0.5, -1, 2, 3), 57, 63), NotReproduced, "beyond the ±12.0-point band"},
		{"difference beyond the band, two repeats", eff(sd(-60, -62, -58, 3), sd(0.5, -1, 2, 2), 57, 63), Inconclusive, "2 repeats"},
		{"the issue's +21.9% against +5.6% ±15%", eff(sd(21.9, 3.5, 43, 3), sd(5.6, -9.4, 20.6, 3), -40, 3), Inconclusive, "no clear effect here"},
		{"no effect, none here", eff(sd(0.4, -2, 3, 3), sd(-0.5, -3, 2, 3), -4, 3), Reproduced, "no effect published"},
		{"no effect, wide here", eff(sd(0.4, -2, 3, 3), sd(-0.5, -9, 8, 3), -10, 8), Inconclusive, "no effect published"},
		{"no effect, a clear one here", eff(sd(0.4, -2, 3, 3), sd(30, 27, 33, 3), 25, 32), NotReproduced, "beyond"},
		// -20% published (band 5 points), -12% here (-14..-10): same direction, difference 4..12 points
		{"same direction, partly beyond the band", eff(sd(-20, -21, -19, 3), sd(-12, -14, -10, 3), 4, 12), Inconclusive, "partly beyond"},
		{"one repeat", eff(sd(-20, -21, -19, 3), sd(-20, nan, nan, 1), nan, nan), Inconclusive, "1 repeat"},
		{"no interval", eff(sd(-20, -21, -19, 3), sd(-20, nan, nan, 3), nan, nan), Inconclusive, "no interval"},
		{"stalled", eff(sd(21.9, 3.5, 43, 3), sd(20, 12, 28, 3), -25, 20, "here: iteration 7 (threads=16) stalled: measured 40.0 s of a planned 10 s"),
			Inconclusive, "not judged: here: iteration 7"},
		{"failed assertions only: judged", eff(sd(21.9, 3.5, 43, 3), sd(20, 12, 28, 3), -25, 20, "here: iteration 7 (threads=16) "+assertionsMark+": p99_ms < 5"),
			Reproduced, "same direction"},
	}
	for _, c := range cases {
		got, why := Decide(c.e)
		if got != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%s: %s (%s), want %s with %q", c.name, got, why, c.want, c.why)
		}
	}
}

func TestBand(t *testing.T) {
	for _, c := range []struct{ change, want float64 }{{0, 5}, {-20, 5}, {25, 5}, {-60, 12}, {200, 40}, {math.NaN(), 5}} {
		if got := band(c.change); got != c.want {
			t.Errorf("band(%v) = %v, want %v", c.change, got, c.want)
		}
	}
}
