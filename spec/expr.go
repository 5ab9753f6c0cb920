package spec

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	"go.yaml.in/yaml/v3"
)

// scope is what ${{ }} may see at a place of the plan.
type scope struct {
	where    string         // "vars:", "targets:", "matrix:", "iteration:", "the plan" (for messages)
	vars     map[string]any // nil: not available yet
	varNames []string
	env      map[string]string
	envUsed  map[string]bool
	withheld map[string]bool // set but not passed to a stranger's plan (Options.Folder)
	// refusedEnv, for a stranger's plan (withheld not nil), collects the variables it reads
	// that the user did not pass (--allow-env), with where: one line each of the trust
	// check's refusal, beside the plan's other effects, rather than a load error of its own.
	refusedEnv map[string]Pos
	allowEnv   []string // --allow-env: a stranger's plan reads these, set or not
	axes       []string // nil: outside iteration:
	matrix     map[string]any
	iteration  map[string]any
	targets    map[string]any // nil: not available (inside targets:)
	unbound    map[string]bool
	cache      map[string]any
}

// values returns the expression environment of the scope.
func (s *scope) values() map[string]any {
	if s.cache != nil {
		return s.cache
	}
	envs := make(map[string]any, len(s.env))
	for k, v := range s.env {
		envs[k] = v
	}
	m := map[string]any{"env": envs}
	if s.vars != nil {
		m["vars"] = s.vars
	}
	if s.axes != nil {
		m["matrix"] = s.matrix
		m["iteration"] = s.iteration
	}
	if s.targets != nil {
		m["target"] = s.targets
	}
	s.cache = m
	return m
}

// nameSpace says which names an expression may use, for checks with precise messages.
type nameSpace struct {
	s      *scope
	idents []string // names usable alone (assertion metrics, record_as names)
	maps   []string // roots with free-form members: status, replica, row
	funcs  []string // functions beyond expr's builtins
}

var exprRoots = []string{"vars", "env", "matrix", "iteration", "target"}

// exprBase returns the position of the first character of the k-th ${{ }} body in n,
// found in the source text so that columns are right in quoted and block strings too.
func (d *decoder) exprBase(n *yaml.Node, k int) Pos {
	p := d.t.pos(n)
	lines := d.t.lines[p.File]
	if p.Line < 1 || p.Line > len(lines) {
		return p
	}
	seen := 0
	for li := p.Line - 1; li < len(lines) && li < p.Line+1000; li++ {
		line := []rune(lines[li])
		start := 0
		if li == p.Line-1 {
			start = max(p.Col-1, 0)
		}
		for c := start; c+3 <= len(line); c++ {
			if string(line[c:c+3]) != "${{" {
				continue
			}
			if seen == k {
				c += 3
				for c < len(line) && line[c] == ' ' {
					c++
				}
				return Pos{File: p.File, Line: li + 1, Col: c + 1}
			}
			seen++
		}
	}
	return p
}

// scalarStart is where a scalar's text starts: after the quote of a quoted string.
func (d *decoder) scalarStart(n *yaml.Node) Pos {
	p := d.t.pos(n)
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		p.Col++
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		// the text starts on the next line; its indentation is found in the source
		if lines := d.t.lines[p.File]; p.Line >= 1 && p.Line < len(lines) {
			l := lines[p.Line]
			p.Line++
			p.Col = len(l) - len(strings.TrimLeft(l, " ")) + 1
		}
	}
	return p
}

// at moves p by an expr error's line/column inside the expression source.
func at(p Pos, err error) Pos {
	var fe *file.Error
	if !errors.As(err, &fe) || !p.IsValid() || p.Line == 0 {
		return p
	}
	if fe.Line > 1 {
		return Pos{File: p.File, Line: p.Line + fe.Line - 1, Col: fe.Column + 1}
	}
	return Pos{File: p.File, Line: p.Line, Col: p.Col + fe.Column}
}

func exprMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fe.Message
	}
	return err.Error()
}

