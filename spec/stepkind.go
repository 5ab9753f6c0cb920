package spec

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// StepKind is what a plan knows of one kind of step, as Kind is of a workload: its key,
// the type its value decodes into, its checks, which of the keys every step shares apply
// to it, what it does beyond its folder and which files it reads. spec keeps the step's
// skeleton (target, timeout, at, ...) and asks the step's kind for the rest; the kinds are
// handed to Load with the workload kinds (Kinds.WithSteps), so the generic code holds no
// step kind's name or rules.
type StepKind struct {
	// Key is the step key that names the kind (sql:, shell:, ...): what a step's log lines
	// and errors call it.
	Key string
	// Doc is the key's entry in the plan reference and the JSON Schema.
	Doc string
	// Body returns a new value for the key's value to decode into, with positions: a
	// pointer to a struct (yaml, default, enum, min and doc tags as spec's own types have)
	// or to a value spec decodes (a string, a duration).
	Body func() any
	// DocType is how the plan reference says Body's type when it is no struct ("string");
	// "": from the type.
	DocType string
	// Target says the step acts on a target (the step's target:, else the iteration's);
	// without it target: is refused, with NoTarget saying why ("" : it runs on this machine).
	Target   bool
	NoTarget string
	// Keys are which of the optional step keys apply besides target and at: timeout,
	// ignore_errors, save_as.
	Keys []string
	// Once, when set, says why the kind runs once per plan, in setup or teardown only.
	Once string
	// OwnTarget, if set, is the target the step's body names itself (wait's target:) and
	// where: the step's target: must agree with it.
	OwnTarget func(s *Step) (name string, at Pos)
	// Check checks the step's own settings when the plan loads, after what spec checks of
	// every step (the target then is resolved); it reports through c.
	Check func(c *Check, s *Step)
	// Effects are what a step of this kind does beyond its folder and its targets
	// (spec/trust refuses them unless the user allows); ps is where it stands in p. The
	// files it reads through Check.Input are declared already; nil: nothing more.
	Effects func(p *Plan, ps PlacedStep) []Effect
	// Reads are the files a step reads, as written and resolved: what a results folder
	// carries for a rerun. A file another step writes (Writes) is left out.
	Reads func(s *Step) []DataFile
	// Writes is the file a step writes, as written and resolved (File "" none), which other
	// steps may read though it does not exist before the run.
	Writes func(s *Step) DataFile
	// Names says a step of this kind in setup may write file, which it names: restore
	// steps may then read it though it does not exist before the run (a shell step's dump).
	Names func(s *Step, file string) bool
	// RestoresAny says a restore: step of this kind may bring back any dsn target (a shell
	// step runs the user's own tool), not only its own.
	RestoresAny bool
	// Restarts says a step restarts its target (whose account then needs to survive it).
	Restarts bool
	// Splits says every shard of a sharded run (--shard K/N) runs the step, each its part
	// (a prepare of a kind that splits, a generate's rows); nil or false: the leader runs
	// it whole.
	Splits func(s *Step) bool
	// Workloads are the workloads a step runs (a workload step's, a capture's while:),
	// which Plan.Workloads walks.
	Workloads func(s *Step) []*Workload
	// RecordAs is the iteration metric the step records ("" none).
	RecordAs func(s *Step) string
	// Privileges are what a step needs of the account it runs as on its target (the one
	// OwnTarget names, else the step's), beyond the plan's own SQL: the pre-flight refuses,
	// before setup touches anything, a run whose dsn target's account lacks one
	// (executor/preflight). srv is what the privileges depend on of that target's server.
	// nil: nothing is asked (a sql: step's statements are the user's own, not guessed at).
	Privileges func(s *Step, srv AccountServer) []AccountNeed
	// Explain, if set, are the lines explain prints for a step: the first after the step's
	// place ("before: "), the others under it.
	Explain func(s *Step) []string
	// Impl is what runs steps of this kind, for the executor; spec never looks inside.
	Impl any
}

// WithSteps returns ks with the step kinds sks after its own (spec's built-in ones when
// ks has none yet); an error when two claim one key.
func (ks *Kinds) WithSteps(sks ...*StepKind) (*Kinds, error) {
	out := &Kinds{}
	if ks != nil {
		out.list = ks.list
	}
	seen := map[string]bool{}
	for _, k := range append(slices.Clone(ks.Steps()), sks...) {
		switch {
		case k.Key == "" || k.Body == nil:
			return nil, fmt.Errorf("step kind %q: Key and Body are required", k.Key)
		case seen[k.Key]:
			return nil, fmt.Errorf("two step kinds have the key %q", k.Key)
		}
		seen[k.Key] = true
		out.steps = append(out.steps, k)
	}
	return out, nil
}

// Steps lists the step kinds in registration order: spec's built-in ones when none were
// registered.
func (ks *Kinds) Steps() []*StepKind {
	if ks == nil || ks.steps == nil {
		return builtinSteps
	}
	return ks.steps
}

// StepKeys are the keys that name a step kind, in registration order.
func (ks *Kinds) StepKeys() []string {
	var out []string
	for _, k := range ks.Steps() {
		out = append(out, k.Key)
	}
	return out
}

// stepKind returns the step kind of key, nil when none.
func (ks *Kinds) stepKind(key string) *StepKind {
	for _, k := range ks.Steps() {
		if k.Key == key {
			return k
		}
	}
	return nil
}

// StepBody returns s's kind-specific value as its kind declared it (StepKind.Body's
// type); the zero T when s is of another kind.
func StepBody[T any](s *Step) T {
	b, _ := s.Body.(T)
	return b
}

// stepBody decodes a step's kind keys, each into its kind's Body; the step takes the
// first in registration order (validate refuses a step with several). content is the
// step's mapping.
func (d *decoder) stepBody(content []*yaml.Node, s *Step) {
	nodes := map[string]*yaml.Node{}
	for i := 0; i+1 < len(content); i += 2 {
		if k := content[i].Value; d.kinds.stepKind(k) != nil {
			nodes[k] = content[i+1]
		}
	}
	for _, k := range d.kinds.Steps() {
		n, ok := nodes[k.Key]
		if !ok {
			continue
		}
		body := k.Body()
		d.decode(n, reflect.ValueOf(body).Elem(), k.Key)
		if s.Kind == nil {
			s.Kind, s.Body = k, body
		}
	}
}

// stepKinds are the kinds whose keys s has, in registration order.
func (v *validator) stepKinds(s *Step) []string {
	var out []string
	for _, key := range v.d.kinds.StepKeys() {
		if s.Src.Has(key) {
			out = append(out, key)
		}
	}
	return out
}

// applies says which optional step key a kind takes, for messages: "sql, sql_file".
func (ks *Kinds) applies(key string) string {
	var out []string
	for _, k := range ks.Steps() {
		if slices.Contains(k.Keys, key) {
			out = append(out, k.Key)
		}
	}
	return strings.Join(out, ", ")
}

// checkBody wraps a check of one body type as a StepKind.Check.
func checkBody[T any](f func(T, *validator, *Step)) func(*Check, *Step) {
	return func(c *Check, s *Step) { f(s.Body.(T), c.v, s) }
}

// effectsOf wraps the effects of one body type as a StepKind.Effects.
func effectsOf[T any](f func(T, *Plan, PlacedStep) []Effect) func(*Plan, PlacedStep) []Effect {
	return func(p *Plan, ps PlacedStep) []Effect { return f(ps.Step.Body.(T), p, ps) }
}
