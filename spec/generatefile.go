package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// LoadGenerate reads the body of a generate: step from a YAML file of its own (quadrant
// generate --settings): the keys of generate: (schema, database, seed, threads, tables),
// decoded and checked as in a plan, every problem at file:line:col. schema: is relative to
// the file's directory, as it is to a plan's.
func LoadGenerate(path string) (*Generate, error) { return LoadGenerateWith(path, nil) }

// LoadGenerateWith is LoadGenerate with edit applied to the decoded settings before they
// are checked (quadrant generate --validate's --rows), so the checks see the rows asked; an
// error of edit is reported at the file.
func LoadGenerateWith(path string, edit func(*Generate) error) (*Generate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Errors{{Pos: Pos{File: path}, Msg: fmt.Sprintf("cannot read the generate settings: %v", err)}}
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, Errors{{Pos: Pos{File: path, Line: 1, Col: 1}, Msg: "the generate settings file is empty; give at least tables: {TABLE: {rows: N}}"}}
	}
	errs := &errorList{}
	t := newTree()
	root := t.parse(path, data, errs)
	if root == nil {
		return nil, errs.result(t.files)
	}
	// No vars nor targets here: a ${{ }} in the file is reported as in a plan's vars: section.
	sc := &scope{where: "the generate settings file", env: osEnv(), envUsed: map[string]bool{}, unbound: map[string]bool{}}
	d := &decoder{t: t, errs: errs, scope: sc}
	g := &Generate{}
	d.decode(root, reflect.ValueOf(g).Elem(), "generate")
	if edit != nil {
		if err := edit(g); err != nil {
			return nil, Errors{{Pos: Pos{File: path}, Msg: err.Error()}}
		}
	}
	p := &Plan{File: path, Dir: filepath.Dir(path)}
	g.validate(&validator{d: d, p: p})
	if err := errs.result(t.files); err != nil {
		return nil, err
	}
	return g, nil
}
