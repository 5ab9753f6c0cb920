package spec

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// A sandbox's links are the network between its parts (docs/network.md): the client's path
// to the primary, each replica's path to it and a Galera sandbox's paths between its nodes,
// each a proxy of quadrant's on loopback that
// delays, throttles and slows what it carries. Their values may use matrix.* and
// iteration.*, so they are decoded once per iteration, as sandbox.dir is.

// Links is `sandbox.links:` as written: client, replicas, nodes, and NAME_replicaN keys.
type Links struct {
	Src      Source `yaml:"-"`
	Client   *Link  `yaml:"client" doc:"The path from quadrant (the workloads, the steps' workloads, a failover drill's writes) to the primary. sql steps, waits and the samplers connect directly: they are the operator's, not the application's."`
	Replicas *Link  `yaml:"replicas" doc:"The path from the primary to every replica (the replica's IO thread connects through it, so semi-sync waits a round trip of it per commit). A key NAME_replicaN (the replica's target name, e.g. primary_replica2) overrides it for that replica, key by key."`
	Nodes    *Link  `yaml:"nodes" doc:"A Galera sandbox's network between its nodes (galera: N): every node's group communication goes through a link of its own, so each commit waits this round trip (the group's certification) once. Each connection between two nodes crosses one link, shaped with this in both directions."`
	// Each are the NAME_replicaN keys, by replica target name.
	Each map[string]*Link `yaml:"-"`
}

// Link is one link's shape as written.
type Link struct {
	Src       Source        `yaml:"-"`
	RTT       time.Duration `yaml:"rtt" doc:"Round-trip time the link adds (ping's figure): half of it each way. 0.5ms inside a data centre, 1-2ms across zones, 10-80ms across regions. Not with delay."`
	Delay     time.Duration `yaml:"delay" doc:"One-way delay the link adds, in each direction (an RTT of twice it). Not with rtt."`
	Jitter    time.Duration `yaml:"jitter" doc:"How much each direction's delay varies around its value (uniformly, never below zero). Packets keep their order: a TCP stream's bytes are never reordered."`
	Bandwidth Bandwidth     `yaml:"bandwidth" doc:"The link's capacity in each direction, as a DBA writes it: 100Mbit, 1Gbit, 10Gbit (bits per second), or 50MB (bytes per second). Without it, as fast as the proxy carries."`
	Loss      Loss          `yaml:"loss" doc:"Share of packets lost, as a percentage: 0.1%. TCP sends a lost packet again, so a loss is modelled as its retransmission delay (a retransmission timeout, 200ms or more) on that share of writes, not as lost bytes."`
}

// Refused is a key known only to be refused where it is written, with a message saying
// where it belongs (a target's links:, which are a sandbox's).
type Refused bool

func (Refused) jsonSchema() map[string]any { return map[string]any{"not": map[string]any{}} }

// Bandwidth is a link's capacity in bytes per second (0: unlimited).
type Bandwidth float64

// Loss is a link's loss as a fraction, 0 to 1.
type Loss float64

// LinkShape is one link as an iteration resolves it.
type LinkShape struct {
	Delay     time.Duration // one way, each direction
	Jitter    time.Duration
	Bandwidth float64 // bytes per second, each direction; 0 unlimited
	Loss      float64 // 0..1
}

// RTT is the round trip the shape adds.
func (s LinkShape) RTT() time.Duration { return 2 * s.Delay }

// String is the shape as a DBA reads it: "rtt 2ms, jitter 0.1ms, 1Gbit, loss 0.1%".
func (s LinkShape) String() string {
	parts := []string{"rtt " + FormatMs(s.RTT())}
	if s.Jitter > 0 {
		parts = append(parts, "jitter "+FormatMs(s.Jitter))
	}
	if s.Bandwidth > 0 {
		parts = append(parts, FormatBandwidth(s.Bandwidth))
	}
	if s.Loss > 0 {
		parts = append(parts, "loss "+strconv.FormatFloat(s.Loss*100, 'g', 4, 64)+"%")
	}
	return strings.Join(parts, ", ")
}

