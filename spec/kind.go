package spec

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/quadrant-bench/quadrant/results/measure"
	"go.yaml.in/yaml/v3"
)

// Kind is what a plan knows of one kind of workload. Each kind lives with the executor, in
// a package of its own, and declares itself in one value; a Kinds of them is handed to Load.
// spec keeps the plan's skeleton (the workload keys every kind shares: action, threads,
// duration, stages, on_error, ...) and asks the kinds for the rest, so it holds no kind's
// name, options or rules.
//
// Its fields come in five groups, one section each: decode and check, explain and
// estimate, trust, effects and privileges, run, results. Every field is optional but Name,
// Key and Body, and a nil hook or a zero field means what its comment says.
// docs/architecture.md ("The kind contract") has them as one table, which executor/kinds'
// TestKindContractTable keeps in step with this struct.
type Kind struct {
	// == Decode and check ==
	// What a plan may write under the kind's key, and the rules it is checked by when it loads.

	// Name is the kind's name: what Workload.Type gives and run.json records.
	Name string
	// Key is the workload key that names the kind (builtin:, transactions:, replay:, ...).
	Key string
	// Values are, for a key that several kinds share, the values of the key that name this
	// kind; the key then takes a name (builtin: tpcc is a kind of its own beside the OLTP
	// scripts). Empty: the kind is its key's only one.
	Values []string
	// Doc is the key's entry in the plan reference and the JSON Schema.
	Doc string
	// Body returns a new value for the key's value to decode into, with positions: a pointer
	// to a struct (yaml, default, enum, min and doc tags as spec's own types have), to a
	// slice of such structs, or to a string (a key with Values).
	Body func() any
	// Options, if set, returns a new value for options: to decode into; nil: the kind takes
	// no options:. OptionsDoc is options:'s entry in the plan reference.
	Options    func() any
	OptionsDoc string
	// Actions are what action: may say besides run (prepare, cleanup, check).
	Actions []string
	// Loop says the kind's workers run on quadrant's own loop, so that stages, ramp,
	// connect and idle_connections apply.
	Loop bool
	// Spreads says each of the kind's workers connects to the server workload.Env gives it
	// (Env.ServerFor), so that nodes: may spread them over a Galera cluster's nodes.
	Spreads bool
	// NoRate, when set, says why rate: does not apply (a kind that paces itself).
	NoRate string
	// Ends says a run ends by itself (a replay at the end of its file): duration and events
	// are optional.
	Ends bool
	// Check checks the kind's own settings when the plan loads, after what spec checks of
	// every workload; it reports through c, at the plan's positions.
	Check func(c *Check, w *Workload)
	// CheckPlan checks what spans a plan's workloads of this kind (the data a setup
	// prepared against the runs that use it); nil: nothing.
	CheckPlan func(p *Plan) Errors
	// Shards says what of w cannot be split into n shards (--shard K/N), in place of
	// spec/shard's checks of threads and events: a kind that splits its own way (a replay,
	// by captured session) or not at all (sysbench, whose percentiles do not add up).
	Shards func(w *Workload, n int) Errors

	// == Explain and estimate ==
	// What validate, explain and a workload's description say of it before anything runs.

	// Describe is the part of Workload.String that says what runs ("oltp_read_write run
	// (tables=4)"); the common settings follow it.
	Describe func(w *Workload) string
	// Explain are lines explain prints under the workload (a custom mix's statements, a
	// replayed file's first statements and its counts).
	Explain func(w *Workload) []string
	// Estimate is explain's estimate of what a prepare loads; ok false when the kind
	// cannot say.
	Estimate func(w *Workload) (e Estimate, ok bool)
	// Connections, if set, is how many connections a run opens, when it is not threads
	// (a SQL file's replay opens its connections:).
	Connections func(w *Workload) int

	// == Trust, effects and privileges ==
	// What it does beyond its folder and its targets, and what it needs of the server: spec/trust
	// and the pre-flight refuse a run on these before setup touches anything.

	// Effects are what a workload of this kind does beyond its folder and its target
	// (spec/trust refuses them unless the user allows): a script it runs is RunsCode. The
	// files it reads through Check.Input are declared already; nil: nothing more.
	Effects func(w *Workload) []Effect
	// Privileges are what a workload of this kind needs on its schema for its action, and
	// the schema it uses when the target's DSN names none; nil, or no privileges: the kind
	// cannot say (its SQL is the plan's), and the pre-flight asks nothing of it.
	Privileges func(w *Workload) (privileges []string, defaultSchema string)
	// Creates, if set, are the tables the workload creates (a prepare's), in the DSN's
	// database or else defaultSchema: on a dsn target the run refuses, before setup, to
	// create them where they exist already (another run's data, the user's).
	Creates func(w *Workload) (tables []string, defaultSchema string)
	// Prepared, if set, is how many server-side prepared statements one connection of w
	// keeps: the pre-flight (executor/preflight) checks threads times it against the
	// server's max_prepared_stmt_count, knowing the kind by this alone.
	Prepared func(w *Workload) int

	// == Run ==
	// What runs it, and how a run (a sharded one too) places it.

	// Impl is what runs workloads of this kind, for the executor; spec never looks inside.
	Impl any
	// SplitsPrepare says a sharded run splits the kind's prepare over the shards, each
	// loading its part; any other step runs whole on the leader.
	SplitsPrepare bool

	// == Results ==
	// What it adds to the results folder: its columns and metrics, the files a rerun needs.

	// Metrics are the summary metrics only this kind's runs have (the registry fills them in
	// from the kind's declaration): an assertion may name them, and one of another kind's
	// iteration that names one is refused.
	Metrics []OwnMetric
	// TxNames are the names of the workload's tx.NAME.* columns.
	TxNames func(w *Workload) []string
	// Statements are the classes of the workload's stmt.CLASS.* columns, and whether
	// the workload times them (an option may turn it on).
	Statements func(w *Workload) (classes []string, timed bool)
	// Files are the files the workload reads, as written and resolved (a results folder
	// carries them for a rerun).
	Files func(w *Workload) []DataFile
}

