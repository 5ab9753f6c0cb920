package generate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// colPlan makes one inserted column's values.
type colPlan struct {
	col  *column
	key  uint64 // of the column's stream
	null float64
	base valueGen
}

func (cp *colPlan) emit(dst []byte, row int64) []byte {
	r := newStream(cp.key, row)
	if cp.null > 0 && r.float() < cp.null {
		return append(dst, "NULL"...)
	}
	return cp.base(dst, row, &r)
}

// tablePlan makes a table's rows: row i of it is the same wherever it is asked for, which
// is how a child takes its parent's keys without reading them back.
type tablePlan struct {
	name   string
	rows   int64
	gens   []*colPlan // the inserted columns, in table order
	byName map[string]*colPlan

	failed atomic.Pointer[error] // the first value an expr column could not make
}

func (tp *tablePlan) fail(err error) { tp.failed.CompareAndSwap(nil, &err) }

// failure is the first error of an expr column, or nil.
func (tp *tablePlan) failure() error {
	if p := tp.failed.Load(); p != nil {
		return *p
	}
	return nil
}

func (tp *tablePlan) appendRow(dst []byte, row int64) []byte {
	for i, g := range tp.gens {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = g.emit(dst, row)
	}
	return dst
}

// layout spreads a child's rows over its parent's for a composite key like (order_id,
// line): the rows of one parent are consecutive, numbered 0, 1, 2... within it, so the
// pair never repeats.
type layout struct {
	start []int64 // start[p] is the first row of parent row p; start[M] the row count
	most  int64   // the most rows one parent got
}

func (l *layout) at(row int64) (parent, line int64) {
	p := sort.Search(len(l.start)-1, func(i int) bool { return l.start[i+1] > row })
	return int64(p), row - l.start[p]
}

// fkMode is how a foreign key picks its parent row.
type fkMode int

const (
	fkDrawn  fkMode = iota // by its distribution, row by row
	fkUnique               // a permutation of the parent's rows: a unique foreign key (1:1)
	fkLayout               // by the table's layout (the first of a composite key)
	fkLine                 // the line within the layout's parent (the second of a composite key)
)

type role int

const (
	free role = iota
	autoInc
	unique
	line
)

