package transactions

import (
	"fmt"
	"math"

	"github.com/quadrant-bench/quadrant/executor/workload/sbrand"
)

// funcs are the generator functions of one worker (its own random state).
type funcs struct {
	m   *Mix
	id  int
	rng *sbrand.Rand
	buf []byte
}

func newFuncs(m *Mix, id int) *funcs {
	return &funcs{m: m, id: id, rng: sbrand.New(m.randOp, id)}
}

// bounds reads (lo, hi) integer arguments into the uint32 domain sysbench's
// generators use, keeping the offset for negative lows.
func bounds(name string, args []any) (lo, hi int64, err error) {
	if len(args) < 2 {
		return 0, 0, fmt.Errorf("%s(lo, hi): want 2 arguments, got %d", name, len(args))
	}
	lo, err = toInt(name, args[0])
	if err == nil {
		hi, err = toInt(name, args[1])
	}
	if err == nil && hi < lo {
		err = fmt.Errorf("%s(%d, %d): hi is below lo", name, lo, hi)
	}
	if err == nil && hi-lo > math.MaxUint32-1 {
		err = fmt.Errorf("%s(%d, %d): range wider than 2^32", name, lo, hi)
	}
	return lo, hi, err
}

func toInt(name string, v any) (int64, error) {
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case float64:
		return int64(x), nil
	}
	return 0, fmt.Errorf("%s: %v (%T) is not a number", name, v, v)
}

func (f *funcs) dist(name string, args []any, draw func(a, b uint32) uint32) (any, error) {
	lo, hi, err := bounds(name, args)
	if err != nil {
		return nil, err
	}
	return int(lo + int64(draw(0, uint32(hi-lo)))), nil
}

func (f *funcs) randInt(args ...any) (any, error) { return f.dist("rand_int", args, f.rng.Uniform) }
func (f *funcs) randGauss(args ...any) (any, error) {
	return f.dist("rand_gauss", args, f.rng.Gaussian)
}
func (f *funcs) randSpecial(args ...any) (any, error) {
	return f.dist("rand_special", args, f.rng.Special)
}

func (f *funcs) randZipf(args ...any) (any, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("rand_zipf(lo, hi, theta): want 3 arguments, got %d", len(args))
	}
	var theta float64
	switch x := args[2].(type) {
	case int:
		theta = float64(x)
	case float64:
		theta = x
	default:
		return nil, fmt.Errorf("rand_zipf: theta %v is not a number", args[2])
	}
	return f.dist("rand_zipf", args[:2], func(a, b uint32) uint32 { return f.rng.ZipfianExp(a, b, theta) })
}

func (f *funcs) randString(args ...any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("rand_string(template): want 1 argument, got %d", len(args))
	}
	t, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("rand_string: template %v is not a string", args[0])
	}
	f.buf = f.rng.String(f.buf[:0], t)
	return string(f.buf), nil
}

func (f *funcs) seqNext(args ...any) (any, error) {
	n := f.m.seq.Add(1)
	return int((n-1)*int64(max(f.m.Shard.Count, 1)) + int64(f.m.Shard.Index) + 1), nil
}
func (f *funcs) threadID(args ...any) (any, error) { return f.id, nil }
