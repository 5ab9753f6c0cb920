package spec

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
)

// stillSwitching are the files that still tell step kinds apart by their body's type, each
// with what moves it into the kinds' declarations. The list only shrinks: a file that
// stops switching must leave it, and no file may join it.
var stillSwitching = map[string]string{
	"executor/steps.go":       "the runners of the built-in kinds: each becomes its kind's StepKind.Impl",
	"executor/sqlfile.go":     "a sql_file's statement quoted in its error (from main, after this test): the sql_file runner's, with it in its kind",
	"spec/packets.go":         "sql_file statements over a sandbox's max_allowed_packet (from main, after this test): a StepKind.Check that knows the target's limit",
	"spec/schema.go":          "planTypes orders the reference's sections, step bodies among them (the generated docs must not change): the sections could follow the registry once the reference's order may change",
	"cmd/quadrant/explain.go": "the built-in kinds' explain lines and estimates: each becomes its StepKind.Explain",
}

// No type switch, type assertion or hand list over step kinds outside their declarations
// (spec/steps.go) but the files stillSwitching names: go/ast over every production file of
// the module, so a constant or a new helper cannot dodge it as a grep of literals would.
func TestNoStepKindSwitchOutsideTheRegistry(t *testing.T) {
	bodies, keys := map[string]bool{}, map[string]bool{}
	for _, k := range builtinSteps {
		keys[k.Key] = true
		if bt := reflect.TypeOf(k.Body()).Elem(); bt.PkgPath() == stepType.PkgPath() && bt != workloadType {
			bodies[bt.Name()] = true // a workload step's body is the plan's Workload, which everything uses
		}
	}
	found := map[string][]string{}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "spec/steps.go" || rel == "spec/stepkind.go" || strings.Contains(rel, "testdata") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, what := range stepKindUses(f, bodies, keys) {
			found[filepath.ToSlash(rel)] = append(found[filepath.ToSlash(rel)], fset.Position(what).String())
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
}

// stepKindUses are where f names a step kind by hand: a type switch on a step's Body or
// with a step body type in a case, a StepBody, type assertion or value of a step body
// type in reflect.TypeOf, a list of three step keys or more.
func stepKindUses(f *ast.File, bodies, keys map[string]bool) []token.Pos {
	isBody := func(e ast.Expr) bool {
		if st, ok := e.(*ast.StarExpr); ok {
			e = st.X
		}
		switch x := e.(type) {
		case *ast.Ident:
			return f.Name.Name == "spec" && bodies[x.Name]
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			return ok && id.Name == "spec" && bodies[x.Sel.Name]
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
