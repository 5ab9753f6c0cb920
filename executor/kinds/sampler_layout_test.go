package kinds_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// samplerType is a concrete sampler, by package path and type name.
type samplerType struct{ pkg, name string }

// No type assertion or type switch on a concrete sampler type (a type of a package under
// executor/watch with the methods Columns and Sample) outside its own package: what a
// sampler needs and gives is its watch.SamplerKind, and an optional ability is an interface
// of package watch (watch.Mover, watch.Health, watch.MachineReader). go/ast over every
// production file of the module, so a new helper cannot dodge it.
func TestNoSamplerTypeAssertionOutsideItsPackage(t *testing.T) {
	root := "../.."
	types := concreteSamplers(t, root)
	if len(types) < 5 {
		t.Fatalf("found %d concrete sampler types, want the status, queries, replication, snmp, host and process ones: %v", len(types), types)
	}
	var found []string
	walkGo(t, root, func(rel string, fset *token.FileSet, f *ast.File) {
		if strings.Contains(rel, "testdata") {
			return
		}
		for _, pos := range samplerAssertions(f, module+filepath.ToSlash(filepath.Dir(rel)), types) {
			found = append(found, fset.Position(pos).String())
		}
	})
	sort.Strings(found)
	for _, at := range found {
		t.Errorf("%s: a type assertion or switch on a concrete sampler outside its package: declare it in its SamplerKind or ask for an interface of package watch", at)
	}
}

// concreteSamplers are the types of the packages under executor/watch that have both a
// Columns and a Sample method.
func concreteSamplers(t *testing.T, root string) map[samplerType]bool {
	methods := map[samplerType]map[string]bool{}
	walkGo(t, filepath.Join(root, "executor", "watch"), func(rel string, _ *token.FileSet, f *ast.File) {
		pkg := module + "executor/watch/" + filepath.ToSlash(filepath.Dir(rel))
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			rt := fd.Recv.List[0].Type
			if st, ok := rt.(*ast.StarExpr); ok {
				rt = st.X
			}
			if id, ok := rt.(*ast.Ident); ok {
				k := samplerType{pkg, id.Name}
				if methods[k] == nil {
					methods[k] = map[string]bool{}
				}
				methods[k][fd.Name.Name] = true
			}
		}
	})
	out := map[samplerType]bool{}
	for k, m := range methods {
		if m["Columns"] && m["Sample"] {
			out[k] = true
		}
	}
	return out
}

// walkGo parses every non-test Go file under dir and gives it with its path relative to dir.
func walkGo(t *testing.T, dir string, each func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		each(filepath.ToSlash(rel), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// samplerAssertions are where f (of package pkg) asserts or switches on a concrete sampler
// type of another package.
func samplerAssertions(f *ast.File, pkg string, types map[samplerType]bool) []token.Pos {
	imports := importNames(f)
	foreign := func(e ast.Expr) bool {
		if st, ok := e.(*ast.StarExpr); ok {
			e = st.X
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false // a type of f's own package: its own samplers are its business
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && imports[id.Name] != pkg && types[samplerType{imports[id.Name], sel.Sel.Name}]
	}
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.TypeSwitchStmt:
			for _, c := range x.Body.List {
				if slices.ContainsFunc(c.(*ast.CaseClause).List, foreign) {
					out = append(out, c.Pos())
				}
			}
		case *ast.TypeAssertExpr:
			if x.Type != nil && foreign(x.Type) {
				out = append(out, x.Pos())
			}
		}
		return true
	})
	return out
}
