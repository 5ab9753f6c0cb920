package executor

import (
	"context"
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/custom"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// runWorkload maps a plan workload onto the workload engine and runs it on s. With
// onInterval nil the workload is a step (prepare, cleanup, a load not measured).
func (r *runner) runWorkload(ctx context.Context, s *server, w *spec.Workload, it *spec.Iteration, onInterval func(*measure.Interval)) (*measure.Total, error) {
	o := workload.Options{
		Builtin: w.Builtin, Action: w.Action, Options: settingsMap(w.Options),
		Threads: w.Threads, Duration: w.Duration, Events: w.Events, Warmup: w.Warmup, Rate: w.Rate,
		ReportInterval: w.ReportInterval,
		OnError:        workload.OnError{Ignore: w.OnError.Ignore, Reconnect: w.OnError.Reconnect, MaxErrors: int64(w.OnError.MaxErrors)},
		OnInterval:     onInterval,
		Console:        r.console,
		Log:            func(msg string) { r.logf("%s", msg) },
		Vars:           r.varsMap(),
	}
	for _, tx := range w.Transactions {
		ct := custom.Transaction{Name: tx.Name, Weight: tx.Weight}
		for _, st := range tx.Statements {
			cs := custom.Statement{SQL: st.SQL}
			for _, a := range st.Args {
				cs.Args = append(cs.Args, a.Source)
			}
			ct.Statements = append(ct.Statements, cs)
		}
		o.Transactions = append(o.Transactions, ct)
	}
	if w.Replay != nil {
		o.Replay = &workload.Replay{File: w.Replay.Path, Connections: w.Replay.Connections}
	}
	if w.Sysbench != nil {
		o.Sysbench = &workload.Sysbench{Script: w.Sysbench.Script, Args: settingsMap(w.Sysbench.Args)}
	}
	if o.Action == "run" {
		o.Action = ""
	}
	if onInterval == nil && o.Action != "" {
		o.Console = nil // prepare and cleanup have no intervals worth a line
	}
	return workload.Run(ctx, s.Config(), o)
}

func settingsMap(s spec.Settings) map[string]string {
	if len(s) == 0 {
		return nil
	}
	m := make(map[string]string, len(s))
	for _, kv := range s {
		switch v := kv.Value.(type) {
		case bool:
			m[kv.Name] = map[bool]string{true: "on", false: "off"}[v]
		default:
			m[kv.Name] = fmt.Sprint(v)
		}
	}
	return m
}

func (r *runner) varsMap() map[string]any {
	m := make(map[string]any, len(r.plan.Vars))
	for _, v := range r.plan.Vars {
		m[v.Name] = v.Value
	}
	return m
}
