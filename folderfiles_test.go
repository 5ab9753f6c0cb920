package quadrant_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
)

// folderNameAllowed are the string literals outside their owner that spell a name of the
// results folder without meaning that file: file (slash-separated, from the module's root)
// and literal. The list may only shrink: an entry no file has any more fails the test.
var folderNameAllowed = []struct{ file, literal string }{
	// the ConfigMap's key of the plan file the pods mount, not a results folder's plan.yaml
	{"cmd/quadrant/kube/kube.go", "plan.yaml"},
}

// TestFolderFilesNamedByTheirOwner keeps the results folder's layout with those who own it:
// a file or folder of it (results' constants, run.json, summary.csv, timeseries...) is named
// only by package results, and a kind's own table (workload.Kind.Tables) only by its
// kind, so that a reporter or the CLI reads a file through results and a kind's table by
// its declaration, never by a name of its own. It reads every Go file but the tests with
// go/parser: a string literal that is such a name, or a slash-separated path with one as
// an element, anywhere else fails.
func TestFolderFilesNamedByTheirOwner(t *testing.T) {
	owner := folderNames(t) // name -> the directory of the package that owns it
	fset := token.NewFileSet()
	used := map[string]bool{}
	var files int
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor" || p == "results") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, n := range folderNamesIn(f, owner) {
			own := owner[n.name]
			switch {
			case filepath.ToSlash(filepath.Dir(p)) == own:
			case slices.ContainsFunc(folderNameAllowed, func(a struct{ file, literal string }) bool {
				return a.file == filepath.ToSlash(p) && a.literal == n.literal
			}):
				used[filepath.ToSlash(p)+" "+n.literal] = true
			default:
				t.Errorf("%s: the string %q names the results folder's %s, which %s owns: use its constant there, or read a kind's table by its declaration (run.json)",
					fset.Position(n.pos), n.literal, n.name, own)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 300 {
		t.Fatalf("read %d files; the walk is wrong", files)
	}
	for _, a := range folderNameAllowed {
		if !used[a.file+" "+a.literal] {
			t.Errorf("folderNameAllowed lists %s %q, which no longer names it: remove the entry", a.file, a.literal)
		}
	}
}

// folderFileName and folderDirName are how a constant of results names a file or folder of
// the results folder: a NAME.EXT, or a constant NAMEDir's folder name.
var (
	folderFileName = regexp.MustCompile(`^[a-z0-9_-]+\.(csv|json|html|txt|yaml|hlog|md|xml)$`)
	folderDirName  = regexp.MustCompile(`^[a-z]+$`)
)

// folderNames are the names of the results folder, each mapped to the directory of the
// package that owns it: the string constants of package results that name a file or a
// folder of it (parsed from its Go files), and the files of the kinds' own tables (their
// declarations, workload.Kind.Tables), owned by the kind.
func folderNames(t *testing.T) map[string]string {
	t.Helper()
	owner := map[string]string{}
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join("results", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, name := range folderConstants(files) {
		owner[name] = "results"
	}
	for _, k := range kinds.Workloads {
		dir := strings.TrimPrefix(kindPackage(t, k), mod+"/")
		for _, tb := range k.Tables {
			if o, ok := owner[tb.File]; ok && o != dir {
				t.Fatalf("%s is both %s's and %s's", tb.File, o, dir)
			}
			owner[tb.File] = dir
		}
	}
	t.Logf("the folder's names and their owners: %v", owner)
	for _, want := range []string{"run.json", "summary.csv", "timeseries", "report.html", "fingerprints.csv"} {
		if _, ok := owner[want]; !ok {
			t.Fatalf("the folder's names %v lack %s: folderNames is wrong", owner, want)
		}
	}
	return owner
}

func litValue(lit *ast.BasicLit, ok bool) string {
	if !ok || lit.Kind != token.STRING {
		return ""
	}
	return lit.Value
}

// folderName is a string literal of a Go file that names a file or folder of the results
// folder: the literal, the name and where.
type folderName struct {
	literal, name string
	pos           token.Pos
}

// folderNamesIn are f's string literals, imports aside, that are a name of names or a
// slash-separated path (no spaces: not prose) with one as an element.
func folderNamesIn(f *ast.File, names map[string]string) []folderName {
	var out []folderName
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.BasicLit:
			s, err := strconv.Unquote(litValue(n, true))
			if err != nil || strings.ContainsAny(s, " \t\n") {
				return true
			}
			for _, el := range strings.Split(path.Clean(s), "/") {
				if _, ok := names[el]; ok {
					out = append(out, folderName{s, el, n.Pos()})
					break
				}
			}
		}
		return true
	})
	return out
}

// folderConstants are the string constants of files that name a file or (a ...Dir
// constant) a folder of the results folder.
func folderConstants(files []*ast.File) []string {
	var out []string
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					s, err := strconv.Unquote(litValue(lit, ok))
					if err != nil || i >= len(vs.Names) {
						continue
					}
					if folderFileName.MatchString(s) || strings.HasSuffix(vs.Names[i].Name, "Dir") && folderDirName.MatchString(s) {
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}
