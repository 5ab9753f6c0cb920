package spec

import (
	"fmt"
	"io/fs"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// decoder turns merged YAML nodes into Go values strictly: unknown keys, wrong types and bad
// durations are errors with positions; ${{ }} in strings is evaluated in the current scope.
type decoder struct {
	t     *nodeTree
	errs  *errorList
	scope *scope
	fsys  fs.FS
	kinds *Kinds
	// aliases counts alias expansions: nested aliases grow exponentially ("billion laughs").
	aliases int
}

const maxAliasExpansions = 10000

// alias resolves n if it is an alias, within the expansion budget; nil when the budget is spent.
func (d *decoder) alias(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.AliasNode {
		return n
	}
	d.aliases++
	if d.aliases == maxAliasExpansions {
		d.errs.add(d.t.pos(n), "too many alias expansions (more than %d): the plan nests YAML aliases too deeply", maxAliasExpansions)
	}
	if d.aliases >= maxAliasExpansions {
		return nil
	}
	return resolveAlias(n)
}

// nodeDecoder is implemented by types that read their own YAML shape.
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node, name string)
}

// NodeDecoder is a kind's plan type that reads its own YAML shape (a map whose order
// matters, a value that may be empty in one way only), as spec's own such types do: Load
// hands DecodeNode the value's node, already resolved from an alias, and name, the key it
// was written under.
type NodeDecoder interface {
	DecodeNode(d Decoding, n *yaml.Node, name string)
}

// Decoding is what Load lends a NodeDecoder: its messages land among the plan's, with
// the position of the node they name.
type Decoding struct{ d *decoder }

// Errorf reports a problem at n's position.
func (d Decoding) Errorf(n *yaml.Node, format string, args ...any) {
	d.d.errs.add(d.d.t.pos(n), format, args...)
}

// Decode decodes n into v (a pointer) as Load decodes any plan value.
func (d Decoding) Decode(n *yaml.Node, v any, name string) {
	d.d.decode(n, reflect.ValueOf(v).Elem(), name)
}

// IsNull says n is empty (null, ~ or nothing written).
func IsNull(n *yaml.Node) bool { return isNull(n) }

var (
	durationType    = reflect.TypeOf(time.Duration(0))
	sourceType      = reflect.TypeOf(Source{})
	planType        = reflect.TypeOf(Plan{})
	workloadType    = reflect.TypeOf(Workload{})
	stepType        = reflect.TypeOf(Step{})
	restoreType     = reflect.TypeOf(Restore{})
	scalarType      = reflect.TypeOf((*Scalar)(nil)).Elem()
	nodeDecoderType = reflect.TypeOf((*nodeDecoder)(nil)).Elem()
	// kindDecoderType is NodeDecoder's: a kind's type that reads itself.
	kindDecoderType = reflect.TypeOf((*NodeDecoder)(nil)).Elem()
)

// field describes a struct field's YAML key.
type field struct {
	index    int
	key      string
	required bool
	skip     bool // known key, decoded elsewhere
	def      string
	enum     []string
	pattern  string
	min      string
	doc      string
	secret   bool
}

// fieldCache and defaultCache hold what the types' tags say: loading a plan decodes the same
// structs over and over (once per iteration), and re-reading tags was a fifth of the time.
var fieldCache, defaultCache sync.Map

func structFields(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	out := readFields(t)
	fieldCache.Store(t, out)
	return out
}

// defaultNode parses a default tag once; the node is shared read-only between loads.
func defaultNode(def string) *yaml.Node {
	if n, ok := defaultCache.Load(def); ok {
		return n.(*yaml.Node)
	}
	var dn yaml.Node
	if err := yaml.Unmarshal([]byte(def), &dn); err != nil || len(dn.Content) != 1 {
		panic(fmt.Sprintf("bad default tag %q", def)) // a programming error, caught by every test
	}
	defaultCache.Store(def, dn.Content[0])
	return dn.Content[0]
}

