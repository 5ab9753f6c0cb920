package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// PlanIdentity is the sha256 of a resolved plan's content (plan.yaml as Redacted writes it):
// comments, quoting, flow or block style and anchors do not count, only what the plan says.
// A rerun loads plan.yaml and renders it again; the text may differ, the identity does not.
func PlanIdentity(planYAML []byte) (string, error) {
	n, err := canonicalPlan(planYAML)
	if err != nil {
		return "", err
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(out)
	return hex.EncodeToString(sum[:]), nil
}

// DiffPlans lists what differs between two resolved plans, one line per path, such as
// "vars.threads: 8 -> 16" or "targets.db.dsn: added (root:***@tcp(127.0.0.1:3307)/)".
func DiffPlans(a, b []byte) ([]string, error) {
	na, err := canonicalPlan(a)
	if err != nil {
		return nil, err
	}
	nb, err := canonicalPlan(b)
	if err != nil {
		return nil, err
	}
	var out []string
	diffNodes("", na, nb, &out)
	return out, nil
}

func canonicalPlan(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("read the resolved plan: %w", err)
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return canonicalNode(doc.Content[0]), nil
	}
	return canonicalNode(&doc), nil
}

func canonicalNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return canonicalNode(n.Alias)
	}
	c := &yaml.Node{Kind: n.Kind, Tag: n.ShortTag(), Value: n.Value}
	if c.Kind == yaml.ScalarNode && c.Tag == "!!str" && strings.Contains(c.Value, "\n") {
		c.Value = strings.TrimRight(c.Value, "\n")
	}
	for _, x := range n.Content {
		c.Content = append(c.Content, canonicalNode(x))
	}
	return c
}

func diffNodes(path string, a, b *yaml.Node, out *[]string) {
	name := path
	if name == "" {
		name = "(the plan)"
	}
	switch {
	case a.Kind == yaml.MappingNode && b.Kind == yaml.MappingNode:
		av, bv := mappingOf(a), mappingOf(b)
		keys := map[string]bool{}
		var order []string
		for _, m := range []*yaml.Node{a, b} {
			for i := 0; i+1 < len(m.Content); i += 2 {
				if k := m.Content[i].Value; !keys[k] {
					keys[k] = true
					order = append(order, k)
				}
			}
		}
		for _, k := range order {
			p := join(path, k)
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inB:
				*out = append(*out, fmt.Sprintf("%s: removed (was %s)", p, short(x)))
			case !inA:
				*out = append(*out, fmt.Sprintf("%s: added (%s)", p, short(y)))
			default:
				diffNodes(p, x, y, out)
			}
		}
	case a.Kind == yaml.SequenceNode && b.Kind == yaml.SequenceNode && len(a.Content) == len(b.Content):
		for i := range a.Content {
			diffNodes(fmt.Sprintf("%s[%d]", path, i), a.Content[i], b.Content[i], out)
		}
	default:
		if short(a) != short(b) {
			*out = append(*out, fmt.Sprintf("%s: %s -> %s", name, short(a), short(b)))
		}
	}
}

func mappingOf(n *yaml.Node) map[string]*yaml.Node {
	m := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		m[n.Content[i].Value] = n.Content[i+1]
	}
	return m
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// short renders a node on one line, cut at 80 characters.
func short(n *yaml.Node) string {
	var s string
	if n.Kind == yaml.ScalarNode {
		s = n.Value
	} else {
		flow := *n
		setFlow(&flow)
		b, err := yaml.Marshal(&flow)
		if err != nil {
			return "?"
		}
		s = strings.TrimSpace(string(b))
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	kids := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		cc := *c
		setFlow(&cc)
		kids[i] = &cc
	}
	n.Content = kids
}
