package spec

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

var (
	patternsMu sync.Mutex
	patterns   = map[string]*regexp.Regexp{}
)

func matchPattern(p, s string) bool {
	patternsMu.Lock()
	re, ok := patterns[p]
	if !ok {
		re = regexp.MustCompile(p)
		patterns[p] = re
	}
	patternsMu.Unlock()
	return re.MatchString(s)
}

func patternHelp(p string) string {
	switch p {
	case planNamePattern:
		return "use lower case letters, digits, '_' and '-', starting with a letter or digit"
	case identPattern:
		return "use lower case letters, digits and '_', starting with a letter"
	}
	return "must match " + p
}

const (
	planNamePattern = `^[a-z0-9][a-z0-9_-]*$`
	identPattern    = `^[a-z][a-z0-9_]*$`
	varNamePattern  = `^[A-Za-z_][A-Za-z0-9_]*$`
	globalPattern   = `^[A-Za-z_][A-Za-z0-9_]*$`
	optionPattern   = `^[A-Za-z][A-Za-z0-9_.-]*$`
	sizePattern     = `^[0-9]+[KMGTkmgt]?$`
)

// decodeNode reads an ordered map of scalar options.
func (s *Settings) decodeNode(d *decoder, n *yaml.Node, name string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.t.pos(n), "%s must be a mapping of NAME: VALUE, got %s", name, describeNode(n))
		return
	}
	out := Settings{}
	content := d.pairs(n)
	for i := 0; i+1 < len(content); i += 2 {
		k, v := content[i], d.alias(content[i+1])
		if v == nil {
			continue
		}
		if v.Kind != yaml.ScalarNode {
			d.errs.add(d.t.pos(v), "%s.%s must be a single value (string, number or true/false), got %s", name, k.Value, describeNode(v))
			continue
		}
		val, ok := d.scalar(v, k.Value)
		if !ok {
			continue
		}
		switch val.(type) {
		case []any, map[string]any:
			d.errs.add(d.t.pos(v), "%s.%s must be a single value, but the expression gave %s", name, k.Value, describeValue(val))
			continue
		case nil:
			d.errs.add(d.t.pos(v), "%s.%s has no value; write one, or remove the key", name, k.Value)
			continue
		}
		out = append(out, Setting{Name: k.Value, Value: val, Pos: d.t.pos(v)})
	}
	*s = out
}

// Scalar is a step body written as one non-empty string (sql: TEXT, sql_file: FILE) that
// keeps more than the string: what its kind's Check resolves from it. Its JSON Schema is a
// non-empty string, and the plan reference gives it no section of its own.
type Scalar interface {
	SetString(s string)
}

// str decodes a non-empty string.
func (d *decoder) str(n *yaml.Node, name string, out *string) bool {
	if n.Kind != yaml.ScalarNode {
		d.errs.add(d.t.pos(n), "%s must be a string, got %s", name, describeNode(n))
		return false
	}
	val, ok := d.scalar(n, name)
	if !ok {
		return false
	}
	if val == nil || val == "" {
		d.errs.add(d.t.pos(n), "%s must not be empty", name)
		return false
	}
	if s, isStr := val.(string); isStr {
		*out = s
	} else {
		*out = formatValue(val)
	}
	return true
}

// decodeNode reads the targets mapping, keeping the written order.
func (ts *Targets) decodeNode(d *decoder, n *yaml.Node, name string) {
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.t.pos(n), "targets must be a mapping of NAME: {dsn: ...} or NAME: {sandbox: {...}}, got %s", describeNode(n))
		return
	}
	if len(n.Content) == 0 {
		d.errs.add(d.t.pos(n), "targets is empty; add at least one, e.g. targets: {primary: {sandbox: {}}}")
		return
	}
	*ts = append(*ts, decodeNamed(d, n, "target", func(t *Target, k *yaml.Node) {
		t.Name = k.Value
		if t.Src.Pos.Line == 0 {
			t.Src.Pos = d.t.pos(k)
		}
		if !matchPattern(identPattern, k.Value) {
			d.errs.add(d.t.pos(k), "invalid target name %q: %s", k.Value, patternHelp(identPattern))
		}
	})...)
}

// decodeNode reads `host:` (or `snmp:`) of watch: a list of known names or a map NAME: OID.
func (m *SNMPMetrics) decodeNode(d *decoder, n *yaml.Node, name string) {
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			var s string
			if !d.str(c, "host metric", &s) {
				continue
			}
			if _, ok := KnownSNMPMetrics[s]; !ok {
				msg := fmt.Sprintf("unknown host metric %q", s)
				if sg := suggest(s, SNMPMetricNames()); sg != "" {
					msg += sg
				} else {
					msg += "; known: " + strings.Join(SNMPMetricNames(), ", ") + " (or use a map NAME: OID)"
				}
				d.errs.add(d.t.pos(c), "%s", msg)
				continue
			}
			*m = append(*m, SNMPMetric{Name: s, Pos: d.t.pos(c)})
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			var oid string
			if !d.str(n.Content[i+1], k.Value, &oid) {
				continue
			}
			if !matchPattern(`^\.?[0-9]+(\.[0-9]+)+$`, oid) {
				d.errs.add(d.t.pos(n.Content[i+1]), "bad OID %q for %s: write it numerically, e.g. .1.3.6.1.4.1.2021.10.1.3.1", oid, k.Value)
				continue
			}
			if !matchPattern(identPattern, k.Value) {
				d.errs.add(d.t.pos(k), "invalid host metric name %q: %s", k.Value, patternHelp(identPattern))
			}
			*m = append(*m, SNMPMetric{Name: k.Value, OID: oid, Pos: d.t.pos(k)})
		}
	default:
		if !isNull(n) {
			d.errs.add(d.t.pos(n), "%s must be a list of metric names or a map NAME: OID, got %s", name, describeNode(n))
		}
	}
}

// decodeNode reads `restore: setup` (short for {to: setup}) or the restore mapping.
func (r *Restore) decodeNode(d *decoder, n *yaml.Node, name string) {
	if n.Kind == yaml.MappingNode {
		d.decodeStruct(n, reflect.ValueOf(r).Elem(), name)
		return
	}
	val, ok := d.scalar(n, name)
	if !ok {
		return
	}
	r.Src = Source{Pos: d.t.pos(n), Keys: map[string]Pos{}}
	if val != RestoreSetup {
		d.errs.add(d.t.pos(n), "restore must be setup (every iteration starts from the data as setup left it) or a mapping {to: setup, targets: [...], steps: [...]}, got %s", describeValue(val))
		return
	}
	r.To = RestoreSetup
}

// decodeNamed decodes each KEY: VALUE of mapping n into a new T, in written order; named
// gives each its key (and, when its mapping was empty, the key's position).
func decodeNamed[T any](d *decoder, n *yaml.Node, what string, named func(t *T, key *yaml.Node)) []T {
	var out []T
	content := d.pairs(n)
	for i := 0; i+1 < len(content); i += 2 {
		k := content[i]
		var t T
		d.decode(content[i+1], reflectValue(&t), what+" "+k.Value)
		named(&t, k)
		out = append(out, t)
	}
	return out
}