// Estimate is what a prepare loads, as explain shows it, and over how many threads.
type Estimate struct {
	Rows, Bytes int64
	Threads     int
}

// Kinds are the workload kinds and the step kinds a plan may use, in the order the plan
// reference lists them.
type Kinds struct {
	list  []*Kind
	steps []*StepKind
}

// NewKinds checks that the kinds do not claim the same name, or the same key without
// values to tell them apart.
func NewKinds(ks ...*Kind) (*Kinds, error) {
	out := &Kinds{}
	names := map[string]bool{}
	for _, k := range ks {
		switch {
		case k.Name == "" || k.Key == "" || k.Body == nil:
			return nil, fmt.Errorf("workload kind %q: Name, Key and Body are required", k.Name)
		case names[k.Name]:
			return nil, fmt.Errorf("two workload kinds are named %q", k.Name)
		}
		names[k.Name] = true
		for _, o := range out.list {
			if o.Key != k.Key {
				continue
			}
			if len(o.Values) == 0 || len(k.Values) == 0 {
				return nil, fmt.Errorf("workload kinds %s and %s share the key %s: both must list the values that name them", o.Name, k.Name, k.Key)
			}
			for _, v := range k.Values {
				if slices.Contains(o.Values, v) {
					return nil, fmt.Errorf("workload kinds %s and %s both claim %s: %s", o.Name, k.Name, k.Key, v)
				}
			}
		}
		out.list = append(out.list, k)
	}
	return out, nil
}

// All lists the kinds in registration order.
func (ks *Kinds) All() []*Kind {
	if ks == nil {
		return nil
	}
	return ks.list
}

