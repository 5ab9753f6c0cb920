package kinds_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// contractField is one field of a kind's struct and the section it stands in.
type contractField struct{ name, group string }

// section marks a group of a kind struct's fields: "// == Decode and check ==".
var section = regexp.MustCompile(`^// == (.+) ==$`)

// The kind contract is one table per struct in docs/architecture.md, each field with its
// group, what it is for and what nil means: a field added to spec.Kind or spec.StepKind, or
// one removed or moved to another group, fails here until the table says so.
func TestKindContractTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, typ string }{{"../../spec/kind.go", "Kind"}, {"../../spec/stepkind.go", "StepKind"}} {
		fields := structSections(t, c.file, c.typ)
		if len(fields) < 20 {
			t.Fatalf("%s in %s: read %d fields", c.typ, c.file, len(fields))
		}
		rows := contractTable(t, string(doc), "spec."+c.typ)
		inStruct := map[string]bool{}
		for _, f := range fields {
			inStruct[f.name] = true
			group, ok := rows[f.name]
			switch {
			case !ok:
				t.Errorf("spec.%s.%s (%s) has no row in docs/architecture.md's kind contract: add one (group, what it is for, what nil means)", c.typ, f.name, f.group)
			case group != f.group:
				t.Errorf("spec.%s.%s stands under %q in %s, its row in docs/architecture.md says %q", c.typ, f.name, f.group, c.file, group)
			}
		}
		for name := range rows {
			if !inStruct[name] {
				t.Errorf("docs/architecture.md's kind contract has a row for spec.%s.%s, which %s no longer declares: remove it", c.typ, name, c.file)
			}
		}
	}
}

// structSections are typ's fields in file, in order, each with its section's group (lower
// case); a field before any section fails the test.
func structSections(t *testing.T, file, typ string) []contractField {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var st *ast.StructType
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == typ {
			st, _ = ts.Type.(*ast.StructType)
		}
		return st == nil
	})
	if st == nil {
		t.Fatalf("%s declares no struct %s", file, typ)
	}
	type mark struct {
		at    token.Pos
		group string
	}
	var marks []mark
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if m := section.FindStringSubmatch(c.Text); m != nil && c.Pos() > st.Pos() && c.End() < st.End() {
				marks = append(marks, mark{c.Pos(), strings.ToLower(m[1])})
			}
		}
	}
	var out []contractField
	for _, fl := range st.Fields.List {
		group := ""
		for _, m := range marks {
			if m.at < fl.Pos() {
				group = m.group
			}
		}
		for _, n := range fl.Names {
			if group == "" {
				t.Errorf("%s.%s stands before any section (// == GROUP ==) of %s", typ, n.Name, file)
			}
			out = append(out, contractField{n.Name, group})
		}
	}
	return out
}

// contractTable maps the fields of the table under "### `title`" in the section "## The
// kind contract" of doc to their group column.
func contractTable(t *testing.T, doc, title string) map[string]string {
	t.Helper()
	_, contract, ok := strings.Cut(doc, "\n## The kind contract\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no section "## The kind contract"`)
	}
	contract, _, _ = strings.Cut(contract, "\n## ")
	_, table, ok := strings.Cut(contract, "\n### `"+title+"`\n")
	if !ok {
		t.Fatalf("docs/architecture.md's kind contract has no table \"### `%s`\"", title)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimLeft(table, "\n"), "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		name := strings.Trim(strings.TrimSpace(cells[0]), "`")
		if name == "field" || strings.HasPrefix(name, "---") {
			continue
		}
		if len(cells) != 4 || strings.TrimSpace(cells[3]) == "" || strings.TrimSpace(cells[2]) == "" {
			t.Errorf("docs/architecture.md, %s's row %q: want field, group, what it is for, what nil means", title, line)
		}
		if _, dup := rows[name]; dup {
			t.Errorf("docs/architecture.md, %s: two rows for %s", title, name)
		}
		rows[name] = strings.TrimSpace(cells[1])
	}
	return rows
}