func readFields(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		parts := strings.Split(tag, ",")
		fd := field{index: i, key: parts[0], def: f.Tag.Get("default"), pattern: f.Tag.Get("pattern"),
			min: f.Tag.Get("min"), doc: f.Tag.Get("doc"), secret: f.Tag.Get("secret") != ""}
		if e := f.Tag.Get("enum"); e != "" {
			fd.enum = strings.Split(e, ",")
		}
		for _, p := range parts[1:] {
			switch p {
			case "required":
				fd.required = true
			case "skip":
				fd.skip = true
			}
		}
		out = append(out, fd)
	}
	return out
}

// contextName is how a struct is called in messages ("unknown key ... in workload"): its
// Src field's name tag, or its type's name in lower case.
func contextName(t reflect.Type) string {
	if sf, ok := t.FieldByName("Src"); ok && sf.Tag.Get("name") != "" {
		return sf.Tag.Get("name")
	}
	switch t {
	case reflect.TypeOf(Plan{}):
		return "the plan"
	case reflect.TypeOf(WatchQuery{}):
		return "watch query"
	case reflect.TypeOf(OnError{}):
		return "on_error"
	}
	return strings.ToLower(t.Name())
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// pairs returns a mapping's key/value nodes with YAML merge keys (<<: *base) expanded in place;
// keys written in the mapping itself win over merged ones.
func (d *decoder) pairs(n *yaml.Node) []*yaml.Node {
	merge := false
	explicit := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Tag == "!!merge" {
			merge = true
		} else {
			explicit[n.Content[i].Value] = true
		}
	}
	if !merge {
		return n.Content
	}
	var out []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag != "!!merge" {
			out = append(out, k, v)
			continue
		}
		v = d.alias(v)
		srcs := []*yaml.Node{v}
		if v != nil && v.Kind == yaml.SequenceNode {
			srcs = nil
			for _, c := range v.Content {
				srcs = append(srcs, d.alias(c))
			}
		}
		for _, src := range srcs {
			if src == nil || src.Kind != yaml.MappingNode {
				d.errs.add(d.t.pos(k), "<< must merge a mapping (<<: *anchor) or a list of them")
				continue
			}
			sp := d.pairs(src)
			for j := 0; j+1 < len(sp); j += 2 {
				if !explicit[sp[j].Value] {
					explicit[sp[j].Value] = true
					out = append(out, sp[j], sp[j+1])
				}
			}
		}
	}
	return out
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// decode stores node n in v. name is the key it was written under, for messages.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, name string) {
	n = d.alias(n)
	if n == nil {
		return
	}
	if v.CanAddr() {
		if nd, ok := v.Addr().Interface().(nodeDecoder); ok {
			nd.decodeNode(d, n, name)
			return
		}
		if nd, ok := v.Addr().Interface().(NodeDecoder); ok {
			nd.DecodeNode(Decoding{d}, n, name)
			return
		}
		if sc, ok := v.Addr().Interface().(Scalar); ok {
			var text string
			if d.str(n, name, &text) {
				sc.SetString(text)
			}
			return
		}
	}
	if v.Type() == durationType {
		if dur, ok := d.duration(n, name); ok {
			v.SetInt(int64(dur))
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if isNull(n) && v.Type().Elem().Kind() != reflect.Struct {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.decode(n, p.Elem(), name)
		v.Set(p)
	case reflect.Struct:
		d.decodeStruct(n, v, name)
	case reflect.Slice:
		if isNull(n) {
			return
		}
		items, ok := d.list(n, name)
		if !ok {
			return
		}
		s := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, it := range items {
			d.decode(it, s.Index(i), fmt.Sprintf("%s[%d]", name, i+1))
		}
		v.Set(s)
	case reflect.Interface:
		if val, ok := d.generic(n, name); ok && val != nil {
			v.Set(reflect.ValueOf(val))
		}
	default:
		d.scalarInto(n, v, name)
	}
}

// list returns the items of a sequence; a string that is exactly one ${{ }} yielding a list
// (e.g. a var holding [1, 8, 64]) is accepted too.
func (d *decoder) list(n *yaml.Node, name string) ([]*yaml.Node, bool) {
	if n.Kind == yaml.SequenceNode {
		return n.Content, true
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.Contains(n.Value, "${{") {
		val, ok := d.interpolate(n)
		if !ok {
			return nil, false
		}
		if l, isList := val.([]any); isList {
			var out []*yaml.Node
			for _, x := range l {
				out = append(out, d.valueNode(x, n))
			}
			return out, true
		}
		d.errs.add(d.t.pos(n), "%s must be a list, but the expression gave %s", name, describeValue(val))
		return nil, false
	}
	d.errs.add(d.t.pos(n), "%s must be a list (e.g. [a, b] or one \"- item\" per line), got %s", name, describeNode(n))
	return nil, false
}

// valueNode makes a node for a value computed by an expression, positioned at the expression.
func (d *decoder) valueNode(v any, at *yaml.Node) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: fmt.Sprint(v)}
	}
	setPos(&n, at.Line, at.Column)
	d.t.register(&n, d.t.file[at])
	return &n
}

