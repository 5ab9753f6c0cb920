package spec

import (
	"fmt"
	"github.com/quadrant-bench/quadrant/spec/confine"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"go.yaml.in/yaml/v3"
)

// Options change how a plan is loaded.
type Options struct {
	// Set are --set overrides, "vars.NAME=VALUE" or "NAME=VALUE"; VALUE is parsed as a YAML scalar (or flow list).
	Set []string
	// Env is the environment env.NAME reads; nil means the process environment.
	Env map[string]string
	// Folder says the plan is a stranger's (a results folder's plan.yaml, as rerun runs
	// it): env.NAME reads only the variables in AllowEnv (--allow-env), and any other the
	// plan names is refused at its position. A plan of the user's own reads Env whole.
	Folder   bool
	AllowEnv []string
	// AllowPaths are directories besides the plan's own that its files may be in
	// (--allow-path): extends: is checked against them as the plan loads; every other file
	// by spec/trust.
	AllowPaths []string
	// Addrs binds targets' addresses (sandboxes once started) for ${{ target.NAME.host/port }}.
	Addrs map[string]Addr
	// FS, when set, is where the plan and the files it names are read from (tests, fuzzing).
	FS fs.FS
	// Targets points targets at other servers: NAME -> DSN replaces the target's dsn or
	// sandbox (--target NAME=DSN), for running a shared plan against one's own server.
	Targets map[string]string
	// TLS sets targets' tls: from the command line (--tls NAME=SPEC), after Targets: the
	// user's choice, kept even when it does not verify (it is the user's connection).
	TLS map[string]TLSFlag
	// Kinds are the workload kinds a plan's workloads may be: the executor's registry
	// (executor/kinds) fills it, and cmd/quadrant hands it to whatever loads a plan.
	Kinds *Kinds
	// ServerOptions, when set, says which my.cnf options the server a sandbox of flavor and
	// basedir would run knows (any spelling: dashes or underscores), and names that server for
	// messages, so that validation finds a misspelt option at its line; no names when it cannot
	// tell (no server binary here), and then nothing is checked. spec runs nothing:
	// cmd/quadrant wires it to executor/sandbox, which asks the binary.
	ServerOptions func(flavor, basedir string) (server string, names []string)
	// Order, when set, is the order of repeats of a plan that does not write order: (the
	// default's): a resumed run keeps the order it started in, even from a version of
	// quadrant whose default was another.
	Order string
}

// Addr is a target's network address.
type Addr struct {
	Host string
	Port int
}

// Load reads, merges, expands and validates the plan at path. Every problem found is
// returned together as Errors, sorted by position.
func Load(path string, opts Options) (*Plan, error) {
	src, err := readSource(path, "", opts.FS)
	if err != nil {
		return nil, Errors{{Pos: Pos{File: path}, Msg: fmt.Sprintf("cannot read the plan: %v", err)}}
	}
	src.name = path
	return load(src, opts)
}

// LoadBytes loads a plan from memory; name is used in positions and relative paths resolve against its directory.
func LoadBytes(name string, data []byte, opts Options) (*Plan, error) {
	key, _ := filepath.Abs(name)
	return load(&source{name: name, key: key, dir: filepath.Dir(name), data: data}, opts)
}

