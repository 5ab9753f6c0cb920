package failover

import (
	"fmt"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/spec"
)

// LinkFault is what happens to the replication link (between the primary and its
// replicas) for a while before the fault and through it: the replicas replicate through
// a link of the drill's (executor/link) from its start, unshaped until then.
type LinkFault struct {
	Src       spec.Source   `yaml:"-" name:"link" def:"failover_link"`
	Cut       bool          `yaml:"cut" doc:"Blackhole the link: the primary's binary log stops reaching the replicas (and, semi-sync, their acknowledgements the primary), connections stay open, nothing is refused; what the primary commits from then is on none of its replicas."`
	Delay     time.Duration `yaml:"delay" doc:"One-way delay added each direction (a round trip pays it twice), e.g. 50ms."`
	RTT       time.Duration `yaml:"rtt" doc:"The round trip to add instead of delay (half each way), e.g. 100ms."`
	Jitter    time.Duration `yaml:"jitter" doc:"Each chunk's delay varies by up to ±jitter, bytes kept in order (TCP never reorders)."`
	Bandwidth string        `yaml:"bandwidth" doc:"The link's bandwidth each direction, e.g. 1Mbit, 100Mbit, 1Gbit or 10MB/s (bits decimal as tc writes them, MiB/s binary): past it the primary holds its own backlog and the replicas fall behind."`
	Before    time.Duration `yaml:"before,required" doc:"How long before the fault the link is cut or slowed (at most the drill's lead); it stays so through the fault until the promotion. A kill cuts the link's connections too: what it held had not reached a replica, as when the primary's host fails."`
}

// PlanDoc introduces failover's link: in the plan reference.
func (*LinkFault) PlanDoc() string {
	return "A `failover:` step's `link:`: the replication link cut or slowed for `before` before the fault and through it, so asynchronous replication's loss window shows (a kill also cuts the link's connections, losing what they held). Give `cut: true`, or any of `delay`/`rtt`, `jitter` and `bandwidth`. See [failover.md](failover.md#the-replication-link-cut-or-slowed-before-the-fault)."
}

// shape is the link as the fault leaves it (check has refused what does not parse).
func (f *LinkFault) shape() link.Shape {
	s := link.Shape{Down: f.Cut, Delay: f.Delay, Jitter: f.Jitter}
	if f.RTT > 0 {
		s.Delay = f.RTT / 2
	}
	if f.Bandwidth != "" {
		s.Bandwidth, _ = link.ParseRate(f.Bandwidth)
	}
	return s
}

// String says what the fault does to the link, for the log.
func (f *LinkFault) String() string {
	if f.Cut {
		return fmt.Sprintf("cut from %s before the fault", f.Before)
	}
	var parts []string
	s := f.shape()
	if s.Delay > 0 {
		parts = append(parts, fmt.Sprintf("%s each way", s.Delay))
	}
	if s.Jitter > 0 {
		parts = append(parts, fmt.Sprintf("±%s", s.Jitter))
	}
	if f.Bandwidth != "" {
		parts = append(parts, f.Bandwidth)
	}
	return fmt.Sprintf("slowed (%s) from %s before the fault", strings.Join(parts, ", "), f.Before)
}

// checkLink refuses a link fault that does nothing, contradicts itself or does not fit
// the drill's lead.
func checkLink(c *spec.Check, b *Failover) {
	f := b.Link
	if f == nil {
		return
	}
	at := f.Src.Pos
	if f.Bandwidth != "" {
		if _, err := link.ParseRate(f.Bandwidth); err != nil {
			c.Errorf(f.Src.At("bandwidth"), "link.%v", err)
		}
	}
	for _, k := range []string{"delay", "rtt", "jitter", "before"} {
		if d := map[string]time.Duration{"delay": f.Delay, "rtt": f.RTT, "jitter": f.Jitter, "before": f.Before}[k]; d < 0 {
			c.Errorf(f.Src.At(k), "link.%s %s is negative", k, d)
		}
	}
	slowed := f.Delay > 0 || f.RTT > 0 || f.Jitter > 0 || f.Bandwidth != ""
	switch {
	case f.Cut && slowed:
		c.Errorf(at, "link: cut: true holds every byte, so delay, rtt, jitter and bandwidth do nothing; give cut or the slowing, not both")
	case !f.Cut && !slowed:
		c.Errorf(at, "link does nothing: give cut: true, or a delay, rtt, jitter or bandwidth (e.g. link: {delay: 50ms, bandwidth: 1Mbit, before: 5s})")
	case f.Delay > 0 && f.RTT > 0:
		c.Errorf(f.Src.At("rtt"), "link: give delay (one way) or rtt (the round trip), not both")
	}
	switch {
	case !f.Src.Has("before"):
		// spec said it is missing
	case f.Before <= 0:
		c.Errorf(f.Src.At("before"), "link.before must be more than 0: how long before the fault the link is cut or slowed, e.g. before: 3s")
	case f.Before > b.Lead:
		c.Errorf(f.Src.At("before"), "link.before %s is longer than the drill's lead %s (the ledger's writes before the fault, during which the link fault starts); give lead: %s or more", f.Before, b.Lead, f.Before)
	}
}
