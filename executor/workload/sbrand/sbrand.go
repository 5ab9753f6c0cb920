// Package sbrand reproduces sysbench's random number distributions
// (sb_rand.c: uniform, gaussian, special, pareto and master's zipfian) and
// sysbench.rand.string. The generator is per worker, not safe for concurrent use.
// The bit stream differs from sysbench's xoroshiro128+; the distributions match.
package sbrand

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Distribution names as in --rand-type.
const (
	Uniform  = "uniform"
	Gaussian = "gaussian"
	Special  = "special"
	Pareto   = "pareto"
	Zipfian  = "zipfian"
)

// DefaultType is the default --rand-type of the installed sysbench 1.0.20
// (master changed it to uniform).
const DefaultType = Special

// Options are sysbench's PRNG options (names without the rand_ prefix).
type Options struct {
	Type       string  // rand_type
	SpecIter   int     // rand_spec_iter, default 12
	SpecPct    int     // rand_spec_pct, default 1
	SpecRes    int     // rand_spec_res, default 75
	ParetoH    float64 // rand_pareto_h, default 0.2
	ZipfianExp float64 // rand_zipfian_exp, default 0.8
	Seed       uint64  // 0: random
}

// DefaultOptions are sysbench 1.0.20's defaults.
func DefaultOptions() Options {
	return Options{Type: DefaultType, SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfianExp: 0.8}
}

// ParseOptions reads rand_* options (sysbench names) over the defaults.
func ParseOptions(get func(name string) (string, bool)) (Options, error) {
	o := DefaultOptions()
	if v, ok := get("rand_type"); ok {
		switch v {
		case Uniform, Gaussian, Special, Pareto, Zipfian:
			o.Type = v
		default:
			return o, fmt.Errorf("option rand_type: %q is not one of uniform, gaussian, special, pareto, zipfian", v)
		}
	}
	ints := []struct {
		name string
		dst  *int
		min  int
		max  int
	}{{"rand_spec_iter", &o.SpecIter, 1, 1000}, {"rand_spec_pct", &o.SpecPct, 0, 100}, {"rand_spec_res", &o.SpecRes, 0, 99}}
	for _, x := range ints {
		if v, ok := get(x.name); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < x.min || n > x.max {
				return o, fmt.Errorf("option %s: %q is not an integer in %d..%d", x.name, v, x.min, x.max)
			}
			*x.dst = n
		}
	}
	floats := []struct {
		name string
		dst  *float64
	}{{"rand_pareto_h", &o.ParetoH}, {"rand_zipfian_exp", &o.ZipfianExp}}
	for _, x := range floats {
		if v, ok := get(x.name); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 {
				return o, fmt.Errorf("option %s: %q is not a non-negative number", x.name, v)
			}
			*x.dst = f
		}
	}
	if o.Type == Pareto && (o.ParetoH <= 0 || o.ParetoH >= 1) {
		return o, fmt.Errorf("option rand_pareto_h: %v must be between 0 and 1 (exclusive)", o.ParetoH)
	}
	if v, ok := get("rand_seed"); ok {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return o, fmt.Errorf("option rand_seed: %q is not a non-negative integer", v)
		}
		o.Seed = n
	}
	return o, nil
}

// Rand is one worker's generator.
type Rand struct {
	src *rand.PCG
	o   Options
	// default distribution, chosen once
	def         func(a, b uint32) uint32
	paretoPower float64
	zipf        zipfConst
}

// New returns a generator; worker distinguishes seeds when o.Seed is fixed.
func New(o Options, worker int) *Rand {
	s1, s2 := o.Seed, uint64(worker)*0x9E3779B97F4A7C15+1
	if o.Seed == 0 {
		s1, s2 = rand.Uint64(), rand.Uint64()
	}
	r := &Rand{src: rand.NewPCG(s1, s2), o: o}
	if o.ParetoH > 0 && o.ParetoH < 1 {
		r.paretoPower = math.Log(o.ParetoH) / math.Log(1.0-o.ParetoH)
	}
	r.zipf = newZipfConst(o.ZipfianExp)
	switch o.Type {
	case Uniform:
		r.def = r.Uniform
	case Gaussian:
		r.def = r.Gaussian
	case Pareto:
		r.def = r.Pareto
	case Zipfian:
		r.def = r.Zipfian
	default:
		r.def = r.Special
	}
	return r
}

// Uint64 is the raw generator output.
func (r *Rand) Uint64() uint64 { return r.src.Uint64() }

// Float64 is uniform in [0, 1).
func (r *Rand) Float64() float64 { return float64(r.src.Uint64()>>11) / (1 << 53) }

// Default draws from the configured distribution (sysbench.rand.default / sb_rand).
func (r *Rand) Default(a, b uint32) uint32 { return r.def(a, b) }

// Uniform is sb_rand_uniform: a + rnd % (b-a+1).
func (r *Rand) Uniform(a, b uint32) uint32 {
	return a + uint32(r.src.Uint64()%(uint64(b)-uint64(a)+1))
}

