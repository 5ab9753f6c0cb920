package spec

import (
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// overrideTargets points targets at other servers (--target NAME=DSN): the target's
// dsn or sandbox is replaced by the given DSN before decoding, so validation, the
// resolved plan (with the password as ***) and errors all see the override. Its snmp and
// restart keys stay.
func (t *nodeTree) overrideTargets(root *yaml.Node, targets map[string]string, errs *errorList) {
	if len(targets) == 0 {
		return
	}
	tn, _ := mapGet(root, "targets")
	tn = resolveAlias(tn)
	names := make([]string, 0, len(targets))
	for name := range targets {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		at := Pos{File: "--target " + name}
		var node *yaml.Node
		var known []string
		if tn != nil && tn.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(tn.Content); i += 2 {
				known = append(known, tn.Content[i].Value)
				if tn.Content[i].Value == name {
					node = resolveAlias(tn.Content[i+1])
				}
			}
		}
		if node == nil || node.Kind != yaml.MappingNode {
			errs.add(at, "the plan has no target %q to point elsewhere (its targets: %s)", name, strings.Join(known, ", "))
			continue
		}
		if sb, _ := mapGet(node, "sandbox"); sb != nil {
			if r, _ := mapGet(resolveAlias(sb), "replicas"); r != nil && r.Value != "0" {
				errs.add(at, "target %q is a sandbox with replicas that the plan uses; --target can only replace a target without replicas", name)
				continue
			}
		}
		var kept []*yaml.Node
		for i := 0; i+1 < len(node.Content); i += 2 {
			if k := node.Content[i].Value; k != "dsn" && k != "sandbox" {
				kept = append(kept, node.Content[i], node.Content[i+1])
			}
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "dsn"}
		val := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: targets[name]}
		t.register(key, at.File)
		t.register(val, at.File)
		node.Content = append([]*yaml.Node{key, val}, kept...)
	}
}