// interpolate evaluates the ${{ }} in a string scalar. A string that is exactly one
// expression keeps the expression's type.
func (d *decoder) interpolate(n *yaml.Node) (any, bool) {
	s := n.Value
	trimmed := strings.TrimSpace(s)
	var out strings.Builder
	rest := s
	for k := 0; ; k++ {
		i := strings.Index(rest, "${{")
		if i < 0 {
			out.WriteString(rest)
			break
		}
		out.WriteString(rest[:i])
		j := strings.Index(rest[i+3:], "}}")
		base := d.exprBase(n, k)
		if j < 0 {
			d.errs.add(base, "unterminated ${{ in %q: close the expression with }}", s)
			return nil, false
		}
		body := rest[i+3 : i+3+j]
		src := strings.TrimSpace(body)
		if src == "" {
			d.errs.add(base, "empty ${{ }}: write an expression inside, e.g. ${{ vars.threads }}")
			return nil, false
		}
		val, ok := d.eval(src, base)
		if !ok {
			return nil, false
		}
		if trimmed == "${{"+body+"}}" {
			return val, true
		}
		out.WriteString(formatValue(val))
		rest = rest[i+3+j+2:]
	}
	return out.String(), true
}

// eval checks, compiles and evaluates one ${{ }} expression in the decoder's scope.
func (d *decoder) eval(src string, base Pos) (any, bool) {
	tree, err := parser.Parse(src)
	if err != nil {
		d.errs.add(at(base, err), "bad expression %q: %s", src, exprMessage(err))
		return nil, false
	}
	ns := &nameSpace{s: d.scope}
	if !d.checkNames(tree.Node, base, ns) {
		return nil, false
	}
	env := d.scope.values()
	prog, err := expr.Compile(src, expr.Env(env))
	if err != nil {
		d.errs.add(at(base, err), "bad expression %q: %s", src, exprMessage(err))
		return nil, false
	}
	out, err := expr.Run(prog, env)
	if err != nil {
		d.errs.add(at(base, err), "expression %q failed: %s", src, exprMessage(err))
		return nil, false
	}
	switch x := out.(type) {
	case int64:
		return int(x), true
	case int32:
		return int(x), true
	case float32:
		return float64(x), true
	}
	return out, true
}

// checkNames reports unknown names, undefined vars, missing environment variables,
// unknown axes and targets, with positions inside the expression.
func (d *decoder) checkNames(root ast.Node, base Pos, ns *nameSpace) bool {
	nodes, defaulted, callees := exprNodes(root)
	before := d.errs.len()
	pos := func(n ast.Node) Pos {
		loc := n.Location()
		p := base
		if p.Line > 0 {
			p.Col += loc.From
		}
		return p
	}
	for _, n := range nodes {
		switch x := n.(type) {
		case *ast.IdentifierNode:
			if callees[x] {
				d.checkFunction(x.Value, pos(x), ns)
			} else {
				d.checkIdent(x.Value, pos(x), ns)
			}
		case *ast.MemberNode:
			d.checkMember(x, pos, ns, defaulted[x])
		}
	}
	return d.errs.len() == before
}

// exprNodes lists the nodes of an expression, with those under a ?? default (env.X ??
// default) and those called as functions.
func exprNodes(root ast.Node) (nodes []ast.Node, defaulted, callees map[ast.Node]bool) {
	defaulted = map[ast.Node]bool{} // env.X ?? default
	callees = map[ast.Node]bool{}
	ast.Walk(&root, visitor(func(n ast.Node) {
		nodes = append(nodes, n)
		switch x := n.(type) {
		case *ast.BinaryNode:
			if x.Operator == "??" {
				defaulted[x.Left] = true
			}
		case *ast.CallNode:
			callees[x.Callee] = true
		case *ast.ChainNode:
			// env.X?.y ?? d: the ?? applies to the chain
			if defaulted[x] {
				defaulted[x.Node] = true
			}
		}
	}))
	return nodes, defaulted, callees
}

// checkFunction reports a call of a function neither the namespace nor expr has.
func (d *decoder) checkFunction(name string, p Pos, ns *nameSpace) {
	if contains(ns.funcs, name) || contains(builtin.Names, name) {
		return
	}
	msg := fmt.Sprintf("unknown function %q", name)
	if sg := suggest(name, append(append([]string(nil), ns.funcs...), builtin.Names...)); sg != "" {
		msg += sg
	} else if len(ns.funcs) > 0 {
		msg += "; available here: " + strings.Join(ns.funcs, ", ") + " and expr's builtins"
	} else {
		msg += "; only expr's builtin functions (len, upper, lower, string, int, float, ...) are available here"
	}
	d.errs.add(p, "%s", msg)
}

