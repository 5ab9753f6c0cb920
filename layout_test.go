package quadrant_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
)

// TestImportRules keeps the data flowing one way: spec knows nothing of running a plan,
// the executor writes the results folder only through package results, and reporters read
// only that folder. A change that crosses fails here before review.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if !strings.Contains(string(out), mod+"/results") {
		t.Fatalf("go list -deps printed no project package:\n%s", out)
	}
	rules := []struct{ from, forbidden string }{
		{"executor", "reporters"},
		{"reporters", "executor"},
		{"spec", "executor"},
		{"spec", "reporters"},
		{"results", "executor"},
		{"results", "reporters"},
		{"results", "spec"},
	}
	for _, r := range rules {
		deps := listDeps(t, "./"+r.from+"/...")
		for pkg, imports := range deps {
			if r.from == "spec" && r.forbidden == "executor" && specsOwnCorpus(pkg) {
				continue // checked below: the registry alone
			}
			for _, d := range imports {
				if under(d, r.forbidden) {
					t.Errorf("%s imports %s: %s must not depend on %s", pkg, d, r.from, r.forbidden)
				}
			}
		}
	}
	// spec's external tests (package spec_test) load spec's own corpus of plans with the real
	// kinds: of the executor they import the registry alone, never what runs a plan.
	for pkg, imports := range listXTestImports(t, "./spec/...") {
		for _, d := range imports {
			if under(d, "executor") && d != mod+"/executor/kinds" {
				t.Errorf("%s's external tests import %s: spec's tests may import only the registry (executor/kinds) of the executor", pkg, d)
			}
		}
	}
}

// specsOwnCorpus is whether pkg (as go list -test names it) is the external test package of
// spec or its test binary, which depend on the executor through executor/kinds alone.
func specsOwnCorpus(pkg string) bool {
	return pkg == mod+"/spec_test" || pkg == mod+"/spec.test"
}

