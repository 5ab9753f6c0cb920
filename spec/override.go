package spec

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// overrideTargets points targets at other servers (--target NAME=DSN): the target's
// dsn or sandbox is replaced by the given DSN before decoding, so validation, the
// resolved plan (with the password as ***) and errors all see the override. Its snmp and
// restart keys stay; the plan's weaker connection settings do not (overrideSecurity).
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
				errs.add(at, "target %q is a sandbox with replicas that the plan uses; --target can only replace a target without replicas. "+
					"For a failover drill on your own primary and replica, make the target a dsn: the address in front of your primary (a proxy or a VIP you run) "+
					"and give the failover: step promote: {shell: YOUR_COMMAND} (--allow-shell): docs/failover.md, \"Own servers\", and examples/failover-own-servers.yaml", name)
				continue
			}
			if l, _ := mapGet(resolveAlias(sb), "links"); l != nil {
				t.notes = append(t.notes, fmt.Sprintf("target %s: --target points it at your server, so the plan's sandbox links: (the network quadrant put between the client and the sandbox) are dropped: the network to your server is the real one", name))
			}
		}
		dsn, apkr := CutDSNParam(targets[name], apkrParam)
		if pw := dsnPassword(dsn); pw != "" {
			t.secrets = append(t.secrets, pw)
		}
		var kept []*yaml.Node
		for i := 0; i+1 < len(node.Content); i += 2 {
			if k := node.Content[i].Value; k != "dsn" && k != "sandbox" {
				kept = append(kept, node.Content[i], node.Content[i+1])
			}
		}
		kept = t.overrideSecurity(name, kept, dsnHasParam(dsn, "tls"))
		content := []*yaml.Node{t.scalar("dsn", at), t.scalar(dsn, at)}
		if apkr == "true" {
			yes := t.scalar("true", at)
			yes.Tag = "!!bool"
			content = append(content, t.scalar("allow_public_key_retrieval", at), yes)
		} else if apkr != "" {
			errs.add(at, "%s=%s: give %s=true, or leave it out", apkrParam, apkr, apkrParam)
		}
		node.Content = append(content, kept...)
	}
}

// apkrParam is the --target DSN parameter that allows what a plan's
// allow_public_key_retrieval: true does (JDBC's name; the driver has no such parameter).
const apkrParam = "allowPublicKeyRetrieval"

func (t *nodeTree) scalar(v string, at Pos) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
	t.register(n, at.File)
	return n
}

// overrideSecurity drops from a target's keys what would weaken the user's connection to a
// server the user named (--target): a tls: that does not verify the server's certificate
// (a folder must not turn off or downgrade the user's TLS), every tls: when the user's DSN
// has a tls= parameter of its own (the user chose), and allow_public_key_retrieval (the
// password offered to whoever answers). A verifying tls: stays: it only makes the
// connection safer. What is dropped is one note per target (Plan.OverrideNotes).
func (t *nodeTree) overrideSecurity(name string, kv []*yaml.Node, dsnTLS bool) []*yaml.Node {
	var kept []*yaml.Node
	var dropped, restore []string
	for i := 0; i+1 < len(kv); i += 2 {
		k, v := kv[i].Value, resolveAlias(kv[i+1])
		switch {
		case k == "allow_public_key_retrieval":
			if v.Value != "false" {
				dropped = append(dropped, "allow_public_key_retrieval")
				restore = append(restore, apkrParam+"=true")
			}
			continue
		case k == "pid" || k == "pid_file":
			// They name a process of the plan's machine: on the user's, another process
			// entirely, whose /proc counters would be measured as the server's.
			dropped = append(dropped, k+": (a process of the plan's machine, not of your server)")
			continue
		case k == "tls" && dsnTLS:
			dropped = append(dropped, "tls: (the DSN's tls= parameter decides)")
			continue
		case k == "tls" && !verifyingTLS(v):
			dropped = append(dropped, fmt.Sprintf("tls: (mode %s does not verify the server)", tlsMode(v)))
			restore = append(restore, "tls=preferred, tls=skip-verify or tls=true")
			continue
		}
		kept = append(kept, kv[i], kv[i+1])
	}
	if len(dropped) > 0 {
		verb := "is"
		if len(dropped) > 1 {
			verb = "are"
		}
		msg := fmt.Sprintf("target %s: --target points it at your server, so the plan's %s %s dropped", name, strings.Join(dropped, " and "), verb)
		if len(restore) > 0 {
			msg += "; to have them, add " + strings.Join(restore, " and ") + " to the --target DSN"
		}
		t.notes = append(t.notes, msg)
	}
	return kept
}

// verifyingTLS says a tls: node verifies the server's certificate: its mode is written
// verify-ca or verify-identity, or left to the default (verify-identity). A mode made of an
// expression cannot be told before decoding: it does not count.
func verifyingTLS(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	m, _ := mapGet(n, "mode")
	if m == nil {
		return true
	}
	m = resolveAlias(m)
	return m.Kind == yaml.ScalarNode && (m.Value == "verify-ca" || m.Value == "verify-identity")
}

func tlsMode(n *yaml.Node) string {
	if n != nil && n.Kind == yaml.MappingNode {
		if m, _ := mapGet(n, "mode"); m != nil && resolveAlias(m).Kind == yaml.ScalarNode {
			return resolveAlias(m).Value
		}
	}
	return "unknown"
}

// dsnPassword is the password of a DSN user:password@..., "" for none.
func dsnPassword(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(dsn[:at], ":")
	return pw
}

// CutDSNParam removes parameter name from a DSN's query and returns its value ("" when
// absent): for the parameters quadrant reads itself, which the driver would take for a
// session variable.
func CutDSNParam(dsn, name string) (string, string) {
	q := strings.LastIndex(dsn, "?")
	if q < 0 || q < strings.LastIndex(dsn, "@") {
		return dsn, ""
	}
	var rest []string
	val := ""
	for _, kv := range strings.Split(dsn[q+1:], "&") {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			val = v
			continue
		}
		rest = append(rest, kv)
	}
	if len(rest) == 0 {
		return dsn[:q], val
	}
	return dsn[:q+1] + strings.Join(rest, "&"), val
}

// OverrideNotes says what --target took from the plan's targets beyond their dsn or sandbox
// (weaker TLS and authentication settings), one line per setting, for the run's log.
func (p *Plan) OverrideNotes() []string {
	if p.merged == nil {
		return nil
	}
	return p.merged.notes
}
