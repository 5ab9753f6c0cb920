package executor

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// A sandbox's links (sandbox.links, docs/network.md) are proxies of executor/link on
// loopback between its parts, opened when it starts and kept for the whole run: each
// replica replicates through its own (its CHANGE MASTER names the link's port, which its
// datadir keeps across restarts and restores), each Galera node's group communication is
// reached through its own (nodeLink), and the client link is the target's front
// (fronts.go), which a failover drill switches as any front. They carry nothing extra
// while setup runs; before each iteration they take its shape and are probed.

// probes is how many pings measure a link's round trip before an iteration.
const probes = 20

// sandboxNet is one sandbox's links.
type sandboxNet struct {
	client   *link.Link            // nil: the workloads connect to the primary directly
	replicas map[string]*link.Link // by replica target name; absent: it replicates directly
	nodes    map[string]*link.Link // a Galera sandbox's, by node target name (galeraLinks)
}

// nodeLink is the sandbox option that puts a link in front of each node of a Galera
// sandbox whose plan links its nodes (sandbox.GaleraLinkedHost says why one per node, on
// the node's own port, dialling from 127.0.0.1, keeps every connection between two nodes
// on exactly one link); nil when it does not. A node given new ports gets a new link.
func (f *fleet) nodeLink(name string, ls spec.SandboxLinks) func(node, listen, upstream string) error {
	if ls.Nodes == nil {
		return nil
	}
	return func(node, listen, upstream string) error {
		l, err := link.ListenAt(listen, upstream, "127.0.0.1", link.Shape{})
		if err != nil {
			return err
		}
		n := f.netOf(name)
		if old := n.nodes[node]; old != nil {
			old.Close()
		}
		n.nodes[node] = l
		f.log.logf("target %s: %s's group communication (gcomm) is reached through link %s (the other nodes -> %s)", name, node, l.Addr(), node)
		return nil
	}
}

// via is the sandbox option that puts a link between each replica the plan links and its
// primary; nil when the sandbox links none.
func (f *fleet) via(name string, ls spec.SandboxLinks) func(replica, primary string) (string, error) {
	if len(ls.Replicas) == 0 {
		return nil
	}
	return func(replica, primary string) (string, error) {
		if _, ok := ls.Replicas[replica]; !ok {
			return "", nil
		}
		l, err := link.Listen(primary, link.Shape{})
		if err != nil {
			return "", err
		}
		n := f.netOf(name)
		n.replicas[replica] = l
		f.log.logf("target %s: %s replicates through link %s (primary -> replica)", name, replica, l.Addr())
		return l.Addr(), nil
	}
}

func (f *fleet) netOf(name string) *sandboxNet {
	if f.links == nil {
		f.links = map[string]*sandboxNet{}
	}
	n := f.links[name]
	if n == nil {
		n = &sandboxNet{replicas: map[string]*link.Link{}, nodes: map[string]*link.Link{}}
		f.links[name] = n
	}
	return n
}

func (f *fleet) closeLinks() {
	for _, n := range f.links {
		for _, l := range n.replicas {
			l.Close()
		}
		for _, l := range n.nodes {
			l.Close()
		}
		// the client link is a front: closeFronts closes it
	}
}

// shapeLinks gives every link the shape iteration it sets and probes it; the links as
// configured and measured go to run.json. A probe that fails is a warning: the iteration
// runs, and run.json says why the link has no measure.
func (f *fleet) shapeLinks(ctx context.Context, it *spec.Iteration) []results.Link {
	var out []results.Link
	for _, c := range f.clusters {
		n, sl := f.links[c.Name()], it.Links[c.Name()]
		if n == nil {
			continue
		}
		primary := f.targets[c.Primary.Name()]
		if n.client != nil && sl.Client != nil {
			out = append(out, f.shapeLink(ctx, it.Index, n.client, *sl.Client, results.Link{Target: c.Name(), From: "client", To: c.Primary.Name()}, primary))
		}
		for _, r := range c.Replicas {
			if l := n.replicas[r.Name()]; l != nil {
				out = append(out, f.shapeLink(ctx, it.Index, l, sl.Replicas[r.Name()], results.Link{Target: c.Name(), From: c.Primary.Name(), To: r.Name()}, primary))
			}
		}
		for _, s := range c.Servers() {
			if l := n.nodes[s.Name()]; l != nil && sl.Nodes != nil {
				out = append(out, f.shapeNodeLink(it.Index, l, *sl.Nodes, results.Link{Target: c.Name(), From: "nodes", To: s.Name()}))
			}
		}
	}
	return out
}

// shapeNodeLink shapes the link in front of a Galera node's group communication. It is not
// probed (gcomm answers no ping quadrant could send) nor calibrated: its delay is as
// configured, and the commits' latency shows the round trip it adds.
func (f *fleet) shapeNodeLink(index int, l *link.Link, s spec.LinkShape, rec results.Link) results.Link {
	l.Set(link.Shape{Delay: s.Delay, Jitter: s.Jitter, Bandwidth: int64(s.Bandwidth), Loss: s.Loss})
	rec.Configured = results.LinkShape{RTTMs: ms(s.RTT()), JitterMs: ms(s.Jitter), Bandwidth: s.Bandwidth, Loss: s.Loss}
	f.log.logf("iteration %d: link %s: %s (not probed: a Galera node's group communication)", index, rec.Name(), s)
	return rec
}