// Gaussian is sb_rand_gaussian: the mean of rand_spec_iter uniform draws.
func (r *Rand) Gaussian(a, b uint32) uint32 {
	t := uint64(b) - uint64(a) + 1
	var sum uint64
	for range r.o.SpecIter {
		sum += r.src.Uint64() % t
	}
	return a + uint32(sum/uint64(r.o.SpecIter))
}

// Special is sb_rand_special: with probability 1-1/(100/(100-res)) (integer division,
// 3/4 with defaults) one of the rand_spec_pct% values around the middle of the range,
// otherwise gaussian.
func (r *Rand) Special(a, b uint32) uint32 {
	return r.SpecialWith(a, b, r.o.SpecPct, r.o.SpecRes)
}

// SpecialWith is Special with explicit pct/res.
func (r *Rand) SpecialWith(a, b uint32, pct, res int) uint32 {
	if a >= b {
		return 0 // sysbench returns 0 here too
	}
	t := uint64(b) - uint64(a) + 1
	rangeSize := t * uint64(100/(100-res))
	x := r.src.Uint64() % rangeSize
	if x < t {
		var sum uint64
		for range r.o.SpecIter {
			sum += r.src.Uint64() % t
		}
		return a + uint32(sum/uint64(r.o.SpecIter))
	}
	d := t * uint64(pct) / 100
	if d < 1 {
		d = 1
	}
	x %= d
	x += t/2 - t*uint64(pct)/(100*2)
	return a + uint32(x)
}

// Pareto is sb_rand_pareto: a + (b-a+1) * u^(log h / log(1-h)).
func (r *Rand) Pareto(a, b uint32) uint32 {
	return a + uint32(float64(uint64(b)-uint64(a)+1)*math.Pow(r.Float64(), r.paretoPower))
}

// Zipfian is sysbench master's sb_rand_zipfian with rand_zipfian_exp.
func (r *Rand) Zipfian(a, b uint32) uint32 {
	return a + r.zipf.sample(r, uint64(b)-uint64(a)+1) - 1
}

// ZipfianExp is Zipfian with an explicit exponent (computes its constants each call).
func (r *Rand) ZipfianExp(a, b uint32, e float64) uint32 {
	if e == r.o.ZipfianExp {
		return r.Zipfian(a, b)
	}
	z := newZipfConst(e)
	return a + z.sample(r, uint64(b)-uint64(a)+1) - 1
}

// zipfConst: rejection-inversion sampling (Hörmann & Derflinger), as in sysbench master.
type zipfConst struct {
	e, s, hIntegralX1 float64
}

func newZipfConst(e float64) zipfConst {
	return zipfConst{
		e:           e,
		hIntegralX1: zipfHIntegral(1.5, e) - 1,
		s:           2 - zipfHIntegralInverse(zipfHIntegral(2.5, e)-zipfH(2, e), e),
	}
}

func (z zipfConst) sample(r *Rand, n uint64) uint32 {
	return uint32(z.rank(r.Float64, n))
}

// rank draws a rank of 1..n, its uniform numbers in [0, 1) from float.
func (z zipfConst) rank(float func() float64, n uint64) uint64 {
	hn := zipfHIntegral(float64(n)+0.5, z.e)
	for {
		u := hn + float()*(z.hIntegralX1-hn)
		x := zipfHIntegralInverse(u, z.e)
		k := uint64(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > n {
			k = n
		}
		if float64(k)-x <= z.s || u >= zipfHIntegral(float64(k)+0.5, z.e)-zipfH(float64(k), z.e) {
			return k
		}
	}
}

// ZipfRank draws a rank of 1..n with exponent e as Zipfian does, its uniform numbers in
// [0, 1) from float: a caller with a stream of its own (one per generated row) gets
// sysbench's distribution without a Rand.
func ZipfRank(float func() float64, n uint64, e float64) uint64 {
	return newZipfConst(e).rank(float, n)
}

func zipfH(x, e float64) float64 { return math.Exp(-e * math.Log(x)) }

func zipfHIntegral(x, e float64) float64 {
	lx := math.Log(x)
	return helper2((1-e)*lx) * lx
}

func zipfHIntegralInverse(x, e float64) float64 {
	t := x * (1 - e)
	if t < -1 {
		t = -1
	}
	return math.Exp(helper1(t) * x)
}

func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}

// String fills tmpl like sysbench.rand.string: '#' a digit, '@' a lowercase letter,
// anything else copied. It appends to dst and returns it.
func (r *Rand) String(dst []byte, tmpl string) []byte {
	for i := 0; i < len(tmpl); i++ {
		switch tmpl[i] {
		case '#':
			dst = append(dst, '0'+byte(r.src.Uint64()%10))
		case '@':
			dst = append(dst, 'a'+byte(r.src.Uint64()%26))
		default:
			dst = append(dst, tmpl[i])
		}
	}
	return dst
}

// CTemplate and PadTemplate are oltp_common.lua's c and pad formats:
// ten (c, 119 chars) and five (pad, 59 chars) groups of 11 digits joined by '-'.
var (
	CTemplate   = strings.Repeat("###########-", 9) + "###########"
	PadTemplate = strings.Repeat("###########-", 4) + "###########"
)