// Named returns the kind called name.
func (ks *Kinds) Named(name string) *Kind {
	for _, k := range ks.All() {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Keys are the workload keys that name a kind, once each in registration order.
func (ks *Kinds) Keys() []string {
	var out []string
	for _, k := range ks.All() {
		if !slices.Contains(out, k.Key) {
			out = append(out, k.Key)
		}
	}
	return out
}

// values are the names a shared key takes, over every kind of that key.
func (ks *Kinds) values(key string) []string {
	var out []string
	for _, k := range ks.All() {
		if k.Key == key {
			out = append(out, k.Values...)
		}
	}
	return out
}

// byValue returns the kind of key whose values hold value; nil when none does.
func (ks *Kinds) byValue(key, value string) *Kind {
	for _, k := range ks.All() {
		if k.Key == key && (len(k.Values) == 0 || slices.Contains(k.Values, value)) {
			return k
		}
	}
	return nil
}

// shared says key names several kinds, told apart by its value.
func (ks *Kinds) shared(key string) bool {
	n := 0
	for _, k := range ks.All() {
		if k.Key == key {
			n++
		}
	}
	return n > 1 || len(ks.byKey(key).Values) > 0
}

func (ks *Kinds) byKey(key string) *Kind {
	for _, k := range ks.All() {
		if k.Key == key {
			return k
		}
	}
	return nil
}

// OwnMetric is a summary metric of a kind's own, as assertions and the plan reference see it.
type OwnMetric struct {
	Name, Unit, Doc string
}

// ownMetrics maps each metric only some kinds have to those kinds' names.
func (ks *Kinds) ownMetrics() map[string][]string {
	m := map[string][]string{}
	for _, k := range ks.All() {
		for _, om := range k.Metrics {
			m[om.Name] = append(m[om.Name], k.Name)
		}
	}
	return m
}

// AssertionMetrics are the metrics an assert: may name with these kinds: every workload's
// (AssertionMetrics) and then the kinds' own, once each.
func (ks *Kinds) AssertionMetrics() []OwnMetric {
	var out []OwnMetric
	for _, name := range AssertionMetrics {
		m, _ := measure.Lookup(name)
		out = append(out, OwnMetric{Name: name, Unit: m.TotalUnit, Doc: m.Doc})
	}
	for _, k := range ks.All() {
		for _, om := range k.Metrics {
			if !slices.ContainsFunc(out, func(o OwnMetric) bool { return o.Name == om.Name }) {
				out = append(out, om)
			}
		}
	}
	return out
}

// assertionNames are the names of AssertionMetrics.
func (ks *Kinds) assertionNames() []string {
	var out []string
	for _, m := range ks.AssertionMetrics() {
		out = append(out, m.Name)
	}
	return out
}

// Check is what a kind's Check reports through: errors at the plan's positions, and the
// plan-relative paths and expressions only spec can resolve.
type Check struct {
	v *validator
}

// Errorf reports an error at pos.
func (c *Check) Errorf(pos Pos, format string, args ...any) { c.v.errorf(pos, format, args...) }

// Target is the plan's target name (a replica's name too: NAME_replica1 is a target),
// nil when the plan has none of that name (the step's own target: is resolved and checked
// before its kind's Check).
func (c *Check) Target(name string) *Target { return c.v.targets[name] }

// Add reports errors the kind found on its own (each has its position).
func (c *Check) Add(errs Errors) {
	for _, e := range errs {
		c.v.d.errs.add(e.Pos, "%s", e.Msg)
	}
}

// Input resolves a file the workload reads, relative to the plan, and reports it at pos
// when it does not exist, unless a capture: step of the plan writes it.
func (c *Check) Input(name string, pos Pos, what string) string {
	if p := c.v.output(name); p != "" && c.v.captured(p) {
		return p
	}
	return c.v.path(name, pos, what)
}

// Settings checks an option map's names and values as spec checks every settings map.
func (c *Check) Settings(s Settings, what string) { c.v.settings(s, what, false) }

// Globals checks a map of global variables (set_global's): names, and sizes like 256M
// turned into bytes.
func (c *Check) Globals(s Settings, what string) { c.v.settings(s, what, true) }

// SandboxConfig checks my.cnf options for sandbox sb as its config: is checked (the
// options it sets itself, skip-grant-tables, paths that leave its directory).
func (c *Check) SandboxConfig(sb *Sandbox, s Settings, what string) { c.v.sandboxConfig(sb, s, what) }

// KnownTarget reports name at pos when the plan has no target of that name (with the
// nearest one's name).
func (c *Check) KnownTarget(name string, pos Pos, what string) { c.v.checkTarget(name, pos, what) }

// TargetNames are the plan's targets, in plan order.
func (c *Check) TargetNames() []string {
	out := make([]string, 0, len(c.v.p.Targets))
	for _, t := range c.v.p.Targets {
		out = append(out, t.Name)
	}
	return out
}

// Restoring says the step is one of an iteration's restore: steps.
func (c *Check) Restoring() bool { return c.v.restoring }

// WrittenBySetup resolves a file a setup step writes (a shell step that names it, a
// capture's out), ok false when none does: a restore step may read it though it does not
// exist before the run.
func (c *Check) WrittenBySetup(name string, pos Pos, what string) (path string, ok bool) {
	if !c.v.p.writtenBySetup(name) {
		return "", false
	}
	p := c.v.output(name)
	c.v.p.reads(pos, what, name, p)
	return p, true
}

// Compile compiles an expression that the workload evaluates as it runs, against the
// iteration's names and the generator functions gens (their Sig as expr.Function takes it).
func (c *Check) Compile(e *Expr, gens []Generator) {
	env := map[string]any{}
	for k, val := range c.v.d.scope.values() {
		env[k] = val
	}
	var opts []expr.Option
	var funcs []string
	for _, g := range gens {
		opts = append(opts, expr.Function(g.Name, func(...any) (any, error) { return 0, nil }, g.Sig))
		funcs = append(funcs, g.Name)
	}
	c.v.d.compile(e, &nameSpace{s: c.v.d.scope, funcs: funcs}, env, opts...)
}

// Workload checks a workload a step runs as spec checks every workload, its kind's
// Check included.
func (c *Check) Workload(w *Workload) { c.v.workload(w) }

// WorkloadOn checks w as Workload does, and its nodes: against target, where it runs.
func (c *Check) WorkloadOn(w *Workload, target string) {
	c.v.workload(w)
	c.v.spread(w, target)
}

// Output resolves a file the step writes, relative to the plan's directory, and declares
// the write (the trust check judges it).
func (c *Check) Output(name string, pos Pos, what string) string { return c.v.written(name, pos, what) }

// Condition compiles a condition a step evaluates as it runs (a wait's until:), over the
// iteration's names and the maps the step fills itself (status, replica, row); ok false
// when it did not compile (the error is reported).
func (c *Check) Condition(e *Expr, maps ...string) (ok bool) {
	env := map[string]any{}
	for k, val := range c.v.d.scope.values() {
		env[k] = val
	}
	for _, k := range maps {
		env[k] = map[string]any{}
	}
	c.v.d.compile(e, &nameSpace{s: c.v.d.scope, maps: maps}, env, expr.AsBool())
	return e.prog != nil
}

// Body returns w's kind-specific value as the kind declared it (Kind.Body's type); the
// zero T when w is of another kind or was loaded without kinds.
func Body[T any](w *Workload) T {
	b, _ := w.Body.(T)
	return b
}

// OptionsOf returns w's options: as the kind declared them (Kind.Options' type).
func OptionsOf[T any](w *Workload) T {
	o, _ := w.Options.(T)
	return o
}

// WithDefaults fills v, a pointer to a struct of the plan's types (a Workload, a kind's
// Body), with the defaults its tags give, as if decoded from an empty mapping: a plan
// built in Go (benchmarks, tests) gets the same defaults as one written in YAML. Fields
// already set are kept.
func WithDefaults[T any](v *T) *T {
	rv := reflect.ValueOf(v).Elem()
	if rv.Kind() != reflect.Struct {
		return v
	}
	d := &decoder{t: newTree(), errs: &errorList{}, scope: &scope{where: "defaults"}}
	d.defaults(rv)
	if d.errs.len() > 0 {
		panic(fmt.Sprintf("default tags of %s: %v", rv.Type(), Errors(d.errs.errs))) // a programming error, caught by every test
	}
	return v
}

// defaults fills the zero fields of struct v with their default tags, and the zero
// struct fields (on_error) with theirs.
func (d *decoder) defaults(v reflect.Value) {
	for _, f := range structFields(v.Type()) {
		fv := v.Field(f.index)
		switch {
		case !fv.IsZero():
		case f.def != "":
			dn := defaultNode(f.def)
			d.t.register(dn, "default")
			d.decode(dn, fv, f.key)
		case fv.Kind() == reflect.Struct && fv.Type() != sourceType:
			d.defaults(fv)
		}
	}
}

// kindWords lists kind keys for messages: "builtin:, transactions:, replay: or sysbench:".
func kindWords(keys []string) string {
	words := make([]string, len(keys))
	for i, k := range keys {
		words[i] = k + ":"
	}
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// kindBody decodes a workload's kind key with its kind (the key's value into the kind's
// Body), and options: into the kind's Options. content is the workload's mapping.
func (d *decoder) kindBody(content []*yaml.Node, w *Workload) {
	kindKeys := d.kinds.Keys()
	var keys []string
	var bodyNode, optNode *yaml.Node
	for i := 0; i+1 < len(content); i += 2 {
		switch k := content[i].Value; {
		case contains(kindKeys, k):
			keys = append(keys, k)
			if bodyNode == nil {
				bodyNode = content[i+1]
			}
		case k == "options":
			optNode = content[i+1]
		}
	}
	switch len(keys) {
	case 0:
		return // validate says which keys a workload needs
	case 1:
	default:
		d.errs.add(w.Src.At(keys[1]), "workload has more than one kind (%s); keep one", strings.Join(keys, " and "))
		return
	}
	key := keys[0]
	kind := d.kinds.byKey(key)
	if d.kinds.shared(key) {
		var name string
		before := d.errs.len()
		d.decode(bodyNode, reflect.ValueOf(&name).Elem(), key)
		if d.errs.len() > before {
			return
		}
		if kind = d.kinds.byValue(key, name); kind == nil {
			known := d.kinds.values(key)
			msg := fmt.Sprintf("unknown %s workload %q", key, name)
			if sg := suggest(name, known); sg != "" {
				msg += sg
			} else {
				msg += "; known: " + strings.Join(known, ", ")
			}
			d.errs.add(w.Src.At(key), "%s", msg)
			return
		}
	}
	body := kind.Body()
	d.decode(bodyNode, reflect.ValueOf(body).Elem(), key)
	w.Kind, w.Body = kind, body
	if kind.Options == nil {
		if optNode != nil {
			d.errs.add(w.Src.At("options"), "options do not apply to a %s workload, whose settings go under %s:; remove options:", kind.Name, key)
		}
		return
	}
	opts := kind.Options()
	if optNode == nil {
		optNode = &yaml.Node{Kind: yaml.MappingNode, Line: w.Src.Pos.Line, Column: w.Src.Pos.Col}
		d.t.register(optNode, w.Src.Pos.File)
	}
	d.decode(optNode, reflect.ValueOf(opts).Elem(), "options")
	w.Options = opts
}

// CheckWorkload checks a workload built in Go rather than loaded from a plan (benchmarks,
// tests) as Load checks a plan's: the settings every kind shares, then its kind's own
// rules. Relative paths resolve against dir; expressions may use vars.
func CheckWorkload(w *Workload, dir string, vars map[string]any) Errors {
	if vars == nil {
		vars = map[string]any{}
	}
	var names []string
	for n := range vars {
		names = append(names, n)
	}
	d := &decoder{t: newTree(), errs: &errorList{}, scope: &scope{where: "the workload", vars: vars, varNames: names}}
	v := &validator{d: d, p: &Plan{Dir: dir}}
	v.workload(w)
	return Errors(d.errs.errs)
}