func planTable(seed int64, ti *tableInfo, t Table, parents map[string]*tablePlan) (*tablePlan, error) {
	tp := &tablePlan{name: ti.name, rows: t.Rows, byName: map[string]*colPlan{}}
	for _, name := range sortedKeys(t.Columns) {
		c := ti.column(name)
		if c == nil {
			return nil, fmt.Errorf("tables: %s: no column %s in table %s; check the name against the schema", t.Name, name, ti.name)
		}
		if c.generated {
			if p := ddl.Problems(ti.name+"."+name, c.spec(), ddl.Free, t.Columns[name].rule()); len(p) > 0 {
				return nil, fmt.Errorf("tables: %s", p[0].Msg)
			}
		}
	}
	roles := map[string]role{}
	fkOf := map[string]int{} // column -> its first foreign key
	for i, k := range ti.fks {
		for _, c := range k.cols {
			if _, ok := fkOf[c]; !ok {
				fkOf[c] = i
			}
		}
	}
	for _, c := range ti.cols {
		if c.autoInc {
			roles[c.name] = autoInc
		}
	}
	modes := make([]fkMode, len(ti.fks))
	layoutFK, lineFK := -1, -1
	lineCol := ""
	var perParent *layout // the layout of a table given per_parent, from its parent's counts
	if t.PerParent != nil {
		fi, err := perParentFK(ti, t.PerParent)
		if err != nil {
			return nil, err
		}
		perParent = countLayout(hashName(strconv.FormatInt(seed, 10), ti.name, "per-parent"), parents[ti.fks[fi].parent].rows, t.PerParent)
		t.Rows = perParent.start[len(perParent.start)-1]
		tp.rows = t.Rows
		layoutFK, modes[fi] = fi, fkLayout
	}
	for _, k := range ti.uniques {
		if slices.ContainsFunc(k.cols, func(c string) bool { return roles[c] == autoInc || roles[c] == unique }) {
			continue
		}
		var fksIn []int
		for i, f := range ti.fks {
			if subset(f.cols, k.cols) && (modes[i] == fkDrawn || modes[i] == fkLayout) {
				fksIn = append(fksIn, i)
			}
		}
		if layoutFK >= 0 && slices.Contains(fksIn, layoutFK) && (slices.Contains(k.cols, lineCol) || slices.Contains(fksIn, lineFK)) {
			continue
		}
		var own []string // the key's columns outside any foreign key
		for _, c := range k.cols {
			if _, inFK := fkOf[c]; !inFK && !ti.column(c).generated {
				own = append(own, c)
			}
		}
		switch {
		case len(fksIn) == 0:
			if len(own) == 0 {
				return nil, fmt.Errorf("table %s: key %s has no column generate can make unique (only generated columns or foreign keys it cannot combine); fill this table yourself", ti.name, k.name)
			}
			// the last column that can hold rows distinct values (a CHAR code rather than
			// the TINYINT beside it)
			pickedCol := ""
			for i := len(own) - 1; i >= 0 && pickedCol == ""; i-- {
				if _, err := uniqueGen(ti.column(own[i]), t.Columns[own[i]], t.Rows); err == nil {
					pickedCol = own[i]
				}
			}
			if pickedCol == "" {
				_, err := uniqueGen(ti.column(own[len(own)-1]), t.Columns[own[len(own)-1]], t.Rows)
				return nil, fmt.Errorf("%s.%s is made unique (it is in key %s): %w", ti.name, own[len(own)-1], k.name, err)
			}
			roles[pickedCol] = unique
		case len(fksIn) == 1 && len(own) == 0 && len(ti.fks[fksIn[0]].cols) == len(k.cols) && perParent != nil && fksIn[0] == layoutFK:
			if perParent.most > 1 {
				return nil, fmt.Errorf("table %s: key %s makes its foreign key to %s unique, so a parent row has at most 1 row, and per_parent gives one %d; lower it to 1 or give rows: N", ti.name, k.name, ti.fks[layoutFK].parent, perParent.most)
			}
		case len(fksIn) == 1 && len(own) == 0 && len(ti.fks[fksIn[0]].cols) == len(k.cols):
			modes[fksIn[0]] = fkUnique
		case (layoutFK < 0 || presetIn(fksIn, layoutFK, lineCol, lineFK)) && len(own) > 0:
			if layoutFK < 0 {
				layoutFK = fksIn[0]
			}
			lineCol = own[len(own)-1]
			modes[layoutFK] = fkLayout
			roles[lineCol] = line
		case (layoutFK < 0 || presetIn(fksIn, layoutFK, lineCol, lineFK)) && len(fksIn) >= 2:
			if layoutFK < 0 {
				layoutFK = fksIn[0]
			}
			lineFK = fksIn[slices.IndexFunc(fksIn, func(i int) bool { return i != layoutFK })]
			modes[layoutFK], modes[lineFK] = fkLayout, fkLine
		default:
			return nil, fmt.Errorf("table %s: key %s (%s) needs a second per-parent sequence, which generate does not build yet; fill this table yourself or drop the key before generating", ti.name, k.name, strings.Join(k.cols, ", "))
		}
	}

	// Foreign keys pick a parent row per child row; every column of the key then takes
	// that row's value, so a composite key points at one real parent row.
	type fkPick struct {
		parent *tablePlan
		pick   func(row int64) (int64, bool) // false: this row's parent is out of range
	}
	picks := make([]fkPick, len(ti.fks))
	var lay *layout
	drawn := func(i int) (func(row int64) int64, error) {
		f := ti.fks[i]
		p := parents[f.parent]
		if p.rows == 0 && t.Rows > 0 {
			return nil, fmt.Errorf("table %s: foreign key %s references %s, which gets 0 rows; give %s rows", ti.name, f.name, f.parent, f.parent)
		}
		dist := fkDistribution(f, t)
		key := hashName(strconv.FormatInt(seed, 10), ti.name, "fk", f.name)
		m := uint64(p.rows)
		// zipf and normal favour low ranks; the permutation spreads the favoured parents
		// over the table instead of its first rows.
		scatter := newPerm(m, key^0x5bd1e995)
		return func(row int64) int64 {
			r := newStream(key, row)
			x := r.pick(dist, m, row)
			if dist == "zipf" || dist == "normal" {
				x = scatter.at(x)
			}
			return int64(x)
		}, nil
	}
	for i, f := range ti.fks {
		p := parents[f.parent]
		if p == nil {
			return nil, fmt.Errorf("table %s: foreign key %s references %s, which is not planned before it", ti.name, f.name, f.parent)
		}
		for _, pc := range f.parentCols {
			if p.byName[pc] == nil {
				return nil, fmt.Errorf("table %s: foreign key %s references %s.%s, which generate does not fill (a generated column); fill these tables yourself", ti.name, f.name, f.parent, pc)
			}
		}
		picks[i].parent = p
		switch modes[i] {
		case fkDrawn:
			d, err := drawn(i)
			if err != nil {
				return nil, err
			}
			picks[i].pick = func(row int64) (int64, bool) { return d(row), true }
		case fkUnique:
			if t.Rows > p.rows {
				return nil, fmt.Errorf("table %s: foreign key %s is unique, so each of its %d rows needs its own row of %s, which gets %d; lower rows or raise %s's", ti.name, f.name, t.Rows, f.parent, p.rows, f.parent)
			}
			pm := newPerm(uint64(p.rows), hashName(strconv.FormatInt(seed, 10), ti.name, "fk-unique", f.name))
			picks[i].pick = func(row int64) (int64, bool) { return int64(pm.at(uint64(row))), true }
		case fkLayout:
			d, err := drawn(i)
			if err != nil {
				return nil, err
			}
			limit := int64(math.MaxInt64)
			if lineFK >= 0 {
				limit = parents[ti.fks[lineFK].parent].rows
			}
			switch {
			case perParent != nil && perParent.most > limit:
				return nil, fmt.Errorf("table %s: per_parent gives one %s row %d rows, each with its own row of %s, which gets %d; lower per_parent or give %s more rows", ti.name, f.parent, perParent.most, ti.fks[lineFK].parent, limit, ti.fks[lineFK].parent)
			case perParent != nil:
				lay = perParent
			default:
				if lay, err = buildLayout(t.Rows, p.rows, limit, d); err != nil {
					return nil, fmt.Errorf("table %s: %w", ti.name, err)
				}
			}
			picks[i].pick = func(row int64) (int64, bool) { p, _ := lay.at(row); return p, true }
		}
	}
	if lineFK >= 0 {
		p := parents[ti.fks[lineFK].parent]
		f := ti.fks[lineFK]
		dd := newDistinctDraws(hashName(strconv.FormatInt(seed, 10), ti.name, "fk-line", f.name), fkDistribution(f, t), uint64(p.rows))
		picks[lineFK].pick = func(row int64) (int64, bool) {
			par, l := lay.at(row)
			return int64(dd.at(par, l, lay.start[par+1]-lay.start[par])), true
		}
	}

	er := exprRow{tp: tp, lineOf: func(int64) int64 { return 0 }}
	if fi := exprParent(ti, t); fi >= 0 {
		er.parent, er.pick = picks[fi].parent, picks[fi].pick
		for _, g := range er.parent.gens {
			er.parentCols = append(er.parentCols, spec.ExprColumn{Name: g.col.name, Type: g.col.dataType})
		}
		er.parentType = spec.ParentType(er.parentCols)
		if fi == layoutFK {
			er.lineOf = func(row int64) int64 { _, l := lay.at(row); return l }
		}
	}
	deps := map[string][]string{}
	for _, c := range ti.cols {
		if c.generated {
			continue
		}
		s := t.Columns[c.name]
		cp := &colPlan{col: c, key: hashName(strconv.FormatInt(seed, 10), ti.name, c.name), null: s.NullFraction}
		if s.Expr != "" {
			_, inFK := fkOf[c.name]
			if roles[c.name] == autoInc || roles[c.name] == unique || inFK {
				return nil, fmt.Errorf("tables: %s.%s is part of a key generate builds (auto-increment, unique or foreign), which expr cannot keep; remove expr", ti.name, c.name)
			}
			g, uses, err := exprGen(c, s.Expr, er, exprColumns(ti.cols))
			if err != nil {
				return nil, fmt.Errorf("tables: %s.%s: %w", ti.name, c.name, err)
			}
			deps[c.name] = uses
			cp.base = g
			tp.gens = append(tp.gens, cp)
			tp.byName[c.name] = cp
			continue
		}
		where := ti.name + "." + c.name
		r := ddl.Free
		_, inFK := fkOf[c.name]
		switch {
		case roles[c.name] == autoInc:
			r = ddl.AutoIncrement
		case inFK:
			r = ddl.Foreign
		case roles[c.name] == unique:
			r = ddl.Unique
		case roles[c.name] == line:
			r = ddl.Line
		}
		if p := ddl.Problems(where, c.spec(), r, s.rule()); len(p) > 0 {
			return nil, fmt.Errorf("tables: %s", p[0].Msg)
		}
		if r != ddl.Free && (s.FromSample != "" || s.rows != nil || s.Pattern != "" && r != ddl.Unique && r != ddl.Line) {
			return nil, fmt.Errorf("tables: %s is part of a key generate builds (primary or foreign), so from_sample and pattern do not apply to it; remove them", where)
		}
		switch fi, inFK := fkOf[c.name]; {
		case roles[c.name] == autoInc:
			// explicit 1..N rather than the server's counter: the same ids on every run
			// and whatever order the threads insert in, and the ids children take
			cp.base = func(dst []byte, row int64, _ *stream) []byte { return strconv.AppendInt(dst, row+1, 10) }
		case inFK:
			f := ti.fks[fi]
			pc := picks[fi].parent.byName[f.parentCols[slices.Index(f.cols, c.name)]]
			pick := picks[fi].pick
			cp.base = func(dst []byte, row int64, _ *stream) []byte {
				pr, _ := pick(row)
				return pc.emit(dst, pr)
			}
		case roles[c.name] == unique:
			g, err := uniqueGen(c, s, t.Rows)
			if err != nil {
				return nil, fmt.Errorf("%s is made unique (it is in a unique or primary key): %w", where, err)
			}
			pm := newPerm(uint64(max(t.Rows, 1)), cp.key^0x2545f491)
			cp.base = func(dst []byte, row int64, r *stream) []byte { return g(dst, pm.at(uint64(row)), r) }
		case roles[c.name] == line:
			g, err := uniqueGen(c, s, lay.most)
			if err != nil {
				return nil, fmt.Errorf("%s numbers the rows of each parent (it completes a key with a foreign key): %w", where, err)
			}
			cp.base = func(dst []byte, row int64, r *stream) []byte { _, l := lay.at(row); return g(dst, uint64(l), r) }
		default:
			g, err := freeGen(c, s, t.Rows)
			if errors.Is(err, errUnknownType) {
				return nil, errors.New(ddl.UnknownType(where, c.columnType))
			}
			if err != nil {
				return nil, fmt.Errorf("tables: %s: %w", where, err)
			}
			cp.base = g
		}
		tp.gens = append(tp.gens, cp)
		tp.byName[c.name] = cp
	}
	if _, cycle := ddl.Order(sortedKeys(deps), func(n string) []string {
		var out []string
		for _, d := range deps[n] {
			if _, ok := deps[d]; ok {
				out = append(out, d)
			}
		}
		return out
	}); cycle != nil {
		return nil, fmt.Errorf("tables: %s: the expr columns %s make each other (%s); one must come from the others without them", ti.name, strings.Join(cycle[:len(cycle)-1], ", "), strings.Join(cycle, " -> "))
	}
	return tp, nil
}

