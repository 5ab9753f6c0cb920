package sbrand

import (
	"math"
	"strings"
	"testing"
)

func gen(t *testing.T, typ string) *Rand {
	t.Helper()
	o := DefaultOptions()
	o.Type = typ
	o.Seed = 42
	return New(o, 0)
}

func frac(n int, f func() bool) float64 {
	c := 0
	for range n {
		if f() {
			c++
		}
	}
	return float64(c) / float64(n)
}

func TestUniform(t *testing.T) {
	r := gen(t, Uniform)
	sum := 0.0
	for range 100000 {
		v := r.Default(5, 14)
		if v < 5 || v > 14 {
			t.Fatalf("out of range: %d", v)
		}
		sum += float64(v)
	}
	if m := sum / 100000; math.Abs(m-9.5) > 0.05 {
		t.Fatalf("mean %.3f, want 9.5", m)
	}
}

// Special with sysbench's defaults: 100/(100-75) = 4, so 3/4 of the draws fall on the
// 1% of values around the middle ([4951, 5050] of 1..10000), the rest is gaussian
// (about 4.8% of which also lands there).
func TestSpecial(t *testing.T) {
	r := gen(t, Special)
	f := frac(200000, func() bool { v := r.Default(1, 10000); return v >= 4951 && v <= 5050 })
	if f < 0.75 || f > 0.775 {
		t.Fatalf("hot fraction %.4f, want about 0.762", f)
	}
	if v := r.Special(7, 7); v != 0 {
		t.Fatalf("a >= b returns 0 like sysbench, got %d", v)
	}
}

// Gaussian is the mean of 12 uniform draws: sd = range/sqrt(12*12).
func TestGaussian(t *testing.T) {
	r := gen(t, Gaussian)
	var sum, sq float64
	n := 100000
	for range n {
		v := float64(r.Default(0, 11999))
		sum += v
		sq += v * v
	}
	mean := sum / float64(n)
	sd := math.Sqrt(sq/float64(n) - mean*mean)
	if math.Abs(mean-5999.5) > 20 || math.Abs(sd-1000) > 30 {
		t.Fatalf("mean %.1f sd %.1f, want 5999.5 and 1000", mean, sd)
	}
}

// Pareto h=0.2: a + t*u^(log h/log(1-h)), so P(x < a + 0.2t) = 0.2^(log 0.8/log 0.2) = 0.8.
func TestPareto(t *testing.T) {
	r := gen(t, Pareto)
	f := frac(100000, func() bool { return r.Default(1, 10000) <= 2000 })
	if math.Abs(f-0.8) > 0.01 {
		t.Fatalf("P(first 20%%) = %.4f, want 0.8", f)
	}
}

// Zipfian: P(k) = k^-e / H(n, e).
func TestZipfian(t *testing.T) {
	r := gen(t, Zipfian)
	n, e := 1000, 0.8
	h := 0.0
	for k := 1; k <= n; k++ {
		h += math.Pow(float64(k), -e)
	}
	counts := map[uint32]int{}
	draws := 200000
	for range draws {
		v := r.Default(1, uint32(n))
		if v < 1 || v > uint32(n) {
			t.Fatalf("out of range %d", v)
		}
		counts[v]++
	}
	for _, k := range []uint32{1, 2, 10} {
		want := math.Pow(float64(k), -e) / h
		got := float64(counts[k]) / float64(draws)
		if math.Abs(got-want)/want > 0.08 {
			t.Errorf("P(%d) = %.4f, want %.4f", k, got, want)
		}
	}
}

func TestStringTemplates(t *testing.T) {
	r := gen(t, Uniform)
	c := string(r.String(nil, CTemplate))
	pad := string(r.String(nil, PadTemplate))
	if len(c) != 119 || len(pad) != 59 || len(strings.Split(c, "-")) != 10 || len(strings.Split(pad, "-")) != 5 {
		t.Fatalf("c %q pad %q", c, pad)
	}
	for _, g := range strings.Split(c, "-") {
		if len(g) != 11 || strings.Trim(g, "0123456789") != "" {
			t.Fatalf("group %q", g)
		}
	}
	s := string(r.String(nil, "##-@@@/x"))
	if len(s) != 8 || strings.Trim(s[:2], "0123456789") != "" || strings.Trim(s[3:6], "abcdefghijklmnopqrstuvwxyz") != "" || s[2] != '-' || s[6:] != "/x" {
		t.Fatalf("template result %q", s)
	}
}

func TestParseOptions(t *testing.T) {
	get := func(m map[string]string) func(string) (string, bool) {
		return func(n string) (string, bool) { v, ok := m[n]; return v, ok }
	}
	o, err := ParseOptions(get(nil))
	if err != nil || o.Type != Special || o.SpecPct != 1 || o.SpecRes != 75 || o.SpecIter != 12 {
		t.Fatalf("defaults %+v %v", o, err)
	}
	if _, err := ParseOptions(get(map[string]string{"rand_type": "zipf"})); err == nil || !strings.Contains(err.Error(), "rand_type") {
		t.Fatalf("bad rand_type accepted: %v", err)
	}
	if _, err := ParseOptions(get(map[string]string{"rand_spec_res": "100"})); err == nil {
		t.Fatal("rand_spec_res=100 (division by zero in sysbench) accepted")
	}
}
