package generate

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/quadrant-bench/quadrant/executor/generate/genplan"
	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// exprParent is the parent an expr's parent.COLUMN reads: the per_parent one, else the only
// table the foreign keys reference; -1 when there is none.
func exprParent(ti *tableInfo, t Table) int {
	if t.PerParent != nil {
		fi, err := perParentFK(ti, t.PerParent)
		if err != nil {
			return -1
		}
		return fi
	}
	for _, f := range ti.fks {
		if f.parent != ti.fks[0].parent {
			return -1
		}
	}
	if len(ti.fks) == 0 {
		return -1
	}
	return 0
}

func exprColumns(cols []*column) []genplan.ExprColumn {
	var out []genplan.ExprColumn
	for _, c := range cols {
		if !c.generated {
			out = append(out, genplan.ExprColumn{Name: c.name, Type: c.dataType})
		}
	}
	return out
}

// exprRow is what an expr column needs at a row: the table's columns it names, the parent
// row (through pick) and the row's line among its parent's.
type exprRow struct {
	tp         *tablePlan
	parent     *tablePlan
	pick       func(row int64) (int64, bool)
	parentType reflect.Type
	parentCols []genplan.ExprColumn
	lineOf     func(row int64) int64
}

// exprGen compiles column c's expression and makes its values; uses are the columns of its
// row it reads (for the cycle check).
func exprGen(c *column, src string, er exprRow, cols []genplan.ExprColumn) (valueGen, []string, error) {
	_, uses, err := genplan.CompileGenerateExpr(src, genplan.ExprColumn{Name: c.name, Type: c.dataType}, cols, er.parentCols, genplan.ExprDraws{})
	if err != nil {
		return nil, nil, fmt.Errorf("expr %q: %w", src, err)
	}
	var parentIdx []int
	for _, n := range uses.Parent {
		parentIdx = append(parentIdx, slices.IndexFunc(er.parentCols, func(pc genplan.ExprColumn) bool { return pc.Name == n }))
	}
	// a program, VM and environment per goroutine at a time, its draws bound to the row's
	// stream through a holder: no map, closure or VM made per row
	type scratch struct {
		prog   *vm.Program
		vm     vm.VM
		env    map[string]any
		parent reflect.Value
		r      *stream
	}
	pool := sync.Pool{New: func() any {
		sc := &scratch{env: map[string]any{}}
		draws := genplan.ExprDraws{Float: func() float64 { return sc.r.float() }, Zipf: func(n uint64) uint64 { return zipf(sc.r, n) }}
		// it compiled above with the same source and columns
		sc.prog, _, _ = genplan.CompileGenerateExpr(src, genplan.ExprColumn{Name: c.name, Type: c.dataType}, cols, er.parentCols, draws)
		if er.parentType != nil {
			sc.parent = reflect.New(er.parentType).Elem()
		}
		return sc
	}}
	g := func(dst []byte, row int64, r *stream) ([]byte, error) {
		sc := pool.Get().(*scratch)
		defer pool.Put(sc)
		sc.r = r
		env := sc.env
		env["line"] = int64(0)
		if uses.Line {
			env["line"] = er.lineOf(row)
		}
		for _, n := range uses.Columns {
			v, err := er.tp.byName[n].value(row)
			if err != nil {
				return dst, err
			}
			env[n] = v
		}
		if er.parentType != nil {
			pv := sc.parent
			pv.SetZero()
			pr, _ := er.pick(row)
			for i, n := range uses.Parent {
				v, err := er.parent.byName[n].value(pr)
				if err != nil {
					return dst, err
				}
				if v != nil {
					pv.Field(parentIdx[i]).Set(reflect.ValueOf(v))
				}
			}
			env["parent"] = pv.Interface()
		}
		out, err := sc.vm.Run(sc.prog, env)
		if err != nil {
			return dst, fmt.Errorf("expr %q at row %d: %w", src, row+1, err)
		}
		return appendValue(dst, c, out)
	}
	return func(dst []byte, row int64, r *stream) []byte {
		out, err := g(dst, row, r)
		if err != nil {
			// a value generator has no error to return: the table keeps the first, which
			// the load returns, and the row gets NULL meanwhile
			er.tp.fail(fmt.Errorf("%s.%s: %w", er.tp.name, c.name, err))
			return append(dst, "NULL"...)
		}
		return out
	}, uses.Columns, nil
}

// value is the column's value at row as an expression sees it: its literal read back.
func (cp *colPlan) value(row int64) (any, error) {
	lit := string(cp.emit(nil, row))
	if lit == "NULL" {
		return nil, nil
	}
	switch genplan.ExprType(cp.col.dataType) {
	case reflect.TypeFor[time.Time]():
		layout := "2006-01-02 15:04:05" // the layouts timeGen and uniqueGen write
		if cp.col.dataType == "date" {
			layout = "2006-01-02"
		}
		if t, err := time.Parse(layout, strings.Trim(lit, "'")); err == nil {
			return t, nil
		}
		return ddl.ParseTime(strings.Trim(lit, "'"))
	case reflect.TypeFor[float64]():
		return strconv.ParseFloat(strings.Trim(lit, "'"), 64)
	case reflect.TypeFor[int]():
		return strconv.Atoi(strings.Trim(lit, "'"))
	}
	return readQuoted(lit), nil
}

// readQuoted reads back a literal of appendQuoted.
func readQuoted(lit string) string {
	lit = strings.TrimPrefix(strings.TrimSuffix(lit, "'"), "'")
	if !strings.Contains(lit, `\`) {
		return lit
	}
	var b strings.Builder
	for i := 0; i < len(lit); i++ {
		if lit[i] == '\\' && i+1 < len(lit) {
			i++
		}
		b.WriteByte(lit[i])
	}
	return b.String()
}

// appendValue writes an expression's result as a literal of column c.
func appendValue(dst []byte, c *column, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "NULL"...), nil
	case time.Time:
		switch c.dataType {
		case "date":
			return appendQuoted(dst, x.Format("2006-01-02")), nil
		case "datetime", "timestamp":
			return appendQuoted(dst, x.Format("2006-01-02 15:04:05")), nil
		}
		return appendQuoted(dst, x.Format("2006-01-02 15:04:05")), nil
	case bool:
		if x {
			return append(dst, '1'), nil
		}
		return append(dst, '0'), nil
	case string:
		return appendQuoted(dst, x), nil
	}
	f, ok := number(v)
	if !ok {
		return appendQuoted(dst, fmt.Sprint(v)), nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, fmt.Errorf("%s: the expression gave %v", c.name, f)
	}
	switch genplan.ExprType(c.dataType) {
	case reflect.TypeFor[int]():
		return strconv.AppendInt(dst, int64(math.Floor(f)), 10), nil
	case reflect.TypeFor[float64]():
		scale := int(c.scale)
		if c.dataType != "decimal" && c.dataType != "numeric" {
			scale = -1
		}
		return strconv.AppendFloat(dst, f, 'f', scale, 64), nil
	}
	return appendQuoted(dst, strconv.FormatFloat(f, 'f', -1, 64)), nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case time.Duration:
		return x.Seconds(), true
	}
	return 0, false
}
