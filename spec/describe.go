package spec

import (
	"fmt"
	"strings"
)

// String renders settings as NAME=VALUE pairs in order, for logs and explain.
func (s Settings) String() string {
	parts := make([]string, len(s))
	for i, kv := range s {
		parts[i] = fmt.Sprintf("%s=%s", kv.Name, formatValue(kv.Value))
	}
	return strings.Join(parts, " ")
}

// String describes a workload on one line: kind, action, options, threads and length
// ("builtin oltp_read_write run (tables=4), 8 thread(s), 1m0s, warmup 10s").
func (w *Workload) String() string {
	var b strings.Builder
	switch w.Type() {
	case "builtin", TPCC:
		fmt.Fprintf(&b, "builtin %s %s", w.Builtin, w.Action)
		if len(w.Options) > 0 {
			fmt.Fprintf(&b, " (%s)", w.Options)
		}
	case "sysbench":
		fmt.Fprintf(&b, "sysbench %s %s", w.Sysbench.Script, w.Action)
		if len(w.Sysbench.Args) > 0 {
			fmt.Fprintf(&b, " (%s)", w.Sysbench.Args)
		}
	case "replay":
		if r := w.Replay; r.Format == "sql" || r.Format == "auto" && r.Timing != "original" && !r.ReadOnly && r.Include == nil && r.Exclude == nil {
			fmt.Fprintf(&b, "replay %s over %d connection(s)", r.File, r.Connections)
		} else {
			fmt.Fprintf(&b, "replay %s (%s) one connection per captured session, timing %s", r.File, r.Format, r.Timing)
			if r.Timing == "original" && r.Speed != 1 {
				fmt.Fprintf(&b, " x%g", r.Speed)
			}
		}
	case "transactions":
		names := make([]string, len(w.Transactions))
		for i, t := range w.Transactions {
			names[i] = fmt.Sprintf("%s x%d", t.Name, t.Weight)
		}
		fmt.Fprintf(&b, "transactions %s", strings.Join(names, ", "))
	}
	if w.Type() != "replay" && w.Connections() == w.Threads {
		fmt.Fprintf(&b, ", %d thread(s)", w.Threads)
	}
	if !w.Runs() {
		return b.String()
	}
	if len(w.Stages) > 0 {
		levels := make([]string, len(w.Stages))
		for i, st := range w.Stages {
			if st.Rate > 0 {
				levels[i] = fmt.Sprintf("%g/s for %s", st.Rate, st.Duration)
			} else {
				levels[i] = fmt.Sprintf("%d thread(s) for %s", st.Threads, st.Duration)
			}
		}
		fmt.Fprintf(&b, ", stages (%s): %s", w.Ramp, strings.Join(levels, ", "))
	}
	if w.Connect == "per_transaction" {
		b.WriteString(", a new connection per transaction")
	}
	if w.IdleConnections > 0 {
		fmt.Fprintf(&b, ", %d idle connection(s)", w.IdleConnections)
	}
	if w.Duration > 0 {
		fmt.Fprintf(&b, ", %s", w.Duration)
	}
	if w.Events > 0 {
		fmt.Fprintf(&b, ", at most %d events", w.Events)
	}
	if w.Warmup > 0 {
		fmt.Fprintf(&b, ", warmup %s", w.Warmup)
	}
	if w.Rate > 0 {
		fmt.Fprintf(&b, ", rate %g/s", w.Rate)
	}
	return b.String()
}

// Runs reports whether the workload is a run (measured or not), as opposed to prepare/cleanup.
func (w *Workload) Runs() bool { return w.Action == "run" || w.Action == "" }
