package spec

import (
	"errors"
	"fmt"
	"github.com/quadrant-bench/quadrant/spec/confine"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/templates"
	"go.yaml.in/yaml/v3"
)

// nodeTree is the merged YAML of a plan and everything it extends. Every node
// remembers the file it was written in, so errors point into the right file.
type nodeTree struct {
	// notes say what overrideTargets dropped (Plan.OverrideNotes); secrets are the
	// passwords of the DSNs it put in, which Redact hides.
	notes, secrets []string

	root  *yaml.Node
	file  map[*yaml.Node]string
	lines map[string][]string // source lines, to locate expressions inside strings
	files []string            // in load order: the plan first
	env   map[string]string   // the environment env.* read
	// roots are where an extends: file may be (the plan's folder and --allow-path): a
	// folder's plan that extends /etc/shadow would print its lines as unknown keys.
	roots confine.Roots
}

func (t *nodeTree) envValue(name string) string { return t.env[name] }

func newTree() *nodeTree {
	return &nodeTree{file: map[*yaml.Node]string{}, lines: map[string][]string{}}
}

func (t *nodeTree) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{}
	}
	return Pos{File: t.file[n], Line: n.Line, Col: n.Column}
}

// register records name as the file of n and everything below it.
func (t *nodeTree) register(n *yaml.Node, name string) {
	if n == nil {
		return
	}
	if _, done := t.file[n]; done {
		return
	}
	t.file[n] = name
	for _, c := range n.Content {
		t.register(c, name)
	}
	if n.Alias != nil {
		t.register(n.Alias, name)
	}
}

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parse reads one YAML source into the tree. It returns the root mapping, or nil after
// reporting why there is none.
func (t *nodeTree) parse(name string, data []byte, errs *errorList) *yaml.Node {
	text := string(data)
	t.files = append(t.files, name)
	t.lines[name] = strings.Split(text, "\n")
	if tabs := checkTabs(name, t.lines[name], errs); tabs {
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p, msg := syntaxError(name, t.lines[name], err)
		errs.add(p, "%s", msg)
		return nil
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		errs.add(Pos{File: name, Line: 1, Col: 1}, "the plan is empty; start from `quadrant init`")
		return nil
	}
	root := doc.Content[0]
	t.register(root, name)
	if root.Kind != yaml.MappingNode {
		errs.add(t.pos(root), "a plan must be a mapping of keys (version:, name:, targets:, ...), got %s", describeNode(root))
		return nil
	}
	t.checkDuplicates(root, errs)
	return root
}

// syntaxError turns a yaml.v3 parse error into a positioned one. yaml.v3 reports only a line:
// for scanner errors the line of the problem; for parser errors ("did not find expected ...") the
// 0-based line of the block or bracket that is not closed, which is the 1-based line before it.
func syntaxError(name string, lines []string, err error) (Pos, string) {
	line, msg := 1, strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLineErr.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	hint := "check the indentation, quotes and brackets on this line and the one before"
	switch {
	case strings.HasPrefix(msg, "did not find expected"):
		line++
		hint = "the block or bracket that starts on this line is not closed, or a line inside it is mis-indented"
	case strings.Contains(msg, "end of stream"):
		hint = "a quote or bracket opened on this line is never closed"
	case strings.HasPrefix(msg, "mapping values are not allowed"):
		hint = "a value on this line contains \": \": put it in quotes, or fix the indentation"
	}
	line = min(max(line, 1), len(lines))
	col := 1
	if line >= 1 && line <= len(lines) {
		col = len(lines[line-1]) - len(strings.TrimLeft(lines[line-1], " -")) + 1
	}
	return Pos{File: name, Line: line, Col: col}, fmt.Sprintf("YAML syntax error: %s; %s", msg, hint)
}

// checkTabs reports tabs in indentation: YAML forbids them and the parser's own message is obscure.
func checkTabs(name string, lines []string, errs *errorList) bool {
	found := false
	for i, l := range lines {
		for j, r := range l {
			if r == '\t' {
				errs.add(Pos{File: name, Line: i + 1, Col: j + 1}, "tab character in indentation; YAML indents with spaces only: replace the tab with spaces")
				found = true
				break
			}
			if r != ' ' && r != '-' {
				break
			}
		}
	}
	return found
}

func (t *nodeTree) checkDuplicates(n *yaml.Node, errs *errorList) {
	if n.Kind == yaml.MappingNode {
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if first, dup := seen[k.Value]; dup {
				errs.add(t.pos(k), "duplicate key %q (first at line %d:%d); remove one of them", k.Value, first.Line, first.Column)
				continue
			}
			seen[k.Value] = k
		}
	}
	for _, c := range n.Content {
		t.checkDuplicates(c, errs)
	}
}

// mapGet returns the value of key in mapping n, and the key node.
func mapGet(n *yaml.Node, key string) (val, k *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1], n.Content[i]
		}
	}
	return nil, nil
}

// mapWithout returns a copy of mapping n without key.
func (t *nodeTree) mapWithout(n *yaml.Node, key string) *yaml.Node {
	c := *n
	c.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != key {
			c.Content = append(c.Content, n.Content[i], n.Content[i+1])
		}
	}
	t.file[&c] = t.file[n]
	return &c
}

