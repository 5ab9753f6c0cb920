package spec

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// StepKind is what a plan knows of one kind of step, as Kind is of a workload: its key,
// the type its value decodes into, its checks, which of the keys every step shares apply
// to it, what it does beyond its folder and which files it reads. spec keeps the step's
// skeleton (target, timeout, at, ...) and asks the step's kind for the rest; the kinds are
// handed to Load with the workload kinds (Kinds.WithSteps), so the generic code holds no
// step kind's name or rules.
//
// Its fields come in the same five groups as Kind's (decode and check, explain and
// estimate, trust, effects and privileges, run, results); every field is optional but Key
// and Body, and a nil hook or a zero field means what its comment says. docs/architecture.md
// ("The kind contract") has them as one table, which executor/kinds' TestKindContractTable
// keeps in step with this struct.
type StepKind struct {
	// == Decode and check ==
	// What a plan may write under the kind's key, and the rules it is checked by when it loads.

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
	// Schema, if set, is the JSON Schema of the key's value when Body's type does not say
	// it all (drop_caches: only true).
	Schema func() map[string]any
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
	// Inspect, if set, checks what only the files the kind's steps name can say (a
	// statement over a sandbox's max_allowed_packet), once the plan loaded: validate and
	// explain run it (Plan.Inspect), a run does not (its steps check as they go). steps are
	// the plan's steps of this kind.
	Inspect func(p *Plan, steps []PlacedStep) []error
	// Writes is the file a step writes, as written and resolved (File "" none), which other
	// steps may read though it does not exist before the run.
	Writes func(s *Step) DataFile
	// Names says a step of this kind in setup may write file, which it names: restore
	// steps may then read it though it does not exist before the run (a shell step's dump).
	Names func(s *Step, file string) bool

	// == Explain and estimate ==
	// What explain says of a step and adds to its estimates before anything runs.

	// Explain, if set, is what explain prints of a step and adds to its estimates; x is
	// explain's view of the plan. nil: the step's key and target.
	Explain func(s *Step, x Explainer) Explanation

	// == Trust, effects and privileges ==
	// What it does beyond its folder and its targets, and what it needs of the server: spec/trust
	// and the pre-flight refuse a run on these before setup touches anything.

	// Effects are what a step of this kind does beyond its folder and its targets
	// (spec/trust refuses them unless the user allows); ps is where it stands in p. The
	// files it reads through Check.Input are declared already; nil: nothing more.
	Effects func(p *Plan, ps PlacedStep) []Effect
	// Privileges are what a step needs of the account it runs as on its target (the one
	// OwnTarget names, else the step's), beyond the plan's own SQL: the pre-flight refuses,
	// before setup touches anything, a run whose dsn target's account lacks one
	// (executor/preflight). srv is what the privileges depend on of that target's server.
	// nil: nothing is asked (a sql: step's statements are the user's own, not guessed at).
	Privileges func(s *Step, srv AccountServer) []AccountNeed
	// RestoresAny says a restore: step of this kind may bring back any dsn target (a shell
	// step runs the user's own tool), not only its own.
	RestoresAny bool
	// Restarts says a step restarts its target (whose account then needs to survive it).
	Restarts bool

	// == Run ==
	// What runs it, and how a run (a sharded one too) places it.

	// Impl is what runs steps of this kind, for the executor; spec never looks inside.
	Impl any
	// Front says a step moves its target's primary (a failover): the run keeps an address
	// in front of the target that follows it, and the workloads on that target connect
	// through it (the runner reaches it as step.Targets.Front).
	Front bool
	// Splits says every shard of a sharded run (--shard K/N) runs the step, each its part
	// (a prepare of a kind that splits, a generate's rows); nil or false: the leader runs
	// it whole.
	Splits func(s *Step) bool
	// Workloads are the workloads a step runs (a workload step's, a capture's while:),
	// which Plan.Workloads walks.
	Workloads func(s *Step) []*Workload

	// == Results ==
	// What it adds to the results folder: its columns and metrics, the files a rerun needs.

	// RecordAs is the iteration metric the step records ("" none).
	RecordAs func(s *Step) string
	// Records are the iteration metrics a step of this kind records besides RecordAs (a
	// drill's several figures), which assertions may name; nil none.
	Records func(s *Step) []string
	// Metrics describe what Records names (a doc, a unit, which way is better, which is
	// what the step came to, Outcome, and which counts a loss, Loss): run.json carries them,
	// so the console, the report and compare read the figures without the kind.
	Metrics []measure.Metric
	// Reads are the files a step reads, as written and resolved: what a results folder
	// carries for a rerun. A file another step writes (Writes) is left out.
	Reads func(s *Step) []DataFile
}

// Explanation is what explain shows of one step and adds to its estimates.
type Explanation struct {
	// Line is the step's line after its place ("sql on db1:", "sleep 1s"); "": its key
	// and target.
	Line string
	// More are the lines under it.
	More []string
	// Upper is the longest the step takes (a sleep, a wait's timeout).
	Upper time.Duration
	// Privileged counts the actions in it that need --allow-shell.
	Privileged int
	// LoadRows, LoadBytes and LoadTime are the data it loads, about.
	LoadRows, LoadBytes int64
	LoadTime            time.Duration
}

// Explainer is what explain lends a step kind's Explain.
type Explainer interface {
	Plan() *Plan
	// Workload describes a workload a step runs, counted in the estimate as one.
	Workload(w *Workload) string
	// Spread says how a workload run on target spreads its threads over a Galera target's
	// nodes ("threads spread round robin over every node: db 3, db_node2 3"); "" when they
	// all run on the target.
	Spread(w *Workload, target string) string
	// Statements are the lines explain shows of a SQL file: its first statements, its size
	// and how many it has (only a note for a file outside the plan's folder).
	Statements(path string) []string
}

// ByteSize is n bytes in the largest unit that keeps it at least 1 ("1.5 MiB"): how
// explain says sizes.
func ByteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, u := float64(n), -1
	for v >= unit && u < 3 {
		v /= unit
		u++
	}
	return fmt.Sprintf("%.1f %s", v, []string{"KiB", "MiB", "GiB", "TiB"}[u])
}

// OneLine is s on one line, its white space runs one space: how explain quotes SQL.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// WithSteps returns ks with the step kinds sks after its own; an error when two claim one
// key.
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

// Steps lists the step kinds in registration order (the executor's are
// executor/kinds.Steps).
func (ks *Kinds) Steps() []*StepKind {
	if ks == nil {
		return nil
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