func setPos(n *yaml.Node, line, col int) {
	n.Line, n.Column = line, col
	for _, c := range n.Content {
		setPos(c, line, col)
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, name string) {
	t := v.Type()
	ctx := contextName(t)
	if isNull(n) {
		empty := &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
		d.t.file[empty] = d.t.file[n]
		n = empty
	}
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.t.pos(n), "%s must be a mapping of keys, got %s", nameOr(name, ctx), describeNode(n))
		return
	}
	fields := structFields(t)
	byKey := map[string]field{}
	var keys []string
	for _, f := range fields {
		byKey[f.key] = f
		keys = append(keys, f.key)
	}
	var kindKeys []string // a workload's or a step's kind keys, decoded by its kind (kindBody, stepBody)
	switch t {
	case workloadType:
		kindKeys = d.kinds.Keys()
		keys = append(kindKeys, keys...)
	case stepType:
		kindKeys = d.kinds.StepKeys()
		keys = append(kindKeys, keys...)
	}
	src := Source{Pos: d.t.pos(n), Keys: map[string]Pos{}}
	seen := map[string]bool{}
	content := d.pairs(n)
	for i := 0; i+1 < len(content); i += 2 {
		kn, vn := content[i], content[i+1]
		key := kn.Value
		f, ok := byKey[key]
		if !ok && t == planType && strings.HasPrefix(key, "x-") {
			continue // extension keys hold YAML anchors for reuse (as in docker compose files)
		}
		if !ok && contains(kindKeys, key) {
			src.Keys[key] = d.t.pos(resolveAlias(vn))
			continue
		}
		if !ok {
			msg := fmt.Sprintf("unknown key %q in %s", key, ctx)
			if s := suggest(key, keys); s != "" {
				msg += s
			} else {
				msg += "; valid keys: " + strings.Join(keys, ", ")
			}
			d.errs.add(d.t.pos(kn), "%s", msg)
			continue
		}
		seen[key] = true
		src.Keys[key] = d.t.pos(resolveAlias(vn))
		if f.skip {
			continue
		}
		fv := v.Field(f.index)
		before := d.errs.len()
		d.decode(vn, fv, key)
		if d.errs.len() == before { // a value that failed to decode is not checked again
			d.checkField(f, fv, resolveAlias(vn))
		}
	}
	for _, f := range fields {
		if seen[f.key] || f.skip && !f.required {
			continue
		}
		if f.required {
			if !f.skip {
				d.errs.add(src.Pos, "missing required key %q in %s", f.key, ctx)
			}
			continue
		}
		fv := v.Field(f.index)
		switch {
		case f.def != "":
			dn := defaultNode(f.def)
			d.t.register(dn, "default")
			d.decode(dn, fv, f.key)
		case fv.Kind() == reflect.Struct && fv.Type() != sourceType:
			empty := &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
			d.t.file[empty] = d.t.file[n]
			d.decodeStruct(empty, fv, f.key)
		}
	}
	if sf := v.FieldByName("Src"); sf.IsValid() && sf.Type() == sourceType {
		sf.Set(reflect.ValueOf(src))
	}
	switch t {
	case workloadType:
		d.kindBody(content, v.Addr().Interface().(*Workload))
	case stepType:
		d.stepBody(content, v.Addr().Interface().(*Step))
	}
}

