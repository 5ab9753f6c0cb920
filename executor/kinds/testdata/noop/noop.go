// Package noop is a workload kind kept as test data: it shows that a kind is one package
// (this file) plus one registration line, and runs through every joint a real kind does
// (plan key, options with positions, validation, explain, the engine's loop, the results).
// Each event sends one statement that touches no data (DO 0 unless told otherwise): the
// client's and the protocol's floor.
package noop

import (
	"context"
	"fmt"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is `workload: {noop: {statement: "DO 0"}}`.
var Kind = workload.Kind{
	Spec: spec.Kind{
		Name: "noop", Key: "noop",
		Doc:  "One statement that touches no data per event.",
		Body: func() any { return new(Plan) },
		Loop: true,
		Check: func(c *spec.Check, w *spec.Workload) {
			if p := body(w); !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(p.Statement)), "DO ") {
				c.Errorf(p.Src.At("statement"), "noop runs a DO statement, which touches no data; got %q", p.Statement)
			}
		},
		Describe: func(w *spec.Workload) string { return fmt.Sprintf("noop %q", body(w).Statement) },
	},
	New: func(w *spec.Workload, env workload.Env) (workload.Workload, error) { return &noop{w: w, env: env}, nil },
}

// Plan is noop: as a plan writes it.
type Plan struct {
	Src       spec.Source `yaml:"-" name:"noop" def:"noop"`
	Statement string      `yaml:"statement" default:"DO 0" doc:"The statement each event sends."`
}

func body(w *spec.Workload) *Plan {
	if p := spec.Body[*Plan](w); p != nil {
		return p
	}
	return &Plan{}
}

type noop struct {
	w   *spec.Workload
	env workload.Env
}

type worker struct{ sql string }

func (wk worker) Event(c *engine.Conn) (int, error) {
	_, err := c.ExecText(wk.sql, false, nil)
	return 0, err
}

func (n *noop) Prepare(context.Context) error { return workload.ErrNoAction }
func (n *noop) Cleanup(context.Context) error { return workload.ErrNoAction }

func (n *noop) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	lc := n.env.Split(workload.Loop(n.w, onInterval))
	dc := engine.DialConfig(n.env.Server, false, n.env.Timeout(), lc.Threads)
	lc.Dial = func(ctx context.Context) (*engine.Conn, error) { return engine.Dial(ctx, dc, false) }
	lc.Setup = func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
		c, err := engine.Dial(ctx, dc, false)
		if err != nil {
			return nil, nil, fmt.Errorf("noop worker %d: %w", i+1, err)
		}
		return worker{sql: body(n.w).Statement}, c, nil
	}
	return engine.Run(ctx, lc)
}
