package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The JSON Schema and the Markdown reference are generated from the Go types by reflection,
// so that neither can drift from what Load accepts.

const (
	// SchemaURL is where the published JSON Schema of plans lives.
	SchemaURL     = "https://raw.githubusercontent.com/quadrant-bench/quadrant/main/docs/plan.schema.json"
	durationRegex = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$|^0$`
	exprRegex     = `\$\{\{.*\}\}`
)

// schemaer is implemented by types whose YAML shape is not their Go shape.
type schemaer interface {
	jsonSchema() map[string]any
}

// planTypes are the plan's own sections, up to the step's (stepTypes), and after the step
// kinds' bodies, which follow the registry (docTypes).
var (
	planTypes = []reflect.Type{
		reflect.TypeOf(Plan{}), reflect.TypeOf(Target{}), reflect.TypeOf(Sandbox{}), reflect.TypeOf(Links{}), reflect.TypeOf(Link{}), reflect.TypeOf(SNMP{}),
		reflect.TypeOf(Iteration{}), reflect.TypeOf(Restore{}), stepType,
	}
	laterTypes = []reflect.Type{
		reflect.TypeOf(Workload{}), reflect.TypeOf(Stage{}),
		reflect.TypeOf(OnError{}), reflect.TypeOf(Watch{}), reflect.TypeOf(WatchQuery{}),
		reflect.TypeOf(Report{}),
	}
)

// Documented is a kind's plan type that has a section of its own in the plan reference.
type Documented interface {
	PlanDoc() string
}

// docTypes are the plan's types and then each kind's: the structs its Body and Options
// hold, in the order the reference lists them.
func docTypes(ks *Kinds) []reflect.Type {
	out := append([]reflect.Type(nil), planTypes...)
	// the step kinds' bodies, in registry order, each with the sections it names
	// (Sectioned); the types their fields hold follow, as the workload kinds' below
	var external []reflect.Type
	for _, k := range ks.Steps() {
		t := reflect.TypeOf(k.Body())
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || slices.Contains(out, t) || slices.Contains(laterTypes, t) ||
			reflect.PointerTo(t).Implements(scalarType) || reflect.PointerTo(t).Implements(nodeDecoderType) ||
			reflect.PointerTo(t).Implements(kindDecoderType) {
			continue // no keys of its own to list (a scalar, a map that reads itself)
		}
		if t.PkgPath() != planType.PkgPath() {
			external = append(external, t)
		}
		out = append(out, t)
		if s, ok := reflect.New(t).Interface().(Sectioned); ok {
			out = append(out, s.PlanSections()...)
		}
	}
	out = append(out, laterTypes...)
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() == planType.PkgPath() || slices.Contains(out, t) || reflect.PointerTo(t).Implements(scalarType) {
			return
		}
		out = append(out, t)
		for _, f := range structFields(t) {
			add(t.Field(f.index).Type)
		}
	}
	for _, k := range ks.All() {
		add(reflect.TypeOf(k.Body()))
		if k.Options != nil {
			add(reflect.TypeOf(k.Options()))
		}
	}
	for _, t := range external {
		for _, f := range structFields(t) {
			add(t.Field(f.index).Type)
		}
	}
	return out
}

// kindBodyType is the Go type a kind key decodes into, for docs: the one of its kinds
// that is not a plain name, else a string.
func kindBodyType(ks *Kinds, key string) reflect.Type {
	for _, k := range ks.All() {
		if k.Key == key {
			if t := reflect.TypeOf(k.Body()).Elem(); t.Kind() != reflect.String {
				return t
			}
		}
	}
	return reflect.TypeOf("")
}

// kindDoc is a kind key's description: its kinds' docs.
func kindDoc(ks *Kinds, key string) string {
	var docs []string
	for _, k := range ks.All() {
		if k.Key == key && k.Doc != "" {
			docs = append(docs, k.Doc)
		}
	}
	return strings.Join(docs, " ")
}

func exprRef() map[string]any { return map[string]any{"$ref": "#/$defs/expression"} }

func orExpr(s map[string]any) map[string]any {
	return map[string]any{"anyOf": []any{s, exprRef()}}
}

func (Settings) jsonSchema() map[string]any {
	return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "number", "boolean"}}}
}
func (Vars) jsonSchema() map[string]any {
	return map[string]any{"type": "object", "propertyNames": map[string]any{"pattern": varNamePattern}}
}
func (Targets) jsonSchema() map[string]any {
	return map[string]any{"type": "object", "minProperties": 1, "propertyNames": map[string]any{"pattern": identPattern},
		"additionalProperties": map[string]any{"$ref": "#/$defs/target"}}
}
func (Matrix) jsonSchema() map[string]any {
	cells := map[string]any{"type": "array", "items": map[string]any{"type": "object"}}
	return map[string]any{"type": "object",
		"properties":           map[string]any{"exclude": cells, "include": cells},
		"additionalProperties": orExpr(map[string]any{"type": "array", "minItems": 1})}
}
func (Expr) jsonSchema() map[string]any { return map[string]any{"type": "string"} }
func (SNMPMetrics) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "array", "items": map[string]any{"enum": toAny(SNMPMetricNames())}},
		map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string", "pattern": `^\.?[0-9]+(\.[0-9]+)+$`}},
	}}
}

func (Spread) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"enum": []any{SpreadOne, SpreadAll}},
		map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "string"}},
		map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer", "minimum": 0}},
		exprRef(),
	}}
}

func (Links) jsonSchema() map[string]any {
	link := map[string]any{"$ref": "#/$defs/link"}
	return map[string]any{"type": "object", "additionalProperties": false,
		"properties":        map[string]any{"client": link, "replicas": link, "nodes": link},
		"patternProperties": map[string]any{replicaKey.String(): link}}
}
func (Bandwidth) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{map[string]any{"const": 0},
		map[string]any{"type": "string", "pattern": `^[0-9]+(\.[0-9]+)?\s*([kKmMgG]?([bB]it|[bB]ps)|[kKmMgG]?[iI]?[bB])(/s)?$`}, exprRef()}}
}
func (Loss) jsonSchema() map[string]any {
	return map[string]any{"anyOf": []any{map[string]any{"const": 0},
		map[string]any{"type": "string", "pattern": `^[0-9]+(\.[0-9]+)?\s*%$`}, exprRef()}}
}

func durationSchema() map[string]any {
	return map[string]any{"type": "string", "anyOf": []any{
		map[string]any{"pattern": durationRegex}, map[string]any{"pattern": exprRegex}}}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func defName(t reflect.Type) string {
	if sf, ok := t.FieldByName("Src"); ok && sf.Tag.Get("def") != "" {
		return sf.Tag.Get("def")
	}
	switch t {
	case reflect.TypeOf(WatchQuery{}):
		return "watch_query"
	case reflect.TypeOf(OnError{}):
		return "on_error"
	}
	return strings.ToLower(t.Name())
}

type schemaGen struct {
	defs  map[string]any
	kinds *Kinds
}

func (g *schemaGen) typeSchema(t reflect.Type, f *field) map[string]any {
	if t.Kind() == reflect.Pointer {
		return g.typeSchema(t.Elem(), f)
	}
	if s, ok := reflect.New(t).Elem().Interface().(schemaer); ok {
		return s.jsonSchema()
	}
	if s, ok := reflect.New(t).Elem().Interface().(PlanSchemaer); ok {
		return s.PlanSchema()
	}
	if reflect.PointerTo(t).Implements(scalarType) {
		return map[string]any{"type": "string", "minLength": 1}
	}
	if t == durationType {
		return durationSchema()
	}
	switch t.Kind() {
	case reflect.Struct:
		name := defName(t)
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // recursion guard
			g.defs[name] = g.structSchema(t)
		}
		ref := map[string]any{"$ref": "#/$defs/" + name}
		if t == restoreType {
			return map[string]any{"anyOf": []any{map[string]any{"const": RestoreSetup}, ref}}
		}
		return ref
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.typeSchema(t.Elem(), f)}
	case reflect.String:
		s := map[string]any{"type": "string"}
		if f != nil && len(f.enum) > 0 {
			return orExpr(map[string]any{"enum": toAny(f.enum)})
		}
		if f != nil && f.pattern != "" {
			return orExpr(map[string]any{"type": "string", "pattern": f.pattern})
		}
		return s
	case reflect.Int, reflect.Int64:
		s := map[string]any{"type": "integer"}
		if f != nil && f.min != "" {
			m, _ := strconv.Atoi(f.min)
			s["minimum"] = m
		}
		return orExpr(s)
	case reflect.Float64:
		s := map[string]any{"type": "number"}
		if f != nil && f.min != "" {
			m, _ := strconv.Atoi(f.min)
			s["minimum"] = m
		}
		return orExpr(s)
	case reflect.Bool:
		return orExpr(map[string]any{"type": "boolean"})
	}
	return map[string]any{}
}

func (g *schemaGen) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []any
	for _, f := range structFields(t) {
		f := f
		ft := t.Field(f.index).Type
		var s map[string]any
		if t == workloadType && f.key == "options" {
			ft, f.doc = optionsType(g.kinds), optionsDoc(g.kinds)
		}
		if f.enum != nil && ft.Kind() == reflect.Slice {
			s = map[string]any{"type": "array", "items": map[string]any{"enum": toAny(f.enum)}}
		} else {
			s = g.typeSchema(ft, &f)
		}
		prop := map[string]any{}
		for k, v := range s {
			prop[k] = v
		}
		if f.doc != "" {
			prop["description"] = f.doc
		}
		if f.def != "" {
			var v any
			if err := json.Unmarshal([]byte(yamlFlowToJSON(f.def)), &v); err == nil {
				prop["default"] = v
			} else {
				prop["default"] = f.def
			}
		}
		props[f.key] = prop
		if f.required {
			required = append(required, f.key)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	// A plan that extends another gets its required keys (at any depth) from it, so editors only
	// check them on a plan that extends nothing, and only at the top; quadrant validate checks the merge.
	if t == planType {
		s["if"] = map[string]any{"not": map[string]any{"required": []any{"extends"}}}
		s["then"] = map[string]any{"required": required}
		s["patternProperties"] = map[string]any{"^x-": map[string]any{}}
	}
	// at most one action per step and one kind per workload (none: inherited through extends)
	var exclusive []string
	switch t {
	case stepType:
		exclusive = g.kinds.StepKeys()
		for _, k := range g.kinds.Steps() {
			prop := map[string]any{"description": k.Doc}
			var schema map[string]any
			if k.Schema != nil {
				schema = k.Schema() // the body's type says not all of it: no section of its own
			} else {
				schema = g.typeSchema(reflect.TypeOf(k.Body()), nil)
			}
			for key, val := range schema {
				prop[key] = val
			}
			props[k.Key] = prop
		}
	case workloadType:
		exclusive = g.kinds.Keys()
		for _, key := range exclusive {
			ks := g.typeSchema(kindBodyType(g.kinds, key), nil)
			if vals := g.kinds.values(key); len(vals) > 0 {
				ks = orExpr(map[string]any{"enum": toAny(vals)})
			}
			prop := map[string]any{"description": kindDoc(g.kinds, key)}
			for k, v := range ks {
				prop[k] = v
			}
			props[key] = prop
		}
	}
	if exclusive != nil {
		var one []any
		for _, k := range exclusive {
			one = append(one, map[string]any{"required": []any{k}})
		}
		none := map[string]any{"not": map[string]any{"anyOf": append([]any(nil), one...)}}
		s["oneOf"] = append(one, none)
	}
	return s
}

// yamlFlowToJSON turns the simple defaults of the struct tags ([a, b], 1s, 3) into JSON.
func yamlFlowToJSON(s string) string {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	if strings.HasPrefix(s, "[") {
		items := strings.Split(strings.Trim(s, "[]"), ",")
		for i, it := range items {
			it = strings.TrimSpace(it)
			if _, err := strconv.ParseFloat(it, 64); err != nil {
				it = strconv.Quote(it)
			}
			items[i] = it
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	return strconv.Quote(s)
}

// JSONSchema returns the JSON Schema (draft 2020-12) of plan files, for editors.
func JSONSchema(ks *Kinds) []byte {
	g := &schemaGen{defs: map[string]any{}, kinds: ks}
	for _, t := range docTypes(ks) {
		g.typeSchema(t, nil)
	}
	g.defs["expression"] = map[string]any{"type": "string", "pattern": exprRegex,
		"description": "A ${{ EXPR }} expression, evaluated when the plan loads."}
	root := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         SchemaURL,
		"title":       "Quadrant plan, version 1",
		"description": "A declarative MySQL/MariaDB load test plan. See docs/plan-reference.md.",
		"$ref":        "#/$defs/plan",
		"$defs":       g.defs,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		panic(fmt.Sprintf("schema: %v", err)) // cannot happen: the schema is made of maps, strings and numbers
	}
	return buf.Bytes()
}