// checkIdent reports a bare name that is not the namespace's, nor a root (vars, env, ...)
// available here.
func (d *decoder) checkIdent(name string, p Pos, ns *nameSpace) {
	s := ns.s
	if contains(ns.idents, name) || contains(ns.maps, name) {
		return
	}
	if contains(exprRoots, name) && d.rootAvailable(name, s) {
		return
	}
	if contains(exprRoots, name) {
		d.errs.add(p, "%s.* cannot be used in %s%s", name, s.where, rootHint(name))
		return
	}
	cands := append(append(append([]string(nil), ns.idents...), ns.maps...), exprRoots...)
	msg := fmt.Sprintf("unknown name %q", name)
	if sg := suggest(name, cands); sg != "" {
		msg += sg
	} else if len(ns.idents) > 0 {
		msg += "; known names: " + strings.Join(append(append([]string(nil), ns.idents...), ns.maps...), ", ")
	} else {
		msg += "; use vars.NAME, env.NAME, matrix.AXIS, iteration.index, iteration.repeat or target.NAME.host/.port"
	}
	d.errs.add(p, "%s", msg)
}

// checkMember checks ROOT.NAME (vars.X, env.X, ...) and a target's field
// (target.NAME.host); defaulted is whether a ?? default follows it.
func (d *decoder) checkMember(x *ast.MemberNode, pos func(ast.Node) Pos, ns *nameSpace, defaulted bool) {
	s := ns.s
	id, ok := x.Node.(*ast.IdentifierNode)
	prop, pok := x.Property.(*ast.StringNode)
	if !ok || !pok || !contains(exprRoots, id.Value) || !d.rootAvailable(id.Value, s) {
		if !pok {
			return
		}
		if inner, ok := x.Node.(*ast.MemberNode); ok {
			if tid, ok := inner.Node.(*ast.IdentifierNode); ok && tid.Value == "target" && d.rootAvailable("target", s) {
				if prop.Value != "host" && prop.Value != "port" {
					d.errs.add(pos(x.Property), "unknown target field %q; use .host or .port", prop.Value)
				}
			}
		}
		return
	}
	p := pos(x.Property)
	switch id.Value {
	case "vars":
		d.checkVar(prop.Value, p, s)
	case "env":
		d.checkEnv(prop.Value, p, s, defaulted)
	case "matrix":
		d.checkAxis(prop.Value, p, s)
	case "iteration":
		if prop.Value != "index" && prop.Value != "repeat" && prop.Value != "cell" {
			d.errs.add(p, "unknown iteration field %q; use iteration.index, iteration.repeat or iteration.cell", prop.Value)
		}
	case "target":
		d.checkTarget(prop.Value, p, s)
	}
}

func (d *decoder) checkVar(name string, p Pos, s *scope) {
	if contains(s.varNames, name) {
		return
	}
	msg := fmt.Sprintf("undefined var %q", name)
	if sg := suggest(name, s.varNames); sg != "" {
		msg += sg + " Otherwise"
	} else {
		msg += ";"
	}
	d.errs.add(p, "%s declare it under vars: (vars: {%s: VALUE}) or pass --set %s=VALUE", msg, name, name)
}

// checkEnv marks a set variable used; an unset one is an error unless defaulted, and one a
// results folder's plan may not read says how to allow it.
func (d *decoder) checkEnv(name string, p Pos, s *scope, defaulted bool) {
	if _, set := s.env[name]; set {
		if s.envUsed != nil {
			s.envUsed[name] = true
		}
	} else if s.withheld != nil && !defaulted && !contains(s.allowEnv, name) {
		// A stranger's plan: whether the variable is set here or not, what it needs is the
		// user's --allow-env, never an "export it" that hands a secret to the plan.
		if _, seen := s.refusedEnv[name]; !seen && s.refusedEnv != nil {
			s.refusedEnv[name] = p
		}
	} else if !defaulted {
		d.errs.add(p, "environment variable %s is not set; export it, or give a default: ${{ env.%s ?? \"value\" }}", name, name)
	}
}