func nameOr(name, ctx string) string {
	if name != "" {
		return name
	}
	return ctx
}

// checkField applies the enum/pattern/min tags.
func (d *decoder) checkField(f field, v reflect.Value, n *yaml.Node) {
	p := d.t.pos(n)
	check := func(s string, at Pos) {
		if len(f.enum) > 0 && !contains(f.enum, s) {
			msg := fmt.Sprintf("%s must be one of %s, got %q", f.key, strings.Join(f.enum, ", "), s)
			if sg := suggest(s, f.enum); sg != "" {
				msg += sg
			}
			d.errs.add(at, "%s", msg)
		}
		if f.pattern != "" && s != "" && !matchPattern(f.pattern, s) {
			d.errs.add(at, "invalid %s %q: %s", f.key, s, patternHelp(f.pattern))
		}
	}
	switch v.Kind() {
	case reflect.String:
		check(v.String(), p)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String && n.Kind == yaml.SequenceNode {
			for i := 0; i < v.Len() && i < len(n.Content); i++ {
				check(v.Index(i).String(), d.t.pos(n.Content[i]))
			}
		}
	case reflect.Int, reflect.Int64:
		if f.min != "" {
			m, _ := strconv.ParseInt(f.min, 10, 64)
			if v.Int() < m {
				d.errs.add(p, "%s must be at least %d, got %d", f.key, m, v.Int())
			}
		}
	case reflect.Float64:
		if f.min != "" {
			m, _ := strconv.ParseFloat(f.min, 64)
			if v.Float() < m {
				d.errs.add(p, "%s must be at least %g, got %g", f.key, m, v.Float())
			}
		}
	}
}

// scalar returns the Go value of a scalar node (string, int, float64, bool or nil),
// with ${{ }} evaluated. ok is false after an error was reported.
func (d *decoder) scalar(n *yaml.Node, name string) (any, bool) {
	if n.Kind != yaml.ScalarNode {
		d.errs.add(d.t.pos(n), "%s must be a single value, got %s", name, describeNode(n))
		return nil, false
	}
	switch n.Tag {
	case "!!null":
		return nil, true
	case "!!int":
		var i int
		if err := n.Decode(&i); err != nil {
			d.errs.add(d.t.pos(n), "%s: number %s is out of range", name, n.Value)
			return nil, false
		}
		return i, true
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			d.errs.add(d.t.pos(n), "%s: bad number %s", name, n.Value)
			return nil, false
		}
		return f, true
	case "!!bool":
		var b bool
		_ = n.Decode(&b)
		return b, true
	case "!!str", "!!timestamp", "!!binary", "":
		if strings.Contains(n.Value, "${{") {
			return d.interpolate(n)
		}
		return n.Value, true
	}
	d.errs.add(d.t.pos(n), "%s: unsupported YAML tag %s; remove it", name, n.Tag)
	return nil, false
}

// generic decodes any node into plain Go values ([]any, map[string]any, scalars).
func (d *decoder) generic(n *yaml.Node, name string) (any, bool) {
	n = d.alias(n)
	if n == nil {
		return nil, false
	}
	switch n.Kind {
	case yaml.SequenceNode:
		out := []any{}
		ok := true
		for i, c := range n.Content {
			v, o := d.generic(c, fmt.Sprintf("%s[%d]", name, i+1))
			ok = ok && o
			out = append(out, v)
		}
		return out, ok
	case yaml.MappingNode:
		out := map[string]any{}
		ok := true
		content := d.pairs(n)
		for i := 0; i+1 < len(content); i += 2 {
			v, o := d.generic(content[i+1], content[i].Value)
			ok = ok && o
			out[content[i].Value] = v
		}
		return out, ok
	}
	return d.scalar(n, name)
}

