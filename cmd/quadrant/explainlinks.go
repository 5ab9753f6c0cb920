package main

import (
	"sort"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
)

// linkNames lists sandbox t's links as ends, for the targets of explain: "client -> db,
// db -> db_replica1"; a Galera sandbox's node links as "nodes -> db, nodes -> db_node2, ...".
func linkNames(t spec.Target) string {
	var out []string
	if t.Sandbox.Links.Client != nil {
		out = append(out, "client -> "+t.Name)
	}
	for r := 1; r <= t.Sandbox.Replicas; r++ {
		name := spec.ReplicaName(t.Name, r)
		if t.Sandbox.Links.Replicas != nil || t.Sandbox.Links.Each[name] != nil {
			out = append(out, t.Name+" -> "+name)
		}
	}
	if t.Sandbox.Links.Nodes != nil {
		for _, node := range append([]string{t.Name}, t.Members()...) {
			out = append(out, "nodes -> "+node)
		}
	}
	return strings.Join(out, ", ")
}

// iterationLinks is each sandbox's links as iteration it shapes them, by sandbox:
// "client -> db: rtt 4ms; db -> db_replica1: rtt 40ms, 1Gbit".
func iterationLinks(it *spec.Iteration) map[string]string {
	out := map[string]string{}
	for name, sl := range it.Links {
		var parts []string
		if sl.Client != nil {
			parts = append(parts, "client -> "+name+": "+sl.Client.String())
		}
		replicas := make([]string, 0, len(sl.Replicas))
		for r := range sl.Replicas {
			replicas = append(replicas, r)
		}
		sort.Slice(replicas, func(i, j int) bool { // replica10 after replica9
			return len(replicas[i]) < len(replicas[j]) || len(replicas[i]) == len(replicas[j]) && replicas[i] < replicas[j]
		})
		for _, r := range replicas {
			parts = append(parts, name+" -> "+r+": "+sl.Replicas[r].String())
		}
		if sl.Nodes != nil {
			parts = append(parts, "between the nodes of "+name+" (one link in front of each): "+sl.Nodes.String()+" (not probed)")
		}
		out[name] = strings.Join(parts, "; ")
	}
	return out
}

// links says, when they change, the shape of each sandbox's links in iteration it.
func (e *explainer) links(it *spec.Iteration, prevConfig map[string]string) {
	now := iterationLinks(it)
	for _, name := range sortedNames(now) {
		key := "sandbox.links " + name // prevConfig also keeps each sandbox's links
		if prev, ok := prevConfig[key]; !ok || prev != now[name] {
			e.printf("  links of sandbox %s (set, then probed): %s\n", name, now[name])
		}
		prevConfig[key] = now[name]
	}
}