func (d *decoder) checkAxis(name string, p Pos, s *scope) {
	if contains(s.axes, name) {
		return
	}
	msg := fmt.Sprintf("unknown matrix axis %q", name)
	if sg := suggest(name, s.axes); sg != "" {
		msg += sg
	} else if len(s.axes) == 0 {
		msg += "; the plan has no matrix"
	} else {
		msg += "; axes: " + strings.Join(s.axes, ", ")
	}
	d.errs.add(p, "%s", msg)
}

// checkTarget reports an unknown target and marks one whose port is not bound yet.
func (d *decoder) checkTarget(name string, p Pos, s *scope) {
	if _, ok := s.targets[name]; !ok {
		names := sortedKeys(s.targets)
		msg := fmt.Sprintf("unknown target %q", name)
		if sg := suggest(name, names); sg != "" {
			msg += sg
		} else {
			msg += "; targets: " + strings.Join(names, ", ")
		}
		d.errs.add(p, "%s", msg)
	} else if t, _ := s.targets[name].(map[string]any); t != nil && t["port"] == unboundPort(name) {
		s.unbound[name] = true
	}
}

func (d *decoder) rootAvailable(name string, s *scope) bool {
	switch name {
	case "vars":
		return s.vars != nil
	case "env":
		return true
	case "matrix", "iteration":
		return s.axes != nil
	case "target":
		return s.targets != nil
	}
	return false
}

func rootHint(name string) string {
	switch name {
	case "matrix", "iteration":
		return "; matrix.* and iteration.* are only available inside iteration:"
	case "target":
		return "; target.NAME.host/port are not available inside targets: or vars:"
	case "vars":
		return "; a var may only use env.* and the vars declared before it"
	}
	return ""
}

func unboundPort(name string) string { return "<port of " + name + ">" }

type visitor func(ast.Node)

func (v visitor) Visit(n *ast.Node) { v(*n) }

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func osEnv() map[string]string {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// Expr is an expression kept as source: an assertion, a wait condition or a transaction argument.
// It is compiled (and checked) when the plan loads.
type Expr struct {
	Source string
	Pos    Pos // of the first character of Source
	prog   *vm.Program
	base   map[string]any // the iteration's vars/matrix/iteration values
}

func (e *Expr) decodeNode(d *decoder, n *yaml.Node, name string) {
	val, ok := d.scalar(n, name)
	if !ok {
		return
	}
	s, isStr := val.(string)
	if !isStr {
		if val == nil {
			d.errs.add(d.t.pos(n), "%s must be an expression, got nothing (null)", name)
			return
		}
		s = formatValue(val) // e.g. `until: true`, args: [1, 2]
	}
	e.Source = s
	e.Pos = d.scalarStart(n)
}

// Eval runs the expression. env adds the values of the place it is evaluated in
// (metrics for assertions; status/replica/row for wait conditions) to the iteration's values.
func (e *Expr) Eval(env map[string]any) (any, error) {
	if e.prog == nil {
		return nil, fmt.Errorf("%s: expression %q was not compiled", e.Pos, e.Source)
	}
	m := make(map[string]any, len(env)+len(e.base))
	for k, v := range e.base {
		m[k] = v
	}
	for k, v := range env {
		m[k] = v
	}
	out, err := expr.Run(e.prog, m)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %s", e.Pos, e.Source, exprMessage(err))
	}
	return out, nil
}

// EvalBool runs a condition (assertion, wait until).
func (e *Expr) EvalBool(env map[string]any) (bool, error) {
	out, err := e.Eval(env)
	if err != nil {
		return false, err
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("%s: %s gave %v, not true or false", e.Pos, e.Source, out)
	}
	return b, nil
}

// compile checks and compiles e against env (the names ns allows).
func (d *decoder) compile(e *Expr, ns *nameSpace, env map[string]any, opts ...expr.Option) {
	if e.Source == "" {
		return
	}
	tree, err := parser.Parse(e.Source)
	if err != nil {
		d.errs.add(at(e.Pos, err), "bad expression %q: %s", e.Source, exprMessage(err))
		return
	}
	if !d.checkNames(tree.Node, e.Pos, ns) {
		return
	}
	prog, err := expr.Compile(e.Source, append([]expr.Option{expr.Env(env)}, opts...)...)
	if err != nil {
		d.errs.add(at(e.Pos, err), "bad expression %q: %s", e.Source, exprMessage(err))
		return
	}
	e.prog = prog
	e.base = d.scope.values()
}
