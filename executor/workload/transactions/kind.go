package transactions

import (
	"context"
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is `workload: {transactions: [...]}`: a weighted mix of the plan's own statements.
var Kind = workload.Kind{
	Spec: spec.Kind{
		Name: "transactions", Key: "transactions",
		Doc:      "A custom weighted mix of transactions.",
		Body:     func() any { return new([]PlanTransaction) },
		Loop:     true,
		Spreads:  true,
		Check:    check,
		Describe: describe,
		Explain:  explain,
		TxNames:  txNames,
	},
	New: newMix,
}

type mixWorkload struct {
	w   *spec.Workload
	mix *Mix
	env workload.Env
}

// newMix compiles the args against the generator functions bound per worker and the names
// spec checked them against (vars, matrix, iteration, ...: spec.Workload.Names); spec has
// compiled each one already against the same signatures (spec.Generators), for its
// positions in the plan.
func newMix(w *spec.Workload, env workload.Env) (workload.Workload, error) {
	var txs []Transaction
	for _, tx := range Plan(w) {
		ct := Transaction{Name: tx.Name, Weight: tx.Weight}
		for _, st := range tx.Statements {
			cs := Statement{SQL: st.SQL}
			for _, a := range st.Args {
				cs.Args = append(cs.Args, a.Source)
			}
			ct.Statements = append(ct.Statements, cs)
		}
		txs = append(txs, ct)
	}
	names := w.Names
	if names == nil { // a workload built in Go: its vars only
		names = map[string]any{"vars": env.Vars}
	}
	mix, err := Compile(txs, names)
	if err != nil {
		return nil, err
	}
	mix.Shard = env.Shard
	return &mixWorkload{w: w, mix: mix, env: env}, nil
}

func (m *mixWorkload) Prepare(context.Context) error { return workload.ErrNoAction }
func (m *mixWorkload) Cleanup(context.Context) error { return workload.ErrNoAction }

func (m *mixWorkload) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	lc := m.env.Split(workload.Loop(m.w, onInterval))
	dc := engine.DialConfig(m.env.Server, true, m.env.Timeout(), lc.Threads)
	lc.Names = m.mix.Names()
	lc.Dial = func(ctx context.Context) (*engine.Conn, error) { return engine.Dial(ctx, dc, false) }
	lc.Setup = func(ctx context.Context, local int) (engine.Worker, *engine.Conn, error) {
		i := m.env.Shard.Global(local) // thread_id() and the seeds see the global id
		c, err := engine.Dial(ctx, m.env.WorkerConfig(dc, local), true)
		if err != nil {
			return nil, nil, fmt.Errorf("worker %d: %w", i+1, err)
		}
		w, err := m.mix.NewWorker(i, c)
		if err != nil {
			_ = c.Close()
			return nil, nil, fmt.Errorf("worker %d: %w", i+1, err)
		}
		return w, c, nil
	}
	return engine.Run(ctx, lc)
}