func (f *fleet) shapeLink(ctx context.Context, index int, l *link.Link, s spec.LinkShape, rec results.Link, primary *liveTarget) results.Link {
	shape := link.Shape{Delay: s.Delay, Jitter: s.Jitter, Bandwidth: int64(s.Bandwidth), Loss: s.Loss}
	l.Set(shape)
	rec.Configured = results.LinkShape{RTTMs: ms(s.RTT()), JitterMs: ms(s.Jitter), Bandwidth: s.Bandwidth, Loss: s.Loss}
	p, err := probeLink(ctx, primary.Config(), l.Addr())
	if err == nil && s.Delay > 0 {
		if d := calibrated(s.Delay, p); d != s.Delay {
			shape.Delay = d
			l.Set(shape)
			rec.SetRTTMs = ms(2 * d)
			f.log.logf("iteration %d: link %s: %s measured %s: its delay set to rtt %s, the rest being its own cost", index, rec.Name(), s, p, spec.FormatMs(2*d))
			p, err = probeLink(ctx, primary.Config(), l.Addr())
		}
	}
	if err != nil {
		rec.ProbeError = f.log.redact(err.Error())
		f.log.logf("warning: iteration %d: link %s (%s): its probe failed: %s", index, rec.Name(), s, rec.ProbeError)
		return rec
	}
	rec.Measured = &p
	f.log.logf("iteration %d: link %s: %s; measured %s", index, rec.Name(), s, p)
	return rec
}

// calibrateAbove is the excess of a link's probed round trip over the configured one (above
// the direct round trip) that calibration corrects: less is within the probe's own noise.
const calibrateAbove = 50 * time.Microsecond

// calibrated is the one-way delay that makes a link's round trip the configured one: the
// proxy delivers each chunk a little after its time (its timers: 0.1 ms each way on a quiet
// host, up to 1 ms on a busy one) and adds two loopback hops, so a configured 2 ms measured
// 2.44 ms through it against 0.06 ms directly. The delay is lowered by the excess the probe
// measured, never below half its configured value (a probe on a host busy for a moment must
// not take the delay away).
func calibrated(delay time.Duration, p results.LinkProbe) time.Duration {
	excess := time.Duration((p.RTTMsP50-p.DirectRTTMsP50)*float64(time.Millisecond)) - 2*delay
	if excess <= calibrateAbove {
		return delay
	}
	return max(delay/2, delay-excess/2)
}

// linkMark is every link's counters at a moment, by its record's index in an iteration's
// links (shapeLinks' order).
type linkMark []link.Stats

// each is every link in shapeLinks' order.
func (f *fleet) each() []*link.Link {
	var out []*link.Link
	for _, c := range f.clusters {
		n := f.links[c.Name()]
		if n == nil {
			continue
		}
		if n.client != nil {
			out = append(out, n.client)
		}
		for _, r := range c.Replicas {
			if l := n.replicas[r.Name()]; l != nil {
				out = append(out, l)
			}
		}
		for _, s := range c.Servers() {
			if l := n.nodes[s.Name()]; l != nil {
				out = append(out, l)
			}
		}
	}
	return out
}

// markLinks reads every link's counters before a measured workload.
func (f *fleet) markLinks() linkMark {
	var m linkMark
	for _, l := range f.each() {
		m = append(m, l.Stats())
	}
	return m
}

// linkUsage adds to an iteration's links what each carried since mark, and how late its
// timers were: the part of a commit's wait the shape did not ask for.
func (f *fleet) linkUsage(index int, recs []results.Link, mark linkMark) {
	links := f.each()
	if len(links) != len(recs) || len(mark) != len(recs) {
		return // a link without a shape this iteration (cannot happen: every iteration has the same)
	}
	for i, l := range links {
		now, was := l.Stats(), mark[i]
		u := &results.LinkUsage{BytesUp: now.BytesUp - was.BytesUp, BytesDown: now.BytesDown - was.BytesDown,
			Delayed: now.Waited - was.Waited, Lost: now.Lost - was.Lost, Dropped: now.Dropped - was.Dropped}
		if u.Delayed > 0 {
			u.LateMsMean = ms(now.Late-was.Late) / float64(u.Delayed)
		}
		recs[i].Workload = u
		if u.LateMsMean > 0.1 {
			f.log.logf("iteration %d: link %s: its chunks came %.2f ms late on average while the workload ran (the proxy's timers on a busy host), each way", index, recs[i].Name(), u.LateMsMean)
		}
	}
}

// probeLink pings the server behind the link at addr through it, and the server at cfg
// directly, probes times each on one connection (logged in before the count starts).
func probeLink(ctx context.Context, cfg *mysql.Config, addr string) (results.LinkProbe, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	through := cfg.Clone()
	through.Net, through.Addr = "tcp", addr
	via, err := pingTimes(ctx, through)
	if err != nil {
		return results.LinkProbe{}, fmt.Errorf("through %s: %w", addr, err)
	}
	direct, err := pingTimes(ctx, cfg)
	if err != nil {
		return results.LinkProbe{}, fmt.Errorf("directly to %s: %w", cfg.Addr, err)
	}
	return results.LinkProbe{Probes: len(via), RTTMsP50: ms(quantile(via, 0.5)), RTTMsP99: ms(quantile(via, 0.99)), DirectRTTMsP50: ms(quantile(direct, 0.5))}, nil
}

// pingTimes is the round trip of probes COM_PINGs on one connection to cfg.
func pingTimes(ctx context.Context, cfg *mysql.Config) ([]time.Duration, error) {
	conn, err := authretry.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.PingContext(ctx); err != nil { // the first one pays for nothing but itself
		return nil, err
	}
	out := make([]time.Duration, 0, probes)
	for range probes {
		t0 := time.Now()
		if err := c.PingContext(ctx); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}

// quantile is the q-quantile of ds by the nearest rank (ds is sorted in place).
func quantile(ds []time.Duration, q float64) time.Duration {
	slices.Sort(ds)
	i := int(q*float64(len(ds))+0.5) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
