package spec

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Spread is a workload's nodes: how its threads are spread over the nodes of its target, a
// Galera sandbox: all on the target itself (one, the zero value), round robin over every
// node (all), or a share per node by weight (a map NODE: WEIGHT, or a list of nodes, each
// of weight 1). The rule that gives each thread its node is Assign.
type Spread struct {
	Pos Pos
	// Mode is SpreadOne, SpreadAll or SpreadShare.
	Mode   string
	Shares []Share // SpreadShare's, in written order (a map from an expression: by name)
}

// Share is one node's weight in a Spread.
type Share struct {
	Node   string
	Weight int
	Pos    Pos
}

// The modes of a Spread.
const (
	SpreadOne   = "one"
	SpreadAll   = "all"
	SpreadShare = "share"
)

// String is the spread as a plan writes it: one, all, {db: 1, db_node2: 3}.
func (s Spread) String() string {
	if s.Mode != SpreadShare {
		return cmp.Or(s.Mode, SpreadOne)
	}
	var ws []string
	for _, sh := range s.Shares {
		ws = append(ws, fmt.Sprintf("%s: %d", sh.Node, sh.Weight))
	}
	return "{" + strings.Join(ws, ", ") + "}"
}

// Spreads says whether the threads go anywhere but the target itself (node 1).
func (s Spread) Spreads() bool { return s.Mode == SpreadAll || s.Mode == SpreadShare }

// decodeNode reads nodes: one, all, a list of node target names or a map NAME: WEIGHT,
// written out or the value of an expression (a matrix axis's: ${{ matrix.writers }}).
func (s *Spread) decodeNode(d *decoder, n *yaml.Node, name string) {
	*s = Spread{Pos: d.t.pos(n), Mode: SpreadOne}
	keyPos := map[string]Pos{}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			keyPos[n.Content[i].Value] = d.t.pos(n.Content[i])
		}
	}
	val, ok := d.generic(n, name)
	if !ok {
		return
	}
	if err := s.set(val, keyPos); err != "" {
		d.errs.add(s.Pos, "%s: %s", name, err)
	}
}

const spreadHelp = "one (every thread on the target, node 1), all (round robin over every node), a list of nodes [db, db_node2] or a map of weights {db: 1, db_node2: 3}"