func load(src *source, opts Options) (*Plan, error) {
	errs := &errorList{}
	t := newTree()
	env := opts.Env
	if env == nil {
		env = osEnv()
	}
	t.env = env
	t.roots = confine.New(append([]string{src.dir}, opts.AllowPaths...)...)
	root := t.load(src, []string{src.key}, opts.FS, errs)
	if root == nil {
		return nil, errs.result(t.files)
	}
	t.overrideTargets(root, opts.Targets, errs)
	t.overrideTLS(root, opts.TLS, errs)
	p := &Plan{File: src.name, Dir: src.dir, envUsed: map[string]bool{}, overridden: map[string]bool{}}
	if p.Dir == "" {
		p.Dir = "."
	}
	env, withheld := passedEnv(env, opts)
	sc := &scope{where: "vars:", env: env, envUsed: p.envUsed, withheld: withheld, unbound: map[string]bool{}}
	if withheld != nil {
		sc.refusedEnv, sc.allowEnv = map[string]Pos{}, opts.AllowEnv
	}
	d := &decoder{t: t, errs: errs, scope: sc, fsys: opts.FS, kinds: opts.Kinds}

	d.vars(root, opts.Set, p)
	sc.vars, sc.varNames = map[string]any{}, nil
	for _, v := range p.Vars {
		sc.vars[v.Name] = v.Value
		sc.varNames = append(sc.varNames, v.Name)
	}

	if tn, _ := mapGet(root, "targets"); tn != nil {
		sc.where, sc.cache = "targets:", nil
		d.decode(tn, reflect.ValueOf(&p.Targets).Elem(), "targets")
	} else {
		errs.add(t.pos(root), "missing required key \"targets\" in the plan; add at least one, e.g. targets: {primary: {sandbox: {}}}")
	}
	sc.targets = p.bindTargets(opts.Addrs, errs)
	sc.where, sc.cache = "setup:, teardown: and the other top-level sections", nil
	d.decode(root, reflect.ValueOf(p).Elem(), "")

	if mn, _ := mapGet(root, "matrix"); mn != nil {
		sc.where, sc.cache = "matrix:", nil
		d.decode(mn, reflect.ValueOf(&p.Matrix).Elem(), "matrix")
	}
	if opts.Order != "" && !p.Src.Has("order") {
		p.Order = opts.Order // a resumed run keeps the order it started in
	}
	in, _ := mapGet(root, "iteration")
	if in == nil {
		errs.add(t.pos(root), "missing required key \"iteration\" in the plan; it says what each run does, e.g. iteration: {workload: {builtin: oltp_read_only, duration: 60s}}")
	} else {
		d.iterations(in, p, sandboxDirNodes(root, p), linksNodes(root, p))
	}
	for name := range sc.unbound {
		p.Unbound = append(p.Unbound, name)
	}
	sortStrings(p.Unbound)
	p.merged = t
	p.loaded, p.opts = src, opts
	t.root = root
	validate(d, p)
	p.envEffects(sc.refusedEnv, errs)
	if err := errs.result(t.files); err != nil {
		return nil, err
	}
	return p, nil
}

// envEffects turns the environment variables a stranger's plan reads without --allow-env
// into effects the trust check refuses with everything else; a plan that does not load
// says them among its errors instead, so that no run of the command hides one.
func (p *Plan) envEffects(refused map[string]Pos, errs *errorList) {
	names := make([]string, 0, len(refused))
	for name := range refused {
		names = append(names, name)
	}
	sortStrings(names)
	for _, name := range names {
		e := Effect{Kind: ReadsEnv, Pos: refused[name], Env: name,
			What: fmt.Sprintf("env.%s reads your environment variable %s", name, name)}
		p.envRead = append(p.envRead, e)
	}
	if len(errs.errs) == 0 {
		return
	}
	for _, e := range p.envRead {
		errs.add(e.Pos, "env.%s: a results folder's plan reads your environment only where you allow it: it would get the value of %s; read what it does with it (quadrant explain), then add --allow-env %s", e.Env, e.Env, e.Env)
	}
}

// passedEnv is the environment a plan sees: all of env for the user's own plan; for a
// stranger's, only the names allowed, and which others were withheld.
func passedEnv(env map[string]string, opts Options) (passed map[string]string, withheld map[string]bool) {
	if !opts.Folder {
		return env, nil
	}
	passed, withheld = map[string]string{}, map[string]bool{}
	for k, v := range env {
		if contains(opts.AllowEnv, k) {
			passed[k] = v
		} else {
			withheld[k] = true
		}
	}
	return passed, withheld
}

// Bind resolves the plan again with the addresses of targets that were not known at load
// (sandboxes, once started), so ${{ target.NAME.host/port }} holds the real values. It
// works from the plan text read at load; the files it extends are read again.
func (p *Plan) Bind(addrs map[string]Addr) (*Plan, error) {
	o := p.opts
	o.Addrs = addrs
	return load(p.loaded, o)
}