// listXTestImports maps every package matched by pattern to its external tests' direct imports.
func listXTestImports(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .XTestImports " "}}`, pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			m[f[0]] = f[1:]
		}
	}
	return m
}

const mod = "github.com/quadrant-bench/quadrant"

// listDeps maps every package matched by pattern to everything it depends on, directly
// or not (tests' imports included).
func listDeps(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-test", "-deps=false", "-f", `{{.ImportPath}} {{join .Deps " "}}`, pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			m[f[0]] = f[1:]
		}
	}
	return m
}

func under(pkg, dir string) bool {
	p := mod + "/" + dir
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// TestKindsOwnTheirNames keeps every workload kind's knowledge in its own package: the
// shared layers (spec, results, reporters, the executor's top level, the loop, verify and
// the CLI) import no kind's package, only the registry (executor/kinds), and no
// identifier or string of theirs names a kind's own concept. It reads the Go files with
// go/parser, so a constant, an alias or a field does not get a kind's name past it: the
// words are the kinds' own (their packages, names and metrics, from kinds.Workloads) and
// kindWords. A kind added is one package and one line in kinds.Workloads.
func TestKindsOwnTheirNames(t *testing.T) {
	words, pkgs := kindVocabulary(t)
	fset := token.NewFileSet()
	var files int
	for _, dir := range sharedDirs(t) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			path := filepath.Join(dir, name)
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, leak := range kindLeaks(fset, f, words, pkgs) {
				t.Error(leak.msg)
			}
		}
	}
	if files < 120 {
		t.Fatalf("read %d files; sharedDirs is wrong", files)
	}
	for pkg, imports := range listImports(t, "./cmd/...") {
		for _, d := range imports {
			if under(d, "executor/workload") {
				t.Errorf("%s imports %s: the CLI (its tests too) reaches the workload kinds only through executor/kinds", pkg, d)
			}
		}
	}
	for pkg, imports := range listImports(t, "./executor/capture/...") {
		for _, d := range imports {
			if pkgs[d] {
				t.Errorf("%s imports %s: capture writes the traffic format (executor/traffic), not a kind", pkg, d)
			}
		}
	}
}

// kindWords are the words of the kinds' own concepts their declarations do not spell:
// tpcc's NewOrder and warehouses, tpm (transactions per minute); oltp (sysbench's scripts,
// the builtin kind's) and custom (a transactions mix), which their packages spelled before
// they took the plan's names, builtin and transactions, which are shared words.
var kindWords = []string{"neworder", "warehouse", "tpm", "oltp", "custom"}

// sharedWords are kinds' names that are also the plan's shared words: the builtin: key and
// a workload's transactions.
var sharedWords = []string{"builtin", "transactions"}

// kindVocabulary is what names a kind: the words (lower case, no underscores) of each kind's
// package, name, values and metrics in kinds.Workloads, and kindWords; and the kinds' import paths.
func kindVocabulary(t *testing.T) (words []string, pkgs map[string]bool) {
	t.Helper()
	pkgs = map[string]bool{}
	add := func(w string) {
		w = strings.ToLower(strings.ReplaceAll(w, "_", ""))
		if w != "" && !slices.Contains(sharedWords, w) && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	for _, k := range kinds.Workloads {
		fn := runtime.FuncForPC(reflect.ValueOf(k.New).Pointer()).Name()
		// fn is PKG.New or PKG.init.func1: the package ends at the first dot after the last slash
		pkg := fn[:strings.LastIndex(fn, "/")+strings.Index(fn[strings.LastIndex(fn, "/"):], ".")]
		if !strings.HasPrefix(pkg, mod+"/executor/workload/") {
			t.Fatalf("kind %s is run by %s, outside executor/workload", k.Spec.Name, fn)
		}
		pkgs[pkg] = true
		add(path.Base(pkg))
		add(k.Spec.Name)
		for _, v := range k.Spec.Values {
			add(v)
		}
		for _, m := range k.Metrics {
			add(m.Name)
		}
	}
	for _, w := range kindWords {
		add(w)
	}
	if len(pkgs) < 5 || !slices.Contains(words, "tpcc") {
		t.Fatalf("kinds.Workloads gave packages %v and words %v", pkgs, words)
	}
	return words, pkgs
}

// kindData are folders of test data written in Go: the folders kinds' runs write, tpcc's
// among them, for the reporters' tests.
var kindData = []string{"reporters/internal/fixture"}

// sharedDirs are the folders of the layers every kind shares.
func sharedDirs(t *testing.T) []string {
	t.Helper()
	dirs := []string{"executor", "executor/workload", "executor/workload/engine", "executor/verify", "cmd/quadrant"}
	for _, root := range []string{"spec", "results", "reporters"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() != "testdata" && !slices.Contains(kindData, p) {
				dirs = append(dirs, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

// leak is a file's naming of a kind: the word (a kind's package path for an import) and
// what to say of it.
type leak struct{ word, msg string }

// kindLeaks are f's imports of a kind's package and its identifiers and strings that name a
// kind's word (case and underscores aside).
func kindLeaks(fset *token.FileSet, f *ast.File, words []string, pkgs map[string]bool) []leak {
	var out []leak
	at := func(n ast.Node) string { return fset.Position(n.Pos()).String() }
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); pkgs[p] {
			out = append(out, leak{p, fmt.Sprintf("%s imports the workload kind %s: ask the registry (executor/kinds) or the kind's declaration", at(im), p)})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.Ident:
			if w := nameOf(n.Name, words, true); w != "" {
				out = append(out, leak{w, fmt.Sprintf("%s: identifier %s names the workload kind's %q: say it in the kind's declaration (workload.Kind)", at(n), n.Name, w)})
			}
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING {
				if w := nameOf(s, words, false); w != "" {
					out = append(out, leak{w, fmt.Sprintf("%s: the string %q is the workload kind's %q: say it in the kind's declaration (workload.Kind)", at(n), s, w)})
				}
			}
		}
		return true
	})
	return out
}

// nameOf is the kind's word that s names: that s contains (an identifier) or is (a string,
// whose prose may mention a kind); "" for none.
func nameOf(s string, words []string, contains bool) string {
	s = strings.ToLower(strings.ReplaceAll(s, "_", ""))
	for _, w := range words {
		if s == w || contains && strings.Contains(s, w) {
			return w
		}
	}
	return ""
}

// listImports maps every package matched by pattern to its direct imports, its tests' included.
func listImports(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			m[f[0]] = f[1:]
		}
	}
	return m
}
