package transactions

import (
	"strings"
	"testing"

	"github.com/expr-lang/expr/vm"
)

func TestCompileReportsAllErrors(t *testing.T) {
	_, err := Compile([]Transaction{
		{Name: "a", Statements: []Statement{{SQL: "SELECT ?", Args: []string{"rand_int(1,"}}}},
		{Name: "a", Weight: -1},
		{Name: "c", Statements: []Statement{{SQL: "SELECT ?", Args: []string{"nosuch(1)"}}}},
	}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"transactions[0] (a) statements[0] args[0]", "name must be set and unique", "weight -1", "no statements", "transactions[2] (c)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestGeneratorFunctions(t *testing.T) {
	args := []string{`rand_int(5, 9)`, `rand_uniform(-3, 3)`, `rand_gauss(1, 100)`, `rand_special(1, 1000)`,
		`rand_zipf(1, 50, 1.2)`, `rand_string("###-@@@")`, `seq()`, `thread_id()`, `vars.rows * 2`}
	m, err := Compile([]Transaction{{Name: "t", Statements: []Statement{{SQL: "x", Args: args}}}}, map[string]any{"vars": map[string]any{"rows": 21}})
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{m: m, f: newFuncs(m, 3)}
	w.env = m.env(w.f)
	for range 200 {
		var got []any
		for _, p := range m.progs[0][0] {
			v, err := vm.Run(p, w.env)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		in := func(i int, lo, hi int) {
			if v, ok := got[i].(int); !ok || v < lo || v > hi {
				t.Fatalf("%s = %v, want int in [%d, %d]", args[i], got[i], lo, hi)
			}
		}
		in(0, 5, 9)
		in(1, -3, 3)
		in(2, 1, 100)
		in(3, 1, 1000)
		in(4, 1, 50)
		if s := got[5].(string); len(s) != 7 || s[3] != '-' || strings.Trim(s[:3], "0123456789") != "" || strings.Trim(s[4:], "abcdefghijklmnopqrstuvwxyz") != "" {
			t.Fatalf("rand_string: %q", s)
		}
		if got[7] != 3 || got[8] != 42 {
			t.Fatalf("thread_id %v vars %v", got[7], got[8])
		}
	}
	if m.seq.Load() != 200 {
		t.Fatalf("seq() counted %d", m.seq.Load())
	}
	// Runtime errors name the function.
	bad, err := Compile([]Transaction{{Name: "t", Statements: []Statement{{SQL: "x", Args: []string{"rand_int(9, 1)"}}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Run(bad.progs[0][0][0], bad.env(newFuncs(bad, 0))); err == nil || !strings.Contains(err.Error(), "hi is below lo") {
		t.Fatalf("rand_int(9, 1): %v", err)
	}
}

func TestToDriver(t *testing.T) {
	if v := toDriver(7); v != int64(7) {
		t.Fatalf("%T", v)
	}
	if v := toDriver(float32(1.5)); v != float64(1.5) {
		t.Fatalf("%T", v)
	}
	if v := toDriver([]int{1}); v != "[1]" {
		t.Fatalf("%v", v)
	}
}
