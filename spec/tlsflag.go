package spec

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// TLSFlag is a target's tls: given on the command line (--tls NAME=SPEC): its files are
// the user's, given as absolute paths.
type TLSFlag struct {
	Mode, CA, Cert, Key, ServerName string
}

// ParseTLSFlag reads SPEC: a mode alone (disabled, preferred, required, verify-ca,
// verify-identity) or key=value pairs joined by commas (mode=, ca=, cert=, key=,
// server_name=). Paths are returned as written.
func ParseTLSFlag(s string) (TLSFlag, error) {
	var f TLSFlag
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			k, v = "mode", kv
		}
		switch strings.TrimSpace(k) {
		case "mode":
			f.Mode = v
		case "ca":
			f.CA = v
		case "cert":
			f.Cert = v
		case "key":
			f.Key = v
		case "server_name":
			f.ServerName = v
		default:
			return f, fmt.Errorf("%q: want mode=MODE,ca=FILE,cert=FILE,key=FILE,server_name=NAME or a mode alone", kv)
		}
	}
	switch f.Mode {
	case "disabled", "preferred", "required", "verify-ca", "verify-identity":
	case "":
		f.Mode = "verify-identity"
	default:
		return f, fmt.Errorf("mode %q: want disabled, preferred, required, verify-ca or verify-identity", f.Mode)
	}
	return f, nil
}

// overrideTLS replaces the tls: of each target named in flags (--tls) by the command line's.
func (t *nodeTree) overrideTLS(root *yaml.Node, flags map[string]TLSFlag, errs *errorList) {
	if len(flags) == 0 {
		return
	}
	names := make([]string, 0, len(flags))
	for name := range flags {
		names = append(names, name)
	}
	sort.Strings(names)
	tn, _ := mapGet(root, "targets")
	tn = resolveAlias(tn)
	for _, name := range names {
		at := Pos{File: "--tls " + name}
		var node *yaml.Node
		if tn != nil && tn.Kind == yaml.MappingNode {
			if n, _ := mapGet(tn, name); n != nil {
				node = resolveAlias(n)
			}
		}
		if node == nil || node.Kind != yaml.MappingNode {
			errs.add(at, "the plan has no target %q", name)
			continue
		}
		f := flags[name]
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		t.register(m, at.File)
		for _, kv := range [][2]string{{"mode", f.Mode}, {"ca", f.CA}, {"cert", f.Cert}, {"key", f.Key}, {"server_name", f.ServerName}} {
			if kv[1] != "" {
				m.Content = append(m.Content, t.scalar(kv[0], at), t.scalar(kv[1], at))
			}
		}
		var kept []*yaml.Node
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value != "tls" {
				kept = append(kept, node.Content[i], node.Content[i+1])
			}
		}
		node.Content = append(kept, t.scalar("tls", at), m)
	}
}
