package spec

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/expr-lang/expr/ast"
	"go.yaml.in/yaml/v3"
)

// What a kind's own plan types (a step body declared in the kind's package: generate's
// settings, its tables and columns) borrow from spec to read, check and document
// themselves as spec's own types do, with the same messages at the same positions.

// PlanSchemaer is a kind's plan type whose JSON Schema its Go shape does not say (a map
// that keeps its order, a value written several ways).
type PlanSchemaer interface {
	PlanSchema() map[string]any
}

// PlanTyped is a kind's plan type that says its own type in the plan reference's tables
// ("map TABLE: [generate_table](#generate_table)").
type PlanTyped interface {
	PlanType() string
}

// Sectioned is a step body whose own types have sections of their own in the plan
// reference, after the body's (a generate's tables and columns).
type Sectioned interface {
	PlanSections() []reflect.Type
}

// Pos is n's position in the plan.
func (d Decoding) Pos(n *yaml.Node) Pos { return d.d.t.pos(n) }

// List returns the items of a sequence, or of a ${{ }} that gives a list; false (the
// error reported) for anything else.
func (d Decoding) List(n *yaml.Node, name string) ([]*yaml.Node, bool) { return d.d.list(n, name) }

// DecodeNamed decodes a mapping of NAME: VALUE into one T a name, in written order (merge
// keys expanded), each decoded as what+" "+NAME and then handed to named with its key.
func DecodeNamed[T any](d Decoding, n *yaml.Node, what string, named func(t *T, key *yaml.Node)) []T {
	return decodeNamed(d.d, n, what, named)
}

// DescribeNode says what n is in a message: "a mapping", "the number 5".
func DescribeNode(n *yaml.Node) string { return describeNode(n) }

// ExprError is where in an expression written at p an error of expr's parser or checker
// points, and its message without expr's position.
func ExprError(p Pos, err error) (Pos, string) { return at(p, err), exprMessage(err) }

// ExprNodes are the nodes of an expression's tree, and which of them are called (a
// function's name).
func ExprNodes(root ast.Node) (nodes []ast.Node, callees map[ast.Node]bool) {
	nodes, _, callees = exprNodes(root)
	return nodes, callees
}

// Path resolves a file the step reads, relative to the plan's directory, reports it at pos
// when it does not exist, and declares the read (the trust check judges it).
func (c *Check) Path(name string, pos Pos, what string) string { return c.v.path(name, pos, what) }

// ReadFile reads the file at path (as Path resolved it, through the plan's file system),
// or nil when it is larger than limit.
func (c *Check) ReadFile(path string, limit int64) ([]byte, error) {
	var st fs.FileInfo
	var err error
	fsys := c.v.d.fsys
	if fsys != nil {
		st, err = fs.Stat(fsys, filepath.ToSlash(path))
	} else {
		st, err = os.Stat(path)
	}
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, nil
	}
	if fsys != nil {
		return fs.ReadFile(fsys, filepath.ToSlash(path))
	}
	return os.ReadFile(path)
}

// BodyFile says how LoadBody reads a step's body from a YAML file of its own.
type BodyFile struct {
	// Key is the step key the body is written under in a plan ("generate"): the name its
	// messages give the file's top level.
	Key string
	// What names the file in messages ("the generate settings").
	What string
	// Empty is the error of a file with nothing in it: what to write there.
	Empty string
}

// LoadBody reads a step's body from a YAML file of its own (quadrant generate
// --settings), decoded into body as in a plan, every problem at file:line:col, then
// checked by check, with paths relative to the file's directory. An error check returns
// is reported at the file, alone. No vars nor targets here: a ${{ }} in the file is
// reported as in a plan's vars: section.
func LoadBody(path string, f BodyFile, body any, check func(c *Check) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return Errors{{Pos: Pos{File: path}, Msg: fmt.Sprintf("cannot read %s: %v", f.What, err)}}
	}
	if strings.TrimSpace(string(data)) == "" {
		return Errors{{Pos: Pos{File: path, Line: 1, Col: 1}, Msg: f.Empty}}
	}
	errs := &errorList{}
	t := newTree()
	root := t.parse(path, data, errs)
	if root == nil {
		return errs.result(t.files)
	}
	sc := &scope{where: f.What + " file", env: osEnv(), envUsed: map[string]bool{}, unbound: map[string]bool{}}
	d := &decoder{t: t, errs: errs, scope: sc}
	d.decode(root, reflect.ValueOf(body).Elem(), f.Key)
	p := &Plan{File: path, Dir: filepath.Dir(path)}
	if err := check(&Check{v: &validator{d: d, p: p}}); err != nil {
		return Errors{{Pos: Pos{File: path}, Msg: err.Error()}}
	}
	return errs.result(t.files)
}