// FormatMs writes a duration in milliseconds, as the plan's durations are read: 0.5ms, 2ms.
func FormatMs(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + "ms"
}

// FormatBandwidth writes bytes per second as bits per second, in the largest whole unit.
func FormatBandwidth(bytesPerSecond float64) string {
	bits := bytesPerSecond * 8
	for _, u := range []struct {
		name string
		f    float64
	}{{"Gbit", 1e9}, {"Mbit", 1e6}, {"kbit", 1e3}} {
		if bits >= u.f {
			return strconv.FormatFloat(bits/u.f, 'g', 4, 64) + u.name
		}
	}
	return strconv.FormatFloat(bits, 'g', 4, 64) + "bit"
}

// SandboxLinks are a sandbox's links as an iteration resolves them.
type SandboxLinks struct {
	Client   *LinkShape           // nil: the client connects directly
	Replicas map[string]LinkShape // by replica target name; a replica not in it replicates directly
	Nodes    *LinkShape           // a Galera sandbox's nodes; nil: they talk directly
}

// replicaKey is a per-replica key of links: (the target's name)_replicaN.
var replicaKey = regexp.MustCompile(`^[a-z][a-z0-9_]*_replica[1-9][0-9]*$`)

// decodeNode reads client and replicas as a struct's keys, and NAME_replicaN keys apart.
func (ls *Links) decodeNode(d *decoder, n *yaml.Node, name string) {
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.t.pos(n), "%s must be a mapping {client: {rtt: 1ms}, replicas: {rtt: 2ms}}, got %s", name, describeNode(n))
		return
	}
	rest := &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
	d.t.file[rest] = d.t.file[n]
	each := map[string]*Link{}
	content := d.pairs(n)
	for i := 0; i+1 < len(content); i += 2 {
		k, v := content[i], content[i+1]
		if !replicaKey.MatchString(k.Value) {
			rest.Content = append(rest.Content, k, v)
			continue
		}
		l := &Link{}
		d.decode(v, reflect.ValueOf(l).Elem(), "links "+k.Value)
		l.Src.Pos = d.t.pos(k)
		each[k.Value] = l
	}
	d.decodeStruct(rest, reflect.ValueOf(ls).Elem(), name)
	for k, l := range each {
		ls.Src.Keys[k] = l.Src.Pos
	}
	if len(each) > 0 {
		ls.Each = each
	}
}

// decodeNode reads a bandwidth: 100Mbit, 1Gbit, 50MB, or 0.
func (b *Bandwidth) decodeNode(d *decoder, n *yaml.Node, name string) {
	val, ok := d.scalar(n, name)
	if !ok {
		return
	}
	v, err := ParseBandwidth(val)
	if err != nil {
		d.errs.add(d.t.pos(n), "%s %s: %v", name, describeValue(val), err)
		return
	}
	*b = Bandwidth(v)
}

// decodeNode reads a loss: 0.1%, or 0.
func (l *Loss) decodeNode(d *decoder, n *yaml.Node, name string) {
	val, ok := d.scalar(n, name)
	if !ok {
		return
	}
	v, err := ParseLoss(val)
	if err != nil {
		d.errs.add(d.t.pos(n), "%s %s: %v", name, describeValue(val), err)
		return
	}
	*l = Loss(v)
}

var bandwidthRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)(/s)?$`)

// bandwidthUnits are bytes per second per unit, in the words a DBA writes: bits (network
// gear's, decimal as tc writes them) and bytes (a disk's: decimal MB, binary MiB), the
// units a failover drill's link: takes too (executor/link.ParseRate), and 50MB without /s.
var bandwidthUnits = map[string]float64{
	"bit": 1.0 / 8, "kbit": 1e3 / 8, "mbit": 1e6 / 8, "gbit": 1e9 / 8,
	"bps": 1.0 / 8, "kbps": 1e3 / 8, "mbps": 1e6 / 8, "gbps": 1e9 / 8,
	"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
}

// ParseBandwidth reads a bandwidth into bytes per second: 100Mbit, 1Gbit, 1Gbps, 50MB,
// 50MB/s, 64KiB/s; 0 is no limit.
func ParseBandwidth(v any) (float64, error) {
	const help = "write it as a DBA does: 100Mbit, 1Gbit, 10Gbit (bits per second) or 50MB (bytes per second)"
	switch x := v.(type) {
	case int:
		if x == 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("a bare number has no unit; %s", help)
	case string:
		m := bandwidthRe.FindStringSubmatch(strings.TrimSpace(x))
		if m == nil {
			return 0, fmt.Errorf("not a bandwidth; %s", help)
		}
		num, _ := strconv.ParseFloat(m[1], 64)
		if num == 0 {
			return 0, nil
		}
		f, ok := bandwidthUnits[strings.ToLower(m[2])]
		if !ok {
			return 0, fmt.Errorf("unknown unit %q; %s", m[2]+m[3], help)
		}
		if num*f < 1000 {
			return 0, fmt.Errorf("below 1000 bytes per second, a MySQL packet would take seconds; %s", help)
		}
		return num * f, nil
	}
	return 0, fmt.Errorf("not a bandwidth; %s", help)
}

// ParseLoss reads a loss percentage (0.1%) into a fraction; 0 is none. A bare number is
// refused: 1 could mean 1% or all of it.
func ParseLoss(v any) (float64, error) {
	switch x := v.(type) {
	case int:
		if x == 0 {
			return 0, nil
		}
	case float64:
		if x == 0 {
			return 0, nil
		}
	case string:
		s := strings.TrimSpace(x)
		if num, ok := strings.CutSuffix(s, "%"); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			switch {
			case err != nil || math.IsNaN(f):
				return 0, fmt.Errorf("not a percentage; write it like 0.1%%")
			case f < 0 || f >= 100:
				return 0, fmt.Errorf("must be at least 0%% and below 100%% (a cut link is a drill's fault, not a loss)")
			}
			return f / 100, nil
		}
	}
	return 0, fmt.Errorf("write loss as a percentage, e.g. 0.1%% (a bare number could mean a percentage or a fraction)")
}

// shape is a link's shape, over the default def (replicas: under a NAME_replicaN), key by key.
func (l *Link) shape(def *Link) LinkShape {
	var s LinkShape
	for _, src := range []*Link{def, l} {
		if src == nil {
			continue
		}
		if src.Src.Has("rtt") {
			s.Delay = src.RTT / 2
		}
		if src.Src.Has("delay") {
			s.Delay = src.Delay
		}
		if src.Src.Has("jitter") {
			s.Jitter = src.Jitter
		}
		if src.Src.Has("bandwidth") {
			s.Bandwidth = float64(src.Bandwidth)
		}
		if src.Src.Has("loss") {
			s.Loss = float64(src.Loss)
		}
	}
	return s
}

// resolve is the links of sandbox t (with replicas replicas) in one iteration.
func (ls *Links) resolve(t string, replicas int) SandboxLinks {
	var out SandboxLinks
	if ls.Client != nil {
		s := ls.Client.shape(nil)
		out.Client = &s
	}
	if ls.Nodes != nil {
		s := ls.Nodes.shape(nil)
		out.Nodes = &s
	}
	for r := 1; r <= replicas; r++ {
		name := ReplicaName(t, r)
		own := ls.Each[name]
		if own == nil && ls.Replicas == nil {
			continue
		}
		if out.Replicas == nil {
			out.Replicas = map[string]LinkShape{}
		}
		if own == nil {
			out.Replicas[name] = ls.Replicas.shape(nil)
		} else {
			out.Replicas[name] = own.shape(ls.Replicas)
		}
	}
	return out
}

// check reports what the links of sandbox t, as one iteration decoded them, get wrong.
func (ls *Links) check(d *decoder, t *Target) {
	for _, l := range ls.all() {
		if l.Src.Has("rtt") && l.Src.Has("delay") {
			d.errs.add(l.Src.At("delay"), "a link takes rtt (the round trip) or delay (one way), not both; keep one (rtt: 2ms is delay: 1ms)")
		}
	}
	for name, l := range ls.Each {
		if !strings.HasPrefix(name, t.Name+"_replica") || !slicesContainsReplica(t, name) {
			d.errs.add(l.Src.Pos, "links %s: target %s has no replica %s (its replicas are %s); name one of them, or use replicas: for all", name, t.Name, name, replicaList(t))
		}
	}
	if t.Sandbox.Replicas == 0 && (ls.Replicas != nil || len(ls.Each) > 0) {
		if t.Sandbox.Galera > 0 {
			d.errs.add(ls.Src.At("replicas"), "links: target %s is a Galera sandbox: it has nodes, not replicas; link them with nodes: {rtt: ...}", t.Name)
		} else {
			d.errs.add(ls.Src.At("replicas"), "links: target %s has no replicas to link; give it replicas: N, or keep only client:", t.Name)
		}
	}
	if t.Sandbox.Galera == 0 && ls.Nodes != nil {
		d.errs.add(ls.Src.At("nodes"), "links: nodes: target %s is not a Galera sandbox; nodes: links a Galera sandbox's nodes (galera: 3); use replicas: for replicas", t.Name)
	}
}

func (ls *Links) all() []*Link {
	out := []*Link{}
	for _, l := range []*Link{ls.Client, ls.Replicas, ls.Nodes} {
		if l != nil {
			out = append(out, l)
		}
	}
	for _, l := range ls.Each {
		out = append(out, l)
	}
	return out
}

func slicesContainsReplica(t *Target, name string) bool {
	for r := 1; r <= t.Sandbox.Replicas; r++ {
		if ReplicaName(t.Name, r) == name {
			return true
		}
	}
	return false
}

func replicaList(t *Target) string {
	if t.Sandbox.Replicas == 0 {
		return "none"
	}
	var names []string
	for r := 1; r <= t.Sandbox.Replicas; r++ {
		names = append(names, ReplicaName(t.Name, r))
	}
	return strings.Join(names, ", ")
}

// linksNodes finds the sandbox.links mapping of each sandbox target, decoded per iteration.
func linksNodes(root *yaml.Node, p *Plan) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	tn, _ := mapGet(resolveAlias(root), "targets")
	for _, t := range p.Targets {
		if t.Sandbox == nil || !t.Sandbox.Src.Has("links") {
			continue
		}
		node, _ := mapGet(resolveAlias(tn), t.Name)
		sb, _ := mapGet(resolveAlias(node), "sandbox")
		if ln, _ := mapGet(resolveAlias(sb), "links"); ln != nil {
			out[t.Name] = resolveAlias(ln)
		}
	}
	return out
}

// sandboxLinks decodes each sandbox's links in the iteration's scope. failed remembers the
// targets whose links did not decode, so that one mistake is one error, not one per
// iteration.
func (d *decoder) sandboxLinks(p *Plan, it *Iteration, nodes map[string]*yaml.Node, failed map[string]bool) {
	for i := range p.Targets {
		t := &p.Targets[i]
		n := nodes[t.Name]
		if n == nil || failed[t.Name] {
			continue
		}
		var ls Links
		before := d.errs.len()
		d.decode(n, reflect.ValueOf(&ls).Elem(), "links")
		ls.check(d, t)
		if d.errs.len() != before {
			failed[t.Name] = true
			continue
		}
		if it.Links == nil {
			it.Links = map[string]SandboxLinks{}
		}
		it.Links[t.Name] = ls.resolve(t.Name, t.Sandbox.Replicas)
		if t.Sandbox.Links == nil {
			t.Sandbox.Links = &ls // as the first iteration decoded it, for explain and checks
		}
	}
}
