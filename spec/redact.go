package spec

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

const redacted = "***"

var envExpr = regexp.MustCompile(`\$\{\{[^}]*\benv\.[^}]*\}\}`)

// Redacted renders the resolved plan as YAML for the results folder: extends merged, --set
// overrides written into vars:, and secrets replaced by ***: dsn passwords, SNMP community and
// passwords, every ${{ }} that reads the environment, and any other occurrence of the value of an
// environment variable the plan read (4 characters or longer). The output is itself a valid plan
// that expands to the same iterations (a rerun gives the targets' DSNs with --target).
func (p *Plan) Redacted() ([]byte, error) {
	root := copyNode(p.merged.root)
	// --set overrides are baked into vars:; the other vars keep their source (expressions included)
	if vn, _ := mapGet(root, "vars"); vn != nil && vn.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(vn.Content); i += 2 {
			if !p.overridden[vn.Content[i].Value] {
				continue
			}
			if val, ok := p.Vars.Lookup(vn.Content[i].Value); ok {
				var n yaml.Node
				if err := n.Encode(val); err == nil {
					vn.Content[i+1] = &n
				}
			}
		}
	}
	if tn, _ := mapGet(root, "targets"); tn != nil && tn.Kind == yaml.MappingNode {
		for i := 1; i < len(tn.Content); i += 2 {
			t := tn.Content[i]
			if dsn, _ := mapGet(t, "dsn"); dsn != nil {
				dsn.Value = RedactDSN(dsn.Value)
			}
			if s, _ := mapGet(t, "snmp"); s != nil {
				for _, k := range []string{"community", "auth_password", "priv_password"} {
					if n, _ := mapGet(s, k); n != nil && n.Kind == yaml.ScalarNode {
						n.Value, n.Tag, n.Style = redacted, "!!str", 0
					}
				}
			}
		}
	}
	redactEnv(root)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	// A plan loaded from a results folder (rerun) already carries the header as a comment:
	// writing it again would make a rerun's plan.yaml differ from the one it ran.
	body := strings.TrimPrefix(buf.String(), resolvedHeader)
	// an env value that reached a string through a var or a function is caught here
	return []byte(p.Redact(resolvedHeader + body)), nil
}

const resolvedHeader = "# Resolved plan: extends merged, --set overrides applied, secrets replaced by ***.\n"

// RedactDSN replaces the password of a go-sql-driver DSN (user:password@...) with ***.
func RedactDSN(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return dsn
	}
	user := dsn[:at]
	if i := strings.Index(user, ":"); i >= 0 {
		return user[:i+1] + redacted + dsn[at:]
	}
	return dsn
}

// Redact replaces, in s, the values of the environment variables the plan read and the
// passwords of the --target DSNs, 4 characters or longer: shorter ones would mangle
// unrelated text. For logs, command lines and what a run saves.
func (p *Plan) Redact(s string) string {
	var values []string
	if p.merged != nil {
		values = append(values, p.merged.secrets...)
	}
	for name := range p.envUsed {
		values = append(values, p.merged.envValue(name))
	}
	return RedactValues(s, values...)
}

// RedactValues replaces every occurrence of each value in s with ***, longest value first (so a
// secret that contains another is hidden whole). Values shorter than 4 characters are left alone:
// they would mangle unrelated text. The plan's own secrets go through it (Redact), and so do
// secrets only known while running, such as the password of a sandbox quadrant started.
func RedactValues(s string, values ...string) string {
	vs := append([]string(nil), values...)
	sort.Slice(vs, func(i, j int) bool { return len(vs[i]) > len(vs[j]) })
	for _, v := range vs {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, redacted)
		}
	}
	return s
}

func redactEnv(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${{") {
		n.Value = envExpr.ReplaceAllString(n.Value, redacted)
	}
	for _, c := range n.Content {
		redactEnv(c)
	}
}

func copyNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = copyNode(x)
	}
	if n.Alias != nil {
		c.Alias = copyNode(n.Alias)
	}
	return &c
}
