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
	switch {
	case w.Kind == nil:
		b.WriteString("workload of no kind")
	case w.Kind.Describe != nil:
		b.WriteString(w.Kind.Describe(w))
	default:
		fmt.Fprintf(&b, "%s %s", w.Kind.Name, w.Action)
	}
	if (w.Kind == nil || w.Kind.Connections == nil) && w.Connections() == w.Threads {
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
