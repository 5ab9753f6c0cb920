package wsrepwatch

import (
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/watch"
)

// field is one column and the status variable it reads.
type field struct {
	name string // the column's, without the prefix
	kind watch.Kind
	unit string
	// status is the wsrep status variable (lower case); parse turns its value into the
	// column's (nil: a number, times scale when scale is set).
	status string
	scale  float64
	parse  func(string) (float64, bool)
	doc    string
}

// Prefix starts every column of the sampler.
const Prefix = "wsrep."

// fields are the sampler's columns, in their order.
var fields = []field{
	{name: "fc_paused_s", kind: watch.Counter, unit: "s", status: "wsrep_flow_control_paused_ns", scale: 1e-9,
		doc: "time replication was paused by flow control (wsrep_flow_control_paused_ns): in the time series the fraction of the interval paused (0 to 1, a pause under way counted up to the reading; the readings' times are estimated, so a wholly paused interval may read a little above 1), in the summary the seconds paused over the measured part; replication pauses on every node, whichever node asked"},
	{name: "fc_sent", kind: watch.Counter, unit: "count", status: "wsrep_flow_control_sent",
		doc: "flow control pause requests (FC_PAUSE) this node sent (wsrep_flow_control_sent): it fell behind, its receive queue past gcs.fc_limit"},
	{name: "fc_recv", kind: watch.Counter, unit: "count", status: "wsrep_flow_control_recv",
		doc: "flow control pause requests this node received, its own included (wsrep_flow_control_recv)"},
	{name: "cert_failures", kind: watch.Counter, unit: "count", status: "wsrep_local_cert_failures",
		doc: "local transactions that failed certification, a conflict with a write set from another node: the client gets a deadlock error (wsrep_local_cert_failures)"},
	{name: "bf_aborts", kind: watch.Counter, unit: "count", status: "wsrep_local_bf_aborts",
		doc: "local transactions aborted by a replicated write set applied over them (brute-force aborts, wsrep_local_bf_aborts)"},
	{name: "replicated", kind: watch.Counter, unit: "count", status: "wsrep_replicated",
		doc: "write sets this node replicated to the others, its own commits (wsrep_replicated)"},
	{name: "received", kind: watch.Counter, unit: "count", status: "wsrep_received",
		doc: "write sets (and other group messages) this node received (wsrep_received)"},
	{name: "recv_queue", kind: watch.Gauge, unit: "count", status: "wsrep_local_recv_queue",
		doc: "write sets received and waiting to be applied on this node at the tick (wsrep_local_recv_queue): past gcs.fc_limit (16 by default) the node sends flow control"},
	{name: "send_queue", kind: watch.Gauge, unit: "count", status: "wsrep_local_send_queue",
		doc: "write sets waiting to be sent from this node at the tick (wsrep_local_send_queue)"},
	{name: "cluster_size", kind: watch.Gauge, unit: "count", status: "wsrep_cluster_size",
		doc: "nodes in the cluster as this node sees it (wsrep_cluster_size)"},
	{name: "primary", kind: watch.Gauge, unit: "1 or 0", status: "wsrep_cluster_status", parse: primary,
		doc: "1 when this node is part of the Primary component (wsrep_cluster_status Primary), 0 when not (non-Primary, Disconnected): it then refuses queries"},
	{name: "local_state", kind: watch.Gauge, unit: "state", status: "wsrep_local_state",
		doc: "this node's state (wsrep_local_state; wsrep_local_state_comment is its name): 1 Joining, 2 Donor/Desynced, 3 Joined, 4 Synced"},
	{name: "repl_latency_avg_ms", kind: watch.Gauge, unit: "ms", status: "wsrep_evs_repl_latency", parse: latency(1),
		doc: "the group communication's mean replication latency, from the sampled messages of its current statistics window (wsrep_evs_repl_latency, min/avg/max/stddev/samples; the window is evs.stats_report_period, 1 minute by default): not per interval; empty while the window has no sample"},
	{name: "repl_latency_max_ms", kind: watch.Gauge, unit: "ms", status: "wsrep_evs_repl_latency", parse: latency(2),
		doc: "the group communication's largest replication latency in the same window (wsrep_evs_repl_latency): not per interval; empty while the window has no sample"},
}

// columns are the sampler's columns.
var columns = func() []watch.Column {
	out := make([]watch.Column, len(fields))
	for i, f := range fields {
		out[i] = watch.Column{Name: Prefix + f.name, Kind: f.kind, Source: "SHOW GLOBAL STATUS LIKE 'wsrep%'"}
	}
	return out
}()

// docs are the columns for docs/metrics.md.
func docs() []watch.ColumnDoc {
	out := make([]watch.ColumnDoc, len(fields))
	for i, f := range fields {
		out[i] = watch.ColumnDoc{Name: Prefix + f.name, Kind: f.kind, Unit: f.unit, Doc: f.doc}
	}
	return out
}

// value is f's value from the status read (name -> value, lower-case names); ok is false
// when the server has no such variable or it is not a number.
func (f field) value(status map[string]string) (float64, bool) {
	raw, ok := status[f.status]
	if !ok {
		return 0, false
	}
	if f.parse != nil {
		return f.parse(raw)
	}
	v, ok := watch.ParseValue(raw)
	if ok && f.scale != 0 {
		v *= f.scale
	}
	return v, ok
}

// primary is wsrep_cluster_status as 1 (Primary) or 0 (non-Primary, Disconnected).
func primary(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if strings.EqualFold(s, "Primary") {
		return 1, true
	}
	return 0, true
}

// latency reads part i (1: avg, 2: max) of wsrep_evs_repl_latency, min/avg/max/stddev/samples
// in seconds, in milliseconds; none while its window has no sample.
func latency(i int) func(string) (float64, bool) {
	return func(s string) (float64, bool) {
		parts := strings.Split(strings.TrimSpace(s), "/")
		if len(parts) != 5 {
			return 0, false
		}
		n, err := strconv.ParseFloat(parts[4], 64)
		if err != nil || n <= 0 {
			return 0, false
		}
		v, err := strconv.ParseFloat(parts[i], 64)
		if err != nil {
			return 0, false
		}
		return v * 1000, true
	}
}
