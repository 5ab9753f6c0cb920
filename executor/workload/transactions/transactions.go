// Package transactions is the transactions: workload kind: a weighted mix of user-written
// transactions whose statement arguments are expr-lang expressions evaluated per execution.
package transactions

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/executor/workload/sbrand"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// Transaction is one named, weighted entry of the mix.
type Transaction struct {
	Name       string
	Weight     int // default 1
	Statements []Statement
}

// Statement is SQL with ? placeholders and one expression per placeholder.
type Statement struct {
	SQL  string
	Args []string // expr source, e.g. "rand_int(1, vars.rows)"
}

// Mix is a compiled transaction mix, shared by all workers.
type Mix struct {
	txs    []Transaction
	progs  [][][]*vm.Program // [tx][stmt][arg]
	cum    []int             // cumulative weights
	names  map[string]any    // the roots args may name (vars, matrix, ...)
	seq    *atomic.Int64
	randOp sbrand.Options
	// Shard spreads seq() over shards: shard K of N counts K+1, K+1+N, ... so that the
	// shards together give each value once, as one process would.
	Shard shard.Shard
}

// Functions available to args expressions.
var Functions = []string{"rand_int", "rand_uniform", "rand_gauss", "rand_special", "rand_zipf", "rand_string", "seq", "thread_id"}

// Compile checks and compiles every argument once, over names: the roots an argument may
// name besides the generator functions (vars, matrix, iteration, env, target, each a map).
func Compile(txs []Transaction, names map[string]any) (*Mix, error) {
	m := &Mix{txs: txs, names: names, seq: &atomic.Int64{}, randOp: sbrand.DefaultOptions()}
	env := m.env(newFuncs(m, 0))
	var errs []error
	total := 0
	seen := map[string]bool{}
	for ti, tx := range txs {
		where := fmt.Sprintf("transactions[%d] (%s)", ti, tx.Name)
		if tx.Name == "" || seen[tx.Name] {
			errs = append(errs, fmt.Errorf("%s: name must be set and unique", where))
		}
		seen[tx.Name] = true
		w := tx.Weight
		if w == 0 {
			w = 1
		}
		if w < 0 {
			errs = append(errs, fmt.Errorf("%s: weight %d must be positive", where, w))
		}
		if len(tx.Statements) == 0 {
			errs = append(errs, fmt.Errorf("%s: no statements", where))
		}
		total += max(w, 0)
		m.cum = append(m.cum, total)
		var sp [][]*vm.Program
		for si, st := range tx.Statements {
			var ap []*vm.Program
			for ai, a := range st.Args {
				p, err := expr.Compile(a, expr.Env(env))
				if err != nil {
					errs = append(errs, fmt.Errorf("%s statements[%d] args[%d] %q: %w", where, si, ai, a, err))
					continue
				}
				ap = append(ap, p)
			}
			sp = append(sp, ap)
		}
		m.progs = append(m.progs, sp)
	}
	if total == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("transactions: total weight is 0"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}

// Names are the transaction names, in declaration order.
func (m *Mix) Names() []string {
	n := make([]string, len(m.txs))
	for i, t := range m.txs {
		n[i] = t.Name
	}
	return n
}

func (m *Mix) env(f *funcs) map[string]any {
	env := map[string]any{"vars": map[string]any{}}
	for k, v := range m.names {
		env[k] = v
	}
	for k, v := range map[string]any{
		"rand_int":     f.randInt,
		"rand_uniform": f.randInt,
		"rand_gauss":   f.randGauss,
		"rand_special": f.randSpecial,
		"rand_zipf":    f.randZipf,
		"rand_string":  f.randString,
		"seq":          f.seqNext,
		"thread_id":    f.threadID,
	} {
		env[k] = v
	}
	return env
}

// Worker runs the mix on one connection.
type Worker struct {
	m     *Mix
	f     *funcs
	env   map[string]any
	stmts [][]*engine.Stmt
	args  []driver.Value
}

// NewWorker prepares every statement on c; id is the 0-based thread id.
func (m *Mix) NewWorker(id int, c *engine.Conn) (*Worker, error) {
	f := newFuncs(m, id)
	w := &Worker{m: m, f: f, env: m.env(f)}
	for _, tx := range m.txs {
		var ss []*engine.Stmt
		for si, st := range tx.Statements {
			s, err := c.Prepare(st.SQL)
			if err != nil {
				return nil, fmt.Errorf("transaction %s statement %d: %w", tx.Name, si+1, err)
			}
			ss = append(ss, s)
		}
		w.stmts = append(w.stmts, ss)
	}
	return w, nil
}

// Event picks a transaction by weight and runs its statements.
func (w *Worker) Event(c *engine.Conn) (int, error) {
	r := int(w.f.rng.Uniform(1, uint32(w.m.cum[len(w.m.cum)-1])))
	tx := 0
	for tx < len(w.m.cum)-1 && r > w.m.cum[tx] {
		tx++
	}
	for si, progs := range w.m.progs[tx] {
		w.args = w.args[:0]
		for ai, p := range progs {
			v, err := vm.Run(p, w.env)
			if err != nil {
				return tx, fmt.Errorf("transaction %s statement %d arg %d: %w", w.m.txs[tx].Name, si+1, ai+1, err)
			}
			w.args = append(w.args, toDriver(v))
		}
		if err := c.Exec(w.stmts[tx][si], w.args); err != nil {
			return tx, err
		}
	}
	return tx, nil
}

func toDriver(v any) driver.Value {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case uint32:
		return int64(x)
	case int64, float64, string, []byte, bool, nil, time.Time:
		return x
	case float32:
		return float64(x)
	default:
		return fmt.Sprint(x)
	}
}
