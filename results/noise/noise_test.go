package noise

import (
	"math"
	"testing"
)

func TestStatistics(t *testing.T) {
	v := []float64{4, 1, 3, 2}
	if m := Mean(v); m != 2.5 {
		t.Errorf("Mean = %v, want 2.5", m)
	}
	if m := Median(v); m != 2.5 {
		t.Errorf("Median = %v, want 2.5", m)
	}
	if c := CV(v); math.Abs(c-0.5164) > 1e-4 {
		t.Errorf("CV = %v, want 0.5164 (sd 1.291 over 2.5)", c)
	}
	if p := Percentile([]float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}, 95); p != 10 {
		t.Errorf("p95 of 1..10 = %v, want 10 (nearest rank)", p)
	}
	if p := Percentile([]float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}, 50); p != 5 {
		t.Errorf("p50 of 1..10 = %v, want 5", p)
	}
	if c := Change(200, 250); c != 25 {
		t.Errorf("Change(200, 250) = %v, want 25", c)
	}
	for _, f := range []float64{Mean(nil), Median(nil), CV([]float64{1}), Percentile(nil, 95), Change(0, 1)} {
		if !math.IsNaN(f) {
			t.Errorf("undefined statistic = %v, want NaN", f)
		}
	}
}

func TestChangeCI(t *testing.T) {
	a := []float64{10, 10.5, 9.5, 10.2, 9.8, 10.1, 9.9, 10.3}
	b := make([]float64, len(a))
	for i, x := range a {
		b[i] = 2 * x
	}
	ch, lo, hi := ChangeCI(NewRand(1, "doubled"), a, b)
	if math.Abs(ch-100) > 1e-9 || !(lo > 90 && lo < 100 && hi > 100 && hi < 110) {
		t.Errorf("doubled: change %v CI %v..%v; want 100 within about ±5", ch, lo, hi)
	}
	ch2, lo2, hi2 := ChangeCI(NewRand(1, "doubled"), a, b)
	if ch2 != ch || lo2 != lo || hi2 != hi {
		t.Errorf("same seed gave %v %v..%v, then %v %v..%v", ch, lo, hi, ch2, lo2, hi2)
	}
	if _, lo, hi := ChangeCI(NewRand(1, "itself"), a, a); !(lo < 0 && hi > 0) {
		t.Errorf("a sample against itself: CI %v..%v, want it to hold 0", lo, hi)
	}
	if _, lo, _ := ChangeCI(NewRand(1, "one"), a[:1], b); !math.IsNaN(lo) {
		t.Errorf("one value on a side: CI from %v, want NaN", lo)
	}
}

// The expanded interval's factor: t's width over the bootstrap's, about 2.7 for 3 values,
// falling towards 1 as values come.
func TestWiden(t *testing.T) {
	for _, c := range []struct {
		n      int
		lo, hi float64
	}{{3, 2.6, 2.8}, {5, 1.5, 1.65}, {10, 1.18, 1.25}, {31, 1.04, 1.1}, {200, 1.0, 1.02}} {
		if k := Widen(c.n); k < c.lo || k > c.hi {
			t.Errorf("Widen(%d) = %v, want %v..%v", c.n, k, c.lo, c.hi)
		}
	}
	if lo, hi := WidenAbout(8, 14, 10, 3); math.Abs(lo-(10-2*Widen(3))) > 1e-9 || math.Abs(hi-(10+4*Widen(3))) > 1e-9 {
		t.Errorf("WidenAbout: %v %v", lo, hi)
	}
	if !math.IsNaN(Widen(1)) {
		t.Error("one value widened")
	}
}

// Four equally noisy means of 3 values give the sum 8 degrees of freedom; one that dominates
// gives its own 2; t follows (4.303 at 2, 2.306 at 8, rounded down between).
func TestWelchDFAndT95(t *testing.T) {
	if df := WelchDF([]float64{1, 1, 1, 1}, []int{3, 3, 3, 3}); math.Abs(df-8) > 1e-9 {
		t.Errorf("equal parts: df %v, want 8", df)
	}
	if df := WelchDF([]float64{100, 1e-9, 1e-9, 1e-9}, []int{3, 3, 3, 3}); math.Abs(df-2) > 1e-3 {
		t.Errorf("one part dominates: df %v, want 2", df)
	}
	for _, c := range []struct{ df, want float64 }{{2, 4.303}, {8, 2.306}, {8.9, 2.306}, {0.5, math.NaN()}} {
		if got := T95(c.df); !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("T95(%v) = %v, want %v", c.df, got, c.want)
		}
	}
	if math.Abs(Widen(3)-2.69) > 0.01 {
		t.Errorf("Widen(3) = %v, want 2.69 as before", Widen(3))
	}
}
