// Package setglobal is the set_global: step kind: SET GLOBAL with a validated name and a
// bound value, each changed global restored when the run ends.
package setglobal

import (
	"context"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the set_global step kind.
var Kind = spec.StepKind{
	Key: "set_global", DocType: "map NAME: scalar", Doc: "{NAME: VALUE}: SET GLOBAL with a validated name and a bound value; restored at the end of the run.",
	Body: func() any { return new(SetGlobal) }, Schema: schema, Target: true, Keys: []string{"timeout"},
	Check:      func(c *spec.Check, s *spec.Step) { c.Globals(Of(s).Settings, "set_global") },
	Explain:    explain,
	Privileges: privileges,
	Impl:       step.Func(run),
}

// SetGlobal is a set_global: step's body: the globals to set, in written order.
type SetGlobal struct{ Settings spec.Settings }

// DecodeNode reads the globals as a plan's settings, and refuses none.
func (b *SetGlobal) DecodeNode(d spec.Decoding, n *yaml.Node, name string) {
	d.Decode(n, &b.Settings, name)
	if len(b.Settings) == 0 && spec.IsNull(n) || n.Kind == yaml.MappingNode && len(n.Content) == 0 {
		d.Errorf(n, "set_global needs at least one NAME: VALUE")
	}
}

// schema is the body's JSON Schema: a plan's settings, one at least.
func schema() map[string]any {
	return map[string]any{"type": "object", "minProperties": 1,
		"additionalProperties": map[string]any{"type": []any{"string", "number", "boolean"}}}
}

// Of is s's body.
func Of(s *spec.Step) *SetGlobal { return spec.StepBody[*SetGlobal](s) }

func explain(s *spec.Step, _ spec.Explainer) spec.Explanation {
	x := spec.Explanation{Line: "set_global:"}
	if s.Target != "" {
		x.Line = "set_global on " + s.Target + ":"
	}
	for _, kv := range Of(s).Settings {
		x.More = append(x.More, fmt.Sprintf("SET GLOBAL %s = %s", kv.Name, SQLValue(kv.Value)))
	}
	return x
}

// SQLValue is a value as SET GLOBAL would take it (explain's globals: print it the same).
func SQLValue(v any) string {
	if s, ok := v.(string); ok {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	if b, ok := v.(bool); ok {
		if b {
			return "ON"
		}
		return "OFF"
	}
	return fmt.Sprint(v)
}

func run(ctx context.Context, s *spec.Step, env step.Env) error {
	for _, kv := range Of(s).Settings {
		env.LogFile("%s: SET GLOBAL %s = %v on %s", env.Where, kv.Name, kv.Value, env.Target.Name())
		if err := env.Globals.Set(ctx, env.Target, kv.Name, kv.Value); err != nil {
			return err
		}
	}
	return nil
}

// privileges: SET GLOBAL's, as the target's server names it.
func privileges(s *spec.Step, srv spec.AccountServer) []spec.AccountNeed {
	return []spec.AccountNeed{{Pos: s.Src.Pos, What: "set_global", Why: "SET GLOBAL", Any: [][]spec.Privilege{{srv.SetGlobal}}}}
}