// merge deep-merges over onto base: mappings merge key by key, everything else is replaced;
// a null value removes the key (sandbox: null turns a template's sandbox into a dsn target).
// Nodes are shared, not copied, so each keeps the file it came from.
func (t *nodeTree) merge(base, over *yaml.Node) *yaml.Node {
	if base == nil || base.Kind != yaml.MappingNode || over.Kind != yaml.MappingNode {
		return over
	}
	out := *over
	t.file[&out] = t.file[over]
	out.Content = append([]*yaml.Node(nil), base.Content...)
	for i := 0; i+1 < len(over.Content); i += 2 {
		k, v := over.Content[i], over.Content[i+1]
		replaced := false
		for j := 0; j+1 < len(out.Content); j += 2 {
			if out.Content[j].Value == k.Value {
				if isNull(v) {
					out.Content = append(out.Content[:j:j], out.Content[j+2:]...)
				} else {
					out.Content[j+1] = t.merge(out.Content[j+1], v)
				}
				replaced = true
				break
			}
		}
		if !replaced {
			out.Content = append(out.Content, k, v)
		}
	}
	return &out
}

// source is a plan file or a built-in template, found by a reference.
type source struct {
	name string // shown in errors: the path as given, or builtin:NAME
	key  string // identity for cycle detection
	dir  string // where relative extends resolve ("" for built-ins)
	data []byte
}

func readSource(ref, fromDir string, fsys fs.FS) (*source, error) {
	if name, ok := strings.CutPrefix(ref, "builtin:"); ok {
		data, err := templates.Read(name)
		if err != nil {
			msg := fmt.Sprintf("unknown built-in template %q", name)
			if s := suggest(name, templates.Names()); s != "" {
				msg += s
			} else {
				msg += "; `quadrant templates` lists them"
			}
			return nil, errors.New(msg)
		}
		return &source{name: ref, key: ref, data: data}, nil
	}
	path := ref
	if !filepath.IsAbs(path) && fromDir != "" {
		path = filepath.Join(fromDir, path)
	}
	var data []byte
	var err error
	if fsys != nil {
		data, err = fs.ReadFile(fsys, filepath.ToSlash(path))
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("file %s does not exist", path)
		}
		return nil, fmt.Errorf("cannot read %s: %v", path, errors.Unwrap(err))
	}
	key, _ := filepath.Abs(path)
	return &source{name: path, key: key, dir: filepath.Dir(path), data: data}, nil
}

// readExtended reads the file an extends: names, refusing one outside the roots before
// reading a byte of it.
func (t *nodeTree) readExtended(ref, fromDir string, fsys fs.FS) (*source, error) {
	if !strings.HasPrefix(ref, "builtin:") && fsys == nil && t.roots != nil {
		path := ref
		if !filepath.IsAbs(path) {
			path = filepath.Join(fromDir, path)
		}
		if err := t.roots.Check(path); err != nil {
			return nil, fmt.Errorf("%v: a plan extends files inside its own folder only; move the file there, or allow its directory with --allow-path %s", err, filepath.Dir(path))
		}
	}
	return readSource(ref, fromDir, fsys)
}

// load parses src and, recursively, what it extends; it returns the merged root mapping.
func (t *nodeTree) load(src *source, chain []string, fsys fs.FS, errs *errorList) *yaml.Node {
	root := t.parse(src.name, src.data, errs)
	if root == nil {
		return nil
	}
	ext, _ := mapGet(root, "extends")
	if ext == nil {
		return root
	}
	root = t.mapWithout(root, "extends")
	if ext.Kind != yaml.ScalarNode || ext.Tag == "!!null" || ext.Value == "" {
		errs.add(t.pos(ext), "extends must be builtin:NAME or a path relative to this file, got %s", describeNode(ext))
		return root
	}
	dir := src.dir
	if dir == "" {
		dir = "."
	}
	base, err := t.readExtended(ext.Value, dir, fsys)
	if err != nil {
		errs.add(t.pos(ext), "extends: %v", err)
		return root
	}
	for i, k := range chain {
		if k == base.key {
			names := append(append([]string(nil), chain[i:]...), base.key)
			for j := range names {
				names[j] = t.shortName(names[j])
			}
			errs.add(t.pos(ext), "extends cycle: %s; remove one of these extends", strings.Join(names, " -> "))
			return root
		}
	}
	baseRoot := t.load(base, append(chain, base.key), fsys, errs)
	if baseRoot == nil {
		return root
	}
	return t.merge(baseRoot, root)
}

// shortName turns a cycle-detection key (absolute path) back into the name shown elsewhere.
func (t *nodeTree) shortName(key string) string {
	for _, f := range t.files {
		if a, _ := filepath.Abs(f); a == key || f == key {
			return f
		}
	}
	return key
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return describeNode(n.Alias)
	}
	switch n.Tag {
	case "!!null":
		return "nothing (null)"
	case "!!int":
		return "the number " + n.Value
	case "!!float":
		return "the number " + n.Value
	case "!!bool":
		return n.Value
	}
	return strconv.Quote(n.Value)
}
