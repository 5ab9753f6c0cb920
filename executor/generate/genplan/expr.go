package genplan

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// A generate column's expr: is an expression over the same row's other columns (by name),
// its parent row's columns (parent.COLUMN, through the foreign key), line (the row's number
// among its parent's rows, from 0) and random draws. Spec compiles it (at validate against
// the schema file's columns, at the run against the server's); executor/generate runs it
// with the draws bound to the row's own random stream.

// ExprColumn is a column as an expression sees it: its name and SQL type (int, date...).
type ExprColumn struct {
	Name, Type string
}

// ExprDraws are the functions an expression draws with; Bind gives them a row's stream.
type ExprDraws struct {
	Float func() float64 // uniform in [0, 1)
	Zipf  func(n uint64) uint64
}

// exprFuncs are the names of the draw and time functions, for messages.
var exprFuncs = []string{"uniform", "normal", "zipf", "choice", "days", "hours", "minutes", "seconds", "date"}

// Options are the functions of an expression, drawing from d, as expr.Function with typed
// signatures: the checker knows their types, and the VM calls them without reflection (a
// function in the environment is called through reflect, most of an expr's cost per row).
// A program compiled with them draws from d: compile one per stream holder.
func (d ExprDraws) Options() []expr.Option {
	dur := func(name string, unit time.Duration) expr.Option {
		return expr.Function(name, func(p ...any) (any, error) { return time.Duration(exprFloat(p[0]) * float64(unit)), nil },
			new(func(float64) time.Duration))
	}
	return []expr.Option{
		expr.Function("uniform", func(p ...any) (any, error) {
			a, b := exprFloat(p[0]), exprFloat(p[1])
			return a + (b-a)*d.Float(), nil
		}, new(func(float64, float64) float64)),
		expr.Function("normal", func(p ...any) (any, error) {
			mean, sd := exprFloat(p[0]), exprFloat(p[1])
			u1, u2 := d.Float(), d.Float()
			return mean + sd*math.Sqrt(-2*math.Log(1-u1))*math.Cos(2*math.Pi*u2), nil
		}, new(func(float64, float64) float64)),
		expr.Function("zipf", func(p ...any) (any, error) {
			return int(d.Zipf(uint64(max(exprInt(p[0]), 1)))), nil
		}, new(func(int) int)),
		expr.Function("choice", func(xs ...any) (any, error) {
			return xs[int(d.Float()*float64(len(xs)))%max(len(xs), 1)], nil
		}, new(func(...any) any)),
		dur("days", 24*time.Hour), dur("hours", time.Hour), dur("minutes", time.Minute), dur("seconds", time.Second),
		expr.Function("date", func(p ...any) (any, error) {
			s, _ := p[0].(string)
			t, _ := ddl.ParseTime(s)
			return t, nil
		}, new(func(string) time.Time)),
	}
}

// exprFloat is a number argument as a float64 parameter takes it.
func exprFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float32:
		return float64(x)
	case time.Duration:
		return float64(x)
	}
	f, _ := reflect.ValueOf(v).Convert(reflect.TypeFor[float64]()).Interface().(float64)
	return f
}

// exprInt is a number argument as an int parameter takes it.
func exprInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case float64:
		return int(x)
	}
	i, _ := reflect.ValueOf(v).Convert(reflect.TypeFor[int]()).Interface().(int)
	return i
}

// ExprType is the Go type an expression holds a column of SQL type typ in.
func ExprType(typ string) reflect.Type {
	switch {
	case typ == "date" || typ == "datetime" || typ == "timestamp":
		return reflect.TypeFor[time.Time]()
	case typ == "decimal" || typ == "numeric" || typ == "float" || typ == "double" || typ == "real":
		return reflect.TypeFor[float64]()
	}
	if _, _, ok := ddl.IntRange(typ, false); ok || typ == "year" || typ == "bit" {
		return reflect.TypeFor[int]()
	}
	return reflect.TypeFor[string]()
}

// ParentType is the type of parent in an expression: a struct of the parent's columns, each
// under its own name (a struct, not a map, so that parent.hire_date has its type).
func ParentType(cols []ExprColumn) reflect.Type {
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		fields[i] = reflect.StructField{Name: fmt.Sprintf("C%d", i), Type: ExprType(c.Type), Tag: reflect.StructTag(`expr:"` + c.Name + `"`)}
	}
	return reflect.StructOf(fields)
}

// ExprUses is what an expression names: the row's columns and its parent's.
type ExprUses struct {
	Columns, Parent []string
	Line            bool // it reads line
}

