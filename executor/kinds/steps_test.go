package kinds_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/spec"
)

// stillSwitching are the files that still tell step kinds apart by their body's type, each
// with what moves it into the kinds' declarations. The list only shrinks: a file that
// stops switching must leave it, and no file may join it.
var stillSwitching = map[string]string{}

const module = "github.com/quadrant-bench/quadrant/"

// bodyType is a step kind's body type, by package path and name.
type bodyType struct{ pkg, name string }

// No type switch, type assertion or hand list over step kinds outside their own packages
// (executor/step/NAME) but the files stillSwitching names: go/ast over every production
// file of the module, so a constant or a new helper cannot dodge it as a grep of literals
// would. A body type is named through its package's import (wait.Wait, restart.Restart).
func TestNoStepKindSwitchOutsideTheRegistry(t *testing.T) {
	bodies, keys := map[bodyType]bool{}, map[string]bool{}
	own := map[string]string{} // body type's package -> the kind's package
	workload := reflect.TypeOf(spec.Workload{})
	for _, k := range kinds.Steps() {
		keys[k.Key] = true
		bt := reflect.TypeOf(k.Body())
		for bt.Kind() == reflect.Pointer {
			bt = bt.Elem()
		}
		if bt.Name() == "" || bt == workload || !strings.HasPrefix(bt.PkgPath(), module) {
			continue // a plain bool or duration, or the plan's Workload, which everything uses
		}
		bodies[bodyType{bt.PkgPath(), bt.Name()}] = true
		own[reflect.TypeOf(k.Impl).PkgPath()] = k.Key
	}
	found := map[string][]string{}
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if strings.Contains(rel, "testdata") || strings.HasPrefix(rel, "executor/kinds/") ||
			strings.HasPrefix(rel, "executor/step/") && rel != "executor/step/step.go" {
			return nil // a kind's own package, or the registry
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, what := range stepKindUses(f, module+filepath.ToSlash(filepath.Dir(rel)), bodies, keys) {
			found[rel] = append(found[rel], fset.Position(what).String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for f := range found {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if _, ok := stillSwitching[f]; !ok {
			t.Errorf("%s tells step kinds apart by hand at %s: declare it in the kind's StepKind instead", f, strings.Join(found[f], ", "))
		}
	}
	for f := range stillSwitching {
		if _, ok := found[f]; !ok {
			t.Errorf("%s no longer tells step kinds apart: remove it from stillSwitching", f)
		}
	}
	if len(own) == 0 {
		t.Fatal("no step kind has a body type of its own: the test would find nothing")
	}
}

// stepKindUses are where f names a step kind by hand: a type switch on a step's Body or
// with a step body type in a case, a StepBody, type assertion or value of a step body
// type in reflect.TypeOf, a list of three step keys or more.
func stepKindUses(f *ast.File, pkg string, bodies map[bodyType]bool, keys map[string]bool) []token.Pos {
	imports := importNames(f)
	isBody := func(e ast.Expr) bool {
		if st, ok := e.(*ast.StarExpr); ok {
			e = st.X
		}
		switch x := e.(type) {
		case *ast.Ident:
			return bodies[bodyType{pkg, x.Name}]
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			return ok && bodies[bodyType{imports[id.Name], x.Sel.Name}]
		}
		return false
	}
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.TypeSwitchStmt:
			for _, c := range x.Body.List {
				if slices.ContainsFunc(c.(*ast.CaseClause).List, isBody) {
					out = append(out, c.Pos())
				}
			}
		case *ast.TypeAssertExpr:
			if x.Type != nil && isBody(x.Type) {
				out = append(out, x.Pos())
			}
		case *ast.IndexExpr:
			if isBody(x.Index) {
				out = append(out, x.Pos())
			}
		case *ast.CallExpr: // reflect.TypeOf(Capture{}): a list or a switch of step body types
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "TypeOf" && len(x.Args) == 1 {
				arg := x.Args[0]
				if u, ok := arg.(*ast.UnaryExpr); ok {
					arg = u.X
				}
				if lit, ok := arg.(*ast.CompositeLit); ok && isBody(lit.Type) {
					out = append(out, x.Pos())
				}
			}
		case *ast.CompositeLit:
			n := 0
			for _, e := range x.Elts {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && keys[s] {
						n++
					}
				}
			}
			if n >= 3 {
				out = append(out, x.Pos())
			}
		}
		return true
	})
	return out
}

// stillInSpec are the step body types still declared in spec, each with where it goes. The
// list only shrinks: a body that leaves spec must leave it, and none may join it.
var stillInSpec = map[string]string{}

// A step kind's body type, its checks and its docs are its own package's: spec declares
// none (the plan's Workload, which a workload step and a capture's while: share, aside).
func TestNoStepBodyInSpec(t *testing.T) {
	specPkg := reflect.TypeOf(spec.Plan{}).PkgPath()
	found := map[string]bool{}
	for _, k := range kinds.Steps() {
		bt := reflect.TypeOf(k.Body())
		for bt.Kind() == reflect.Pointer {
			bt = bt.Elem()
		}
		if bt.PkgPath() != specPkg || bt == reflect.TypeOf(spec.Workload{}) {
			continue
		}
		found[bt.Name()] = true
		if _, ok := stillInSpec[bt.Name()]; !ok {
			t.Errorf("step kind %s: its body type spec.%s is declared in spec; declare it in the kind's own package", k.Key, bt.Name())
		}
	}
	for name := range stillInSpec {
		if !found[name] {
			t.Errorf("spec.%s is no step's body any more: remove it from stillInSpec", name)
		}
	}
}

// importNames maps the names f's imports go by in f to their paths.
func importNames(f *ast.File) map[string]string {
	imports := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	return imports
}
