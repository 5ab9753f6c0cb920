package results

import (
	"fmt"
	"strconv"
	"strings"
)

// Link is one link of a sandbox (its plan's sandbox.links) during an iteration: a proxy of
// quadrant's on loopback between two of its parts, as configured and as measured.
type Link struct {
	Target string `json:"target"` // the sandbox target (its primary)
	// From and To are its ends: "client" and the primary's target name, the primary's and
	// a replica's (the replica's IO thread connects through it), or "nodes" and a Galera
	// node's (the link in front of its group communication: the connections the other
	// nodes opened to it).
	From       string    `json:"from"`
	To         string    `json:"to"`
	Configured LinkShape `json:"configured"`
	// SetRTTMs is the round trip the link's delay was set to when calibration lowered it
	// (0: as configured): the proxy's own timers and hops make up the rest, so that the
	// round trip through it is the configured one above the direct one.
	SetRTTMs float64 `json:"set_rtt_ms,omitempty"`
	// Measured is the probe before the iteration: pings through the link to the server
	// behind it; nil when the probe failed (ProbeError says why) and for a Galera node's
	// link, which is not probed (its group communication answers no ping).
	Measured   *LinkProbe `json:"measured,omitempty"`
	ProbeError string     `json:"probe_error,omitempty"`
	// Workload is what the link carried while the iteration's measured workload ran, and how
	// far its timers were from its shape meanwhile; nil when the workload did not run.
	Workload *LinkUsage `json:"workload,omitempty"`
}

// LinkUsage is what a link carried during a measured workload.
type LinkUsage struct {
	BytesUp   int64 `json:"bytes_up"`   // from the client end (the replica's IO thread: its acknowledgements)
	BytesDown int64 `json:"bytes_down"` // to the client end (the binary log, to a replica)
	Delayed   int64 `json:"delayed"`    // chunks (what one read returned) that waited for their time
	// LateMsMean is how much later than its shape said the delayed chunks were delivered, on
	// average, in each direction: the proxy's timers on a busy host. It adds to the round
	// trip the link imposed twice over (once each way).
	LateMsMean float64 `json:"late_ms_mean"`
	Lost       int64   `json:"lost,omitempty"`    // chunks held for a retransmission timeout (loss)
	Dropped    int64   `json:"dropped,omitempty"` // bytes lost when a connection through it was cut
}

// LinkShape is what a link adds, as the plan set it.
type LinkShape struct {
	RTTMs     float64 `json:"rtt_ms"`                          // round trip added: twice the one-way delay
	JitterMs  float64 `json:"jitter_ms,omitempty"`             // each direction's delay varies within ± this
	Bandwidth float64 `json:"bandwidth_bytes_per_s,omitempty"` // each direction; 0 unlimited
	Loss      float64 `json:"loss,omitempty"`                  // fraction of writes held for a retransmission timeout
}

// LinkProbe is a link's round trip as measured: COM_PINGs through it to the server behind
// it, and the same pings to that server directly (what loopback and the server cost
// without the link).
type LinkProbe struct {
	Probes         int     `json:"probes"`
	RTTMsP50       float64 `json:"rtt_ms_p50"`
	RTTMsP99       float64 `json:"rtt_ms_p99"`
	DirectRTTMsP50 float64 `json:"direct_rtt_ms_p50"`
}

// Name is the link as a DBA says it: "client -> primary", "primary -> primary_replica1".
func (l Link) Name() string { return l.From + " -> " + l.To }

// String is the shape in the plan's words: "rtt 2ms, jitter 0.1ms, 1Gbit, loss 0.1%".
func (s LinkShape) String() string {
	parts := []string{"rtt " + strconv.FormatFloat(s.RTTMs, 'f', -1, 64) + "ms"}
	if s.JitterMs > 0 {
		parts = append(parts, "jitter "+strconv.FormatFloat(s.JitterMs, 'f', -1, 64)+"ms")
	}
	if s.Bandwidth > 0 {
		parts = append(parts, bits(s.Bandwidth*8))
	}
	if s.Loss > 0 {
		parts = append(parts, "loss "+strconv.FormatFloat(s.Loss*100, 'g', 4, 64)+"%")
	}
	return strings.Join(parts, ", ")
}

// String is the probe as the log says it: "rtt p50 2.13ms, p99 2.41ms (direct 0.08ms, 20 pings)".
func (p LinkProbe) String() string {
	return fmt.Sprintf("rtt p50 %.3gms, p99 %.3gms (direct %.3gms, %d pings)", p.RTTMsP50, p.RTTMsP99, p.DirectRTTMsP50, p.Probes)
}

// bits writes a rate in bits per second in the largest unit it is at least one of: 1Gbit, 100Mbit.
func bits(b float64) string {
	for _, u := range []struct {
		name string
		f    float64
	}{{"Gbit", 1e9}, {"Mbit", 1e6}, {"kbit", 1e3}} {
		if b >= u.f {
			return strconv.FormatFloat(b/u.f, 'g', 4, 64) + u.name
		}
	}
	return strconv.FormatFloat(b, 'g', 4, 64) + "bit"
}