// vars decodes `vars:` in order, each var seeing env and the vars before it, with --set applied.
func (d *decoder) vars(root *yaml.Node, set []string, p *Plan) {
	vn, _ := mapGet(root, "vars")
	vn = resolveAlias(vn)
	overrides := map[string]*yaml.Node{}
	var order []string
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		at := Pos{} // the command line has no position; messages name the --set
		if !ok {
			d.errs.add(at, "--set %s: give NAME=VALUE, e.g. --set vars.threads=8", kv)
			continue
		}
		k = strings.TrimPrefix(strings.TrimSpace(k), "vars.")
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(v), &doc); err != nil {
			d.errs.add(at, "--set %s: value is not valid YAML: %v", k, err)
			continue
		}
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}
		if len(doc.Content) == 1 {
			n = doc.Content[0]
		}
		d.t.register(n, "--set "+kv)
		setPos(n, 0, 0)
		if _, dup := overrides[k]; !dup {
			order = append(order, k)
		}
		overrides[k] = n
	}
	declared := map[string]bool{}
	var names []string
	var content []*yaml.Node
	if vn != nil && !isNull(vn) {
		if vn.Kind != yaml.MappingNode {
			d.errs.add(d.t.pos(vn), "vars must be a mapping of NAME: VALUE, got %s", describeNode(vn))
		} else {
			content = d.pairs(vn)
			for i := 0; i+1 < len(content); i += 2 {
				names = append(names, content[i].Value)
			}
		}
	}
	d.scope.vars = map[string]any{}
	{
		for i := 0; i+1 < len(content); i += 2 {
			k, v := content[i], content[i+1]
			if !matchPattern(varNamePattern, k.Value) {
				d.errs.add(d.t.pos(k), "invalid var name %q: use letters, digits and '_', not starting with a digit", k.Value)
			}
			declared[k.Value] = true
			if o, ok := overrides[k.Value]; ok {
				v = o
				p.overridden[k.Value] = true
			}
			d.scope.cache = nil
			val, ok := d.generic(v, "vars."+k.Value)
			if !ok {
				val = nil
			}
			p.Vars = append(p.Vars, Var{Name: k.Value, Value: val, Pos: d.t.pos(resolveAlias(v))})
			d.scope.vars[k.Value] = val
			d.scope.varNames = append(d.scope.varNames, k.Value)
		}
	}
	for _, k := range order {
		if declared[k] {
			continue
		}
		msg := fmt.Sprintf("--set %s: the plan has no var %q", k, k)
		if sg := suggest(k, names); sg != "" {
			msg += sg
		} else if len(names) > 0 {
			msg += "; its vars are: " + strings.Join(names, ", ")
		} else {
			msg += "; it declares no vars: add it under vars: first"
		}
		d.errs.add(Pos{}, "%s", msg)
	}
}

// bindTargets fills Host/Port and returns target.* values for expressions, replicas included.
func (p *Plan) bindTargets(addrs map[string]Addr, errs *errorList) map[string]any {
	out := map[string]any{}
	bind := func(name string, host string, port int) {
		if a, ok := addrs[name]; ok {
			host, port = a.Host, a.Port
		}
		if port == 0 {
			out[name] = map[string]any{"host": "127.0.0.1", "port": unboundPort(name)}
			return
		}
		out[name] = map[string]any{"host": host, "port": port}
	}
	for i := range p.Targets {
		t := &p.Targets[i]
		if t.DSN != "" {
			if cfg, err := mysql.ParseDSN(t.DSN); err != nil {
				errs.add(t.Src.At("dsn"), "bad dsn for target %s: %s; the format is user:password@tcp(host:port)/dbname", t.Name, redactDSNError(err, t.DSN))
			} else {
				t.Host, t.Port = splitAddr(cfg.Net, cfg.Addr)
			}
		}
		if a, ok := addrs[t.Name]; ok {
			t.Host, t.Port = a.Host, a.Port
		}
		bind(t.Name, t.Host, t.Port)
		for _, m := range t.Members() {
			bind(m, "127.0.0.1", 0)
		}
	}
	return out
}

// ReplicaName is the target name of a sandbox's replica r (1-based).
func ReplicaName(target string, r int) string { return fmt.Sprintf("%s_replica%d", target, r) }

func splitAddr(network, addr string) (string, int) {
	if network != "tcp" && network != "tcp6" {
		return "localhost", 0
	}
	host, port, ok := strings.Cut(addr, ":")
	if i := strings.LastIndex(addr, ":"); i >= 0 {
		host, port, ok = addr[:i], addr[i+1:], true
	}
	n, _ := strconv.Atoi(port)
	if !ok || n == 0 {
		n = 3306
	}
	return strings.Trim(host, "[]"), n
}

func redactDSNError(err error, dsn string) string {
	msg := err.Error()
	if u, _, ok := strings.Cut(dsn, "@"); ok {
		if _, pw, ok := strings.Cut(u, ":"); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "***")
		}
	}
	return msg
}

// MaxIterations bounds the expansion of a plan: beyond it a matrix is surely a mistake
// (and would make loading slow).
const MaxIterations = 10000

// sandboxDirNodes finds the sandbox.dir value of each sandbox target. It is decoded per
// iteration rather than with the targets, so that it may use matrix.* and iteration.*.
func sandboxDirNodes(root *yaml.Node, p *Plan) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	tn, _ := mapGet(resolveAlias(root), "targets")
	for _, t := range p.Targets {
		if t.Sandbox == nil || !t.Sandbox.Src.Has("dir") {
			continue
		}
		node, _ := mapGet(resolveAlias(tn), t.Name)
		sb, _ := mapGet(resolveAlias(node), "sandbox")
		if dir, _ := mapGet(resolveAlias(sb), "dir"); dir != nil {
			out[t.Name] = resolveAlias(dir)
		}
	}
	return out
}