// buildLayout draws each child row's parent, counts them, and lays the children out parent
// by parent. A parent full at limit hands its child to the next one.
func buildLayout(rows, parents, limit int64, draw func(int64) int64) (*layout, error) {
	if parents == 0 {
		return &layout{start: []int64{rows}}, nil
	}
	if limit != math.MaxInt64 && rows > parents*limit {
		return nil, fmt.Errorf("%d rows cannot be spread over %d parents at most %d each; lower rows", rows, parents, limit)
	}
	counts := make([]int64, parents)
	for j := range rows {
		p := draw(j)
		for counts[p] >= limit {
			p = (p + 1) % parents
		}
		counts[p]++
	}
	l := &layout{start: make([]int64, parents+1)}
	for p, n := range counts {
		l.start[p+1] = l.start[p] + n
		l.most = max(l.most, n)
	}
	return l, nil
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// fkDistribution is how a foreign key draws its parent rows: the distribution of any of its
// columns, uniform by default.
func fkDistribution(f key, t Table) string {
	dist := ""
	for _, c := range f.cols {
		if s, ok := t.Columns[c]; ok && s.Distribution != "" {
			dist = s.Distribution
		}
	}
	return dist
}

// presetIn says a key holds the foreign key per_parent chose (layoutFK) before any key gave
// it its line: the key then numbers that parent's rows.
func presetIn(fksIn []int, layoutFK int, lineCol string, lineFK int) bool {
	return layoutFK >= 0 && lineCol == "" && lineFK < 0 && slices.Contains(fksIn, layoutFK)
}

// perParentFK is the foreign key whose parent a per_parent table's counts are of: the first
// to the parent named, else to the only table the foreign keys reference.
func perParentFK(ti *tableInfo, pp *PerParent) (int, error) {
	var refs []string
	for _, f := range ti.fks {
		if !slices.Contains(refs, f.parent) {
			refs = append(refs, f.parent)
		}
	}
	parent := pp.Parent
	switch {
	case len(refs) == 0:
		return 0, fmt.Errorf("table %s has no foreign key, so per_parent has no parent to count rows of; give rows: N instead", ti.name)
	case parent == "" && len(refs) > 1:
		return 0, fmt.Errorf("table %s references %s; say whose rows per_parent counts with parent: TABLE", ti.name, strings.Join(refs, " and "))
	case parent == "":
		parent = refs[0]
	}
	for i, f := range ti.fks {
		if f.parent == parent {
			return i, nil
		}
	}
	return 0, fmt.Errorf("table %s has no foreign key to %s (it references %s), so per_parent cannot count %s's rows; name one of those", ti.name, parent, strings.Join(refs, ", "), parent)
}

// countLayout lays a per_parent table's rows out over its parent's: each parent row draws its
// count from its own stream, so the layout is the same at any thread count.
func countLayout(key uint64, parents int64, pp *PerParent) *layout {
	l := &layout{start: make([]int64, parents+1)}
	span := uint64(pp.Max-pp.Min) + 1
	for p := range parents {
		r := newStream(key, p)
		n := pp.Min + int64(r.pick(pp.Distribution, span, p))
		l.start[p+1] = l.start[p] + n
		l.most = max(l.most, n)
	}
	return l
}