// scalarInto stores a scalar in a string, integer, float or bool value.
func (d *decoder) scalarInto(n *yaml.Node, v reflect.Value, name string) {
	if n.Kind != yaml.ScalarNode {
		d.errs.add(d.t.pos(n), "%s must be %s, got %s", name, kindWord(v.Kind()), describeNode(n))
		return
	}
	val, ok := d.scalar(n, name)
	if !ok {
		return
	}
	isExpr := n.Tag == "!!str" && strings.Contains(n.Value, "${{")
	p := d.t.pos(n)
	switch v.Kind() {
	case reflect.String:
		switch x := val.(type) {
		case nil:
			if isExpr {
				return
			}
			d.errs.add(p, "%s must be a string, got nothing (null); write a value or remove the key", name)
		case string:
			v.SetString(x)
		case map[string]any, []any:
			d.errs.add(p, "%s must be a string, got %s", name, describeValue(val))
		default:
			if isExpr {
				v.SetString(formatValue(x))
			} else {
				v.SetString(n.Value) // keep what was written: 5.70 stays 5.70
			}
		}
	case reflect.Int, reflect.Int64:
		i, ok := toInt(val)
		if !ok {
			d.errs.add(p, "%s must be a whole number, got %s", name, describeValue(val))
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		switch x := val.(type) {
		case int:
			v.SetFloat(float64(x))
		case float64:
			v.SetFloat(x)
		default:
			if f, err := strconv.ParseFloat(fmt.Sprint(x), 64); err == nil && isExpr {
				v.SetFloat(f)
				return
			}
			d.errs.add(p, "%s must be a number, got %s", name, describeValue(val))
		}
	case reflect.Bool:
		b, ok := val.(bool)
		if !ok {
			d.errs.add(p, "%s must be true or false, got %s", name, describeValue(val))
			return
		}
		v.SetBool(b)
	default:
		d.errs.add(p, "%s: cannot store a value of this kind", name)
	}
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	case string:
		if i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return i, true
		}
	}
	return 0, false
}

func kindWord(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	}
	return "a value"
}

// duration parses a Go-style duration ("500ms", "30s", "10m").
func (d *decoder) duration(n *yaml.Node, name string) (time.Duration, bool) {
	val, ok := d.scalar(n, name)
	if !ok {
		return 0, false
	}
	p := d.t.pos(n)
	switch x := val.(type) {
	case string:
		dur, err := time.ParseDuration(strings.TrimSpace(x))
		if err == nil && dur >= 0 {
			return dur, true
		}
		if err == nil {
			d.errs.add(p, "%s must not be negative, got %q", name, x)
			return 0, false
		}
	case time.Duration:
		return x, true
	case int:
		if x == 0 {
			return 0, true
		}
		d.errs.add(p, "bad duration %d for %s: give a unit, e.g. %ds or %dms", x, name, x, x)
		return 0, false
	}
	d.errs.add(p, "bad duration %s for %s: write a Go duration like 500ms, 30s, 10m or 1h30m", describeValue(val), name)
	return 0, false
}

func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing (null)"
	case string:
		return strconv.Quote(x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case bool:
		return strconv.FormatBool(x)
	}
	return "the number " + formatValue(v)
}

// formatValue renders a value inside a string: numbers without exponent, lists as YAML flow.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case time.Duration:
		return x.String()
	case []any, map[string]any:
		var n yaml.Node
		if err := n.Encode(x); err == nil {
			n.Style = yaml.FlowStyle
			for _, c := range n.Content {
				c.Style |= yaml.FlowStyle
			}
			if b, err := yaml.Marshal(&n); err == nil {
				return strings.TrimSpace(string(b))
			}
		}
	}
	return fmt.Sprint(v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