// sandboxDirs resolves each sandbox.dir in the iteration's scope, relative to the plan.
// failed remembers the targets whose dir did not decode: the same error in the next iteration
// is not added again, and must not read as an empty dir.
func (d *decoder) sandboxDirs(p *Plan, it *Iteration, nodes map[string]*yaml.Node, failed map[string]bool) {
	for _, t := range p.Targets {
		n := nodes[t.Name]
		if n == nil || failed[t.Name] {
			continue
		}
		var dir string
		before := d.errs.len()
		d.decode(n, reflect.ValueOf(&dir).Elem(), "sandbox.dir")
		if d.errs.len() != before {
			failed[t.Name] = true
			continue
		}
		if dir == "" {
			d.errs.add(d.t.pos(n), "sandbox dir of target %s is empty; name a directory (the storage its data directory goes on) or remove dir:", t.Name)
			continue
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(p.Dir, dir)
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if it.SandboxDirs == nil {
			it.SandboxDirs = map[string]string{}
		}
		it.SandboxDirs[t.Name] = dir
		if t.Sandbox.Dir == "" {
			t.Sandbox.Dir = n.Value // as written, for explain and the docs of the run
		}
	}
}

// iterations expands the matrix and decodes `iteration:` once per cell and repeat.
func (d *decoder) iterations(in *yaml.Node, p *Plan, dirs, links map[string]*yaml.Node) {
	repeat := max(p.Repeat, 1)
	if n := p.Matrix.size() * repeat; n > MaxIterations || n < 0 || repeat > MaxIterations {
		d.errs.add(p.Src.Pos, "the plan expands to more than %d iterations (matrix cells x repeat); split it into several plans", MaxIterations)
		return
	}
	cells := p.Matrix.Cells()
	if len(cells) == 0 {
		d.errs.add(p.Matrix.Pos, "the matrix has no cells left after exclude; remove an exclude entry")
		return
	}
	axes := []string{}
	for _, a := range p.Matrix.Axes {
		axes = append(axes, a.Name)
	}
	if len(p.Matrix.Axes) == 0 {
		for _, c := range cells {
			for _, av := range c {
				if !contains(axes, av.Axis) {
					axes = append(axes, av.Axis)
				}
			}
		}
	}
	sc := d.scope
	defer func() { d.scope = sc }()
	dirFailed, linksFailed := map[string]bool{}, map[string]bool{}
	for i, run := range runOrder(p.Order, p.OrderSeed, len(cells), repeat) {
		index, ci, r := i+1, run.cell, run.repeat
		cell := cells[ci]
		m := map[string]any{}
		for _, av := range cell {
			m[av.Axis] = av.Value
		}
		isc := *sc
		isc.where, isc.cache = "iteration:", nil
		isc.axes, isc.matrix = axes, m
		isc.iteration = map[string]any{"index": index, "repeat": r, "cell": ci + 1}
		d.scope = &isc
		it := Iteration{Index: index, Cell: ci + 1, Repeat: r, Matrix: cell}
		d.decode(in, reflect.ValueOf(&it).Elem(), "iteration")
		it.env, it.scope = isc.values(), &isc
		it.Index, it.Cell, it.Repeat, it.Matrix = index, ci+1, r, cell
		d.sandboxDirs(p, &it, dirs, dirFailed)
		d.sandboxLinks(p, &it, links, linksFailed)
		p.Iterations = append(p.Iterations, it)
	}
}

// Orders of the repeats (Plan.Order).
const (
	OrderSequential  = "sequential"
	OrderInterleaved = "interleaved"
	OrderRandom      = "random"
)

type cellRun struct{ cell, repeat int }

// runOrder lists the runs of cells x repeat in execution order. Repeat numbers count each
// cell's runs in time, whatever the order.
func runOrder(order string, seed int64, cells, repeat int) []cellRun {
	var seq []int
	switch order {
	case OrderInterleaved:
		for r := 0; r < repeat; r++ {
			for c := 0; c < cells; c++ {
				seq = append(seq, c)
			}
		}
	default:
		for c := 0; c < cells; c++ {
			for r := 0; r < repeat; r++ {
				seq = append(seq, c)
			}
		}
		if order == OrderRandom {
			rng := rand.New(rand.NewPCG(uint64(seed), 0x7175616472616e74)) // "quadrant"
			rng.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
		}
	}
	out := make([]cellRun, len(seq))
	count := make([]int, cells)
	for i, c := range seq {
		count[c]++
		out[i] = cellRun{c, count[c]}
	}
	return out
}

func reflectValue(ptr any) reflect.Value { return reflect.ValueOf(ptr).Elem() }