// CompileGenerateExpr compiles the expr of column col (of type typ) of a table with columns
// cols and parent columns parentCols (nil: no parent), checking what it names and the type
// it gives; its draws come from draws (zero at validate, which never runs it). An error's position is the one in the expression's source (file.Error).
func CompileGenerateExpr(src string, col ExprColumn, cols, parentCols []ExprColumn, draws ExprDraws) (*vm.Program, ExprUses, error) {
	var uses ExprUses
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, uses, err
	}
	var bad error
	located := func(n ast.Node, err error) error {
		return (&file.Error{Location: n.Location(), Message: err.Error()}).Bind(file.NewSource(src))
	}
	names := func(cs []ExprColumn) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	has := func(cs []ExprColumn, n string) bool { return slices.Contains(names(cs), n) }
	nodes, callees := spec.ExprNodes(tree.Node)
	for _, n := range nodes {
		switch x := n.(type) {
		case *ast.MemberNode:
			root, ok := x.Node.(*ast.IdentifierNode)
			prop, isStr := x.Property.(*ast.StringNode)
			if !ok || root.Value != "parent" || !isStr || bad != nil {
				continue
			}
			switch {
			case parentCols == nil:
				bad = located(prop, fmt.Errorf("%s has no parent to read %s from (parent.COLUMN reads the row its foreign key points at; the table has no foreign key, or references several tables: give per_parent: {parent: TABLE})", col.Name, prop.Value))
			case !has(parentCols, prop.Value):
				bad = located(prop, fmt.Errorf("the parent row has no column %s (it has %s)%s", prop.Value, strings.Join(names(parentCols), ", "), spec.Suggest(prop.Value, names(parentCols))))
			default:
				uses.Parent = append(uses.Parent, prop.Value)
			}
		case *ast.IdentifierNode:
			uses.Line = uses.Line || x.Value == "line" && !callees[n]
			switch {
			case bad != nil || x.Value == "parent" || x.Value == "line" || callees[n] && slices.Contains(exprFuncs, x.Value):
			case callees[n]:
				if !slices.Contains(builtin.Names, x.Value) {
					bad = located(x, fmt.Errorf("unknown function %s; the draws are %s", x.Value, strings.Join(exprFuncs, ", ")))
				}
			case x.Value == col.Name:
				bad = located(x, fmt.Errorf("%s names itself; an expression makes a column from the others", col.Name))
			case !has(cols, x.Value):
				bad = located(x, fmt.Errorf("unknown column %s (the row has %s; parent.COLUMN for the parent's)%s", x.Value, strings.Join(names(cols), ", "), spec.Suggest(x.Value, names(cols))))
			default:
				uses.Columns = append(uses.Columns, x.Value)
			}
		}
	}
	if bad != nil {
		return nil, uses, bad
	}
	prog, err := expr.Compile(src, append(draws.Options(), expr.Env(ExprEnv(cols, parentCols)))...)
	if err != nil {
		return nil, uses, err
	}
	if err := resultFits(prog.Node().Type(), col); err != nil {
		return nil, uses, err
	}
	return prog, uses, nil
}

// ExprEnv is an expression's environment with zero values of each column's type (for a
// compile).
func ExprEnv(cols, parentCols []ExprColumn) map[string]any {
	env := map[string]any{"line": 0}
	for _, c := range cols {
		env[c.Name] = reflect.Zero(ExprType(c.Type)).Interface()
	}
	if parentCols != nil {
		env["parent"] = reflect.Zero(ParentType(parentCols)).Interface()
	}
	return env
}

// resultFits refuses an expression whose type cannot fill the column.
func resultFits(got reflect.Type, col ExprColumn) error {
	if got == nil || got.Kind() == reflect.Interface {
		return nil // choice(...), known at the run only
	}
	want := ExprType(col.Type)
	num := func(t reflect.Type) bool { return t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64 }
	switch {
	case got == want, num(got) && num(want), want.Kind() == reflect.String:
		return nil
	}
	return fmt.Errorf("it gives %s, and %s is %s (%s); %s", exprKind(got), col.Name, col.Type, exprKind(want), exprHint(want))
}

func exprKind(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "a time"
	case t == reflect.TypeFor[time.Duration]():
		return "a duration"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return "a number"
	}
	return t.String()
}

func exprHint(want reflect.Type) string {
	if want == reflect.TypeFor[time.Time]() {
		return "add a duration to a date, e.g. parent.hire_date + days(uniform(0, 3650)) or date(\"1985-01-01\") + days(line * 30)"
	}
	return "give it a number, e.g. uniform(1, 100)"
}