// set reads a decoded value; the message says what is wrong ("" when nothing).
func (s *Spread) set(val any, keyPos map[string]Pos) string {
	switch x := val.(type) {
	case nil:
		return ""
	case string:
		if x != SpreadOne && x != SpreadAll {
			return fmt.Sprintf("%q is not a way to spread threads; write %s", x, spreadHelp)
		}
		s.Mode = x
		return ""
	case []any:
		if len(x) == 0 {
			return "an empty list of nodes; name at least one, or write " + spreadHelp
		}
		for _, it := range x {
			node, ok := it.(string)
			if !ok {
				return fmt.Sprintf("a list of nodes holds target names, got %s", describeValue(it))
			}
			s.Shares = append(s.Shares, Share{Node: node, Weight: 1, Pos: s.Pos})
		}
	case map[string]any:
		for _, node := range slices.Sorted(maps.Keys(x)) {
			w, ok := weight(x[node])
			if !ok {
				return fmt.Sprintf("the weight of %s must be a whole number >= 0, got %s", node, describeValue(x[node]))
			}
			p, written := keyPos[node]
			if !written {
				p = s.Pos
			}
			s.Shares = append(s.Shares, Share{Node: node, Weight: w, Pos: p})
		}
		// Written out, the shares keep the plan's order (explain says them so).
		sort.SliceStable(s.Shares, func(i, j int) bool {
			a, b := s.Shares[i].Pos, s.Shares[j].Pos
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
	default:
		return fmt.Sprintf("got %s; write %s", describeValue(val), spreadHelp)
	}
	s.Mode = SpreadShare
	total := 0
	for _, sh := range s.Shares {
		total += sh.Weight
	}
	if total == 0 {
		return "every weight is 0: give at least one node a weight above 0"
	}
	return ""
}

func weight(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, x >= 0
	case float64:
		return int(x), x >= 0 && x == math.Trunc(x) && x <= math.MaxInt32
	}
	return 0, false
}

// Weights are each node's weight, in the order of nodes (the target first, then its
// NAME_node2...): one gives the target all of it, all each node 1.
func (s Spread) Weights(nodes []string) []int {
	out := make([]int, len(nodes))
	switch s.Mode {
	case SpreadAll:
		for i := range out {
			out[i] = 1
		}
	case SpreadShare:
		for _, sh := range s.Shares {
			if i := slices.Index(nodes, sh.Node); i >= 0 {
				out[i] += sh.Weight
			}
		}
	default:
		if len(out) > 0 {
			out[0] = 1
		}
	}
	return out
}

// Assign gives each of n threads (by global worker id, 0 to n-1) its node: an index of
// weights. The rule is smooth weighted round robin: each thread in turn goes to the node
// furthest below its share so far (the first such node on a tie), so any first k threads
// are spread as the weights say, as near as whole threads can be: equal weights are plain
// round robin (thread i on node i mod N), and a load shape whose stages open threads in
// order keeps the shares at every stage.
func Assign(weights []int, n int) []int {
	total := 0
	for _, w := range weights {
		total += max(w, 0)
	}
	out := make([]int, n)
	if total == 0 {
		return out // every thread on the first node
	}
	cur := make([]int, len(weights))
	for t := range out {
		best := -1
		for i, w := range weights {
			if w <= 0 {
				continue
			}
			cur[i] += w
			if best < 0 || cur[i] > cur[best] {
				best = i
			}
		}
		cur[best] -= total
		out[t] = best
	}
	return out
}

// Describe says how n threads are spread over nodes, for explain and the log: "8 threads
// round robin over db, db_node2, db_node3 (3, 3, 2)"; "" for one.
func (s Spread) Describe(nodes []string, n int) string {
	if !s.Spreads() || len(nodes) == 0 {
		return ""
	}
	counts := make([]int, len(nodes))
	for _, i := range Assign(s.Weights(nodes), n) {
		counts[i]++
	}
	var on []string
	for i, node := range nodes {
		if counts[i] > 0 {
			on = append(on, fmt.Sprintf("%s %d", node, counts[i]))
		}
	}
	how := "round robin over every node"
	if s.Mode == SpreadShare {
		how = "by weight " + s.String()
	}
	return fmt.Sprintf("threads spread %s: %s", how, strings.Join(on, ", "))
}

// spread checks a workload's nodes: against the target it runs on: a Galera sandbox's own
// name, each node named one of its nodes, a kind whose threads can connect apart.
func (v *validator) spread(w *Workload, target string) {
	s := w.Nodes
	if !s.Spreads() {
		return
	}
	at := w.Src.At("nodes")
	if w.Kind != nil && !w.Kind.Spreads {
		v.errorf(at, "nodes: %s: a %s workload's threads cannot be spread over nodes (kinds that can: %s); remove nodes: or write nodes: one", s, w.Kind.Name, strings.Join(v.spreadKinds(), ", "))
		return
	}
	t := v.targets[target]
	if t == nil {
		return // the target's own error says so
	}
	if t.Sandbox == nil || t.Sandbox.Galera < 2 {
		v.errorf(at, "nodes: %s spreads threads over a Galera cluster's nodes, but target %s is not a Galera sandbox of 2 nodes or more (sandbox: {galera: 3}); remove nodes: or write nodes: one", s, target)
		return
	}
	if t.Name != target {
		v.errorf(at, "nodes: %s: the workload's target %s is a node of %s; run the workload on %s (node 1) and spread it from there", s, target, t.Name, t.Name)
		return
	}
	nodes := append([]string{t.Name}, t.Members()...)
	for _, sh := range s.Shares {
		if slices.Contains(nodes, sh.Node) {
			continue
		}
		msg := fmt.Sprintf("nodes: %q is not a node of %s", sh.Node, t.Name)
		if sg := suggest(sh.Node, nodes); sg != "" {
			msg += sg
		} else {
			msg += "; its nodes: " + strings.Join(nodes, ", ")
		}
		v.errorf(sh.Pos, "%s", msg)
	}
}

// spreadKinds are the kinds whose threads can be spread over nodes, for messages.
func (v *validator) spreadKinds() []string {
	var out []string
	for _, k := range v.d.kinds.All() {
		if k.Spreads {
			out = append(out, k.Name)
		}
	}
	return out
}

// SpreadNodes are the nodes whose node.NAME.* figures a workload run on target has: every
// node of target's Galera sandbox, node 1 (the target) first, for a kind whose threads can
// be spread, whatever its nodes: says (with one, node 1 has every thread and the others
// none), so that cells of a writers axis have the same columns; nil on any other target.
func (p *Plan) SpreadNodes(w *Workload, target string) []string {
	if w == nil || w.Kind == nil || !w.Kind.Spreads {
		return nil
	}
	for _, t := range p.Targets {
		if t.Name == target && t.Sandbox != nil && t.Sandbox.Galera >= 2 {
			return append([]string{t.Name}, t.Members()...)
		}
	}
	return nil
}
