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

	"github.com/quadrant-bench/quadrant/executor/generate/genplan"
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
	info   *tableInfo

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
	// scatter, when set, puts row i at slot scatter.at(i) of the layout above: the rows go in
	// in time order, each parent's spread over the table (timeorder.go)
	scatter *perm
}

func (l *layout) at(row int64) (parent, line int64) {
	if l.scatter != nil {
		row = int64(l.scatter.at(uint64(row)))
	}
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

// planTable plans how each column of a table is generated: which columns its keys make
// unique or number per parent (roles), how each foreign key picks its parent row (picks),
// then each column's generator.
func planTable(seed int64, ti *tableInfo, t Table, parents map[string]*tablePlan) (*tablePlan, error) {
	pl := &planner{seed: strconv.FormatInt(seed, 10), ti: ti, t: t, parents: parents, roles: map[string]role{}, fkOf: map[string]int{},
		modes: make([]fkMode, len(ti.fks)), layoutFK: -1, lineFK: -1, picks: make([]fkPick, len(ti.fks)),
		tp: &tablePlan{name: ti.name, rows: t.Rows, byName: map[string]*colPlan{}, info: ti}}
	if err := pl.checkColumns(); err != nil {
		return nil, err
	}
	if err := pl.assignRoles(); err != nil {
		return nil, err
	}
	if err := pl.checkWidths(); err != nil {
		return nil, err
	}
	if err := pl.planPicks(); err != nil {
		return nil, err
	}
	deps := map[string][]string{}
	er := pl.exprRow()
	for _, c := range ti.cols {
		if c.generated {
			continue
		}
		if err := pl.planColumn(c, er, deps); err != nil {
			return nil, err
		}
	}
	if err := pl.planNoOverlap(deps); err != nil {
		return nil, err
	}
	pl.deriveEmail()
	return pl.tp, pl.checkExprCycle(deps)
}

// planner is what planTable's phases share.
type planner struct {
	seed    string
	ti      *tableInfo
	t       Table
	parents map[string]*tablePlan
	tp      *tablePlan
	roles   map[string]role
	fkOf    map[string]int // column -> its first foreign key
	modes   []fkMode
	// layoutFK is the foreign key whose parent rows lay the table out (-1 none), lineFK the
	// second of a composite key, the line within the parent (-1 none), lineCol the column
	// numbering a parent's rows ("" none).
	layoutFK, lineFK int
	lineCol          string
	perParent        *layout // the layout of a table given per_parent, from its parent's counts
	picks            []fkPick
	lay              *layout
	timeCol          string // the column whose order the rows go in ("" none)
	timeDistinct     bool   // its range has a step for each row, so no two rows share a time
}

// fkPick is how a foreign key picks a parent row per child row; every column of the key then
// takes that row's value, so a composite key points at one real parent row.
type fkPick struct {
	parent *tablePlan
	pick   func(row int64) (int64, bool) // false: this row's parent is out of range
}

func (pl *planner) hash(parts ...string) uint64 {
	return hashName(append([]string{pl.seed, pl.ti.name}, parts...)...)
}

// checkColumns: every column the plan names is the table's, and a generated one takes no rule.
func (pl *planner) checkColumns() error {
	ti, t := pl.ti, pl.t
	for _, name := range sortedKeys(t.Columns) {
		c := ti.column(name)
		if c == nil {
			return fmt.Errorf("tables: %s: no column %s in table %s; check the name against the schema", t.Name, name, ti.name)
		}
		if c.generated {
			if p := ddl.Problems(ti.name+"."+name, c.spec(), ddl.Free, t.Columns[name].rule()); len(p) > 0 {
				return fmt.Errorf("tables: %s", p[0].Msg)
			}
		}
	}
	return nil
}

// assignRoles finds the auto-increment columns, the per_parent layout, and what each unique
// key makes of its columns and foreign keys.
func (pl *planner) assignRoles() error {
	ti, t := pl.ti, pl.t
	for i, k := range ti.fks {
		for _, c := range k.cols {
			if _, ok := pl.fkOf[c]; !ok {
				pl.fkOf[c] = i
			}
		}
	}
	for _, c := range ti.cols {
		if c.autoInc {
			pl.roles[c.name] = autoInc
		}
	}
	if t.PerParent != nil {
		fi, err := perParentFK(ti, t.PerParent)
		if err != nil {
			return err
		}
		pl.perParent = countLayout(pl.hash("per-parent"), pl.parents[ti.fks[fi].parent].rows, t.PerParent)
		pl.t.Rows = pl.perParent.start[len(pl.perParent.start)-1]
		pl.tp.rows = pl.t.Rows
		pl.layoutFK, pl.modes[fi] = fi, fkLayout
	}
	var err error
	if pl.timeCol, pl.timeDistinct, err = pl.timeColumn(); err != nil {
		return err
	}
	for _, k := range ti.uniques {
		if err := pl.keyRole(k); err != nil {
			return err
		}
	}
	return nil
}

// keyRole decides how unique key k is kept unique: by one of its own columns, by a unique
// foreign key, or by a per-parent layout and a line within it.
func (pl *planner) keyRole(k key) error {
	ti, roles, modes := pl.ti, pl.roles, pl.modes
	if slices.ContainsFunc(k.cols, func(c string) bool { return roles[c] == autoInc || roles[c] == unique }) {
		return nil
	}
	if keep, err := pl.keyByTime(k); keep || err != nil {
		return err
	}
	var fksIn []int
	for i, f := range ti.fks {
		if subset(f.cols, k.cols) && (modes[i] == fkDrawn || modes[i] == fkLayout) {
			fksIn = append(fksIn, i)
		}
	}
	if pl.layoutFK >= 0 && slices.Contains(fksIn, pl.layoutFK) && (slices.Contains(k.cols, pl.lineCol) || slices.Contains(fksIn, pl.lineFK)) {
		return nil
	}
	var own []string // the key's columns outside any foreign key
	for _, c := range k.cols {
		if _, inFK := pl.fkOf[c]; !inFK && !ti.column(c).generated {
			own = append(own, c)
		}
	}
	switch {
	case len(fksIn) == 0:
		return pl.uniqueColumn(k, own)
	case len(fksIn) == 1 && len(own) == 0 && len(ti.fks[fksIn[0]].cols) == len(k.cols) && pl.perParent != nil && fksIn[0] == pl.layoutFK:
		if pl.perParent.most > 1 {
			return fmt.Errorf("table %s: key %s makes its foreign key to %s unique, so a parent row has at most 1 row, and per_parent gives one %d; lower it to 1 or give rows: N", ti.name, k.name, ti.fks[pl.layoutFK].parent, pl.perParent.most)
		}
	case len(fksIn) == 1 && len(own) == 0 && len(ti.fks[fksIn[0]].cols) == len(k.cols):
		modes[fksIn[0]] = fkUnique
	case (pl.layoutFK < 0 || presetIn(fksIn, pl.layoutFK, pl.lineCol, pl.lineFK)) && len(own) > 0:
		if pl.layoutFK < 0 {
			pl.layoutFK = fksIn[0]
		}
		pl.lineCol = own[len(own)-1]
		modes[pl.layoutFK] = fkLayout
		roles[pl.lineCol] = line
	case (pl.layoutFK < 0 || presetIn(fksIn, pl.layoutFK, pl.lineCol, pl.lineFK)) && len(fksIn) >= 2:
		if pl.layoutFK < 0 {
			pl.layoutFK = fksIn[0]
		}
		pl.lineFK = fksIn[slices.IndexFunc(fksIn, func(i int) bool { return i != pl.layoutFK })]
		modes[pl.layoutFK], modes[pl.lineFK] = fkLayout, fkLine
	default:
		return fmt.Errorf("table %s: key %s (%s) needs a second per-parent sequence, which generate does not build yet; fill this table yourself or drop the key before generating", ti.name, k.name, strings.Join(k.cols, ", "))
	}
	return nil
}

// uniqueColumn makes key k unique by one of its own columns: the last that can hold rows
// distinct values (a CHAR code rather than the TINYINT beside it).
func (pl *planner) uniqueColumn(k key, own []string) error {
	ti, t := pl.ti, pl.t
	if len(own) == 0 {
		return fmt.Errorf("table %s: key %s has no column generate can make unique (only generated columns or foreign keys it cannot combine); fill this table yourself", ti.name, k.name)
	}
	for i := len(own) - 1; i >= 0; i-- {
		if _, err := uniqueGen(ti.column(own[i]), t.Columns[own[i]], t.Rows); err == nil {
			pl.roles[own[i]] = unique
			return nil
		}
	}
	_, err := uniqueGen(ti.column(own[len(own)-1]), t.Columns[own[len(own)-1]], t.Rows)
	return fmt.Errorf("%s.%s is made unique (it is in key %s): %w", ti.name, own[len(own)-1], k.name, err)
}

// drawn picks foreign key i's parent row by its distribution, row by row.
func (pl *planner) drawn(i int) (func(row int64) int64, error) {
	ti, t := pl.ti, pl.t
	f := ti.fks[i]
	p := pl.parents[f.parent]
	if p.rows == 0 && t.Rows > 0 {
		return nil, fmt.Errorf("table %s: foreign key %s references %s, which gets 0 rows; give %s rows", ti.name, f.name, f.parent, f.parent)
	}
	dist := fkDistribution(f, t)
	key := pl.hash("fk", f.name)
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

// planPicks plans each foreign key's pick of its parent row, by its mode.
func (pl *planner) planPicks() error {
	ti, t := pl.ti, pl.t
	for i, f := range ti.fks {
		p := pl.parents[f.parent]
		if p == nil {
			return fmt.Errorf("table %s: foreign key %s references %s, which is not planned before it", ti.name, f.name, f.parent)
		}
		for _, pc := range f.parentCols {
			if p.byName[pc] == nil {
				return fmt.Errorf("table %s: foreign key %s references %s.%s, which generate does not fill (a generated column); fill these tables yourself", ti.name, f.name, f.parent, pc)
			}
		}
		pl.picks[i].parent = p
		switch pl.modes[i] {
		case fkDrawn:
			d, err := pl.drawn(i)
			if err != nil {
				return err
			}
			pl.picks[i].pick = func(row int64) (int64, bool) { return d(row), true }
		case fkUnique:
			if t.Rows > p.rows {
				return fmt.Errorf("table %s: foreign key %s is unique, so each of its %d rows needs its own row of %s, which gets %d; lower rows or raise %s's", ti.name, f.name, t.Rows, f.parent, p.rows, f.parent)
			}
			pm := newPerm(uint64(p.rows), pl.hash("fk-unique", f.name))
			pl.picks[i].pick = func(row int64) (int64, bool) { return int64(pm.at(uint64(row))), true }
		case fkLayout:
			if err := pl.planLayout(i, p); err != nil {
				return err
			}
		}
	}
	if pl.lineFK >= 0 {
		p := pl.parents[ti.fks[pl.lineFK].parent]
		f := ti.fks[pl.lineFK]
		dd := newDistinctDraws(pl.hash("fk-line", f.name), fkDistribution(f, t), uint64(p.rows))
		lay := pl.lay
		pl.picks[pl.lineFK].pick = func(row int64) (int64, bool) {
			par, l := lay.at(row)
			return int64(dd.at(par, l, lay.start[par+1]-lay.start[par])), true
		}
	}
	return nil
}

// planLayout lays the table's rows out over foreign key i's parent p: per_parent's counts,
// or drawn by the key's distribution, at most the line parent's rows per parent.
func (pl *planner) planLayout(i int, p *tablePlan) error {
	ti, t := pl.ti, pl.t
	f := ti.fks[i]
	d, err := pl.drawn(i)
	if err != nil {
		return err
	}
	limit := int64(math.MaxInt64)
	if pl.lineFK >= 0 {
		limit = pl.parents[ti.fks[pl.lineFK].parent].rows
	}
	switch {
	case pl.perParent != nil && pl.perParent.most > limit:
		return fmt.Errorf("table %s: per_parent gives one %s row %d rows, each with its own row of %s, which gets %d; lower per_parent or give %s more rows", ti.name, f.parent, pl.perParent.most, ti.fks[pl.lineFK].parent, limit, ti.fks[pl.lineFK].parent)
	case pl.perParent != nil:
		pl.lay = pl.perParent
	default:
		if pl.lay, err = buildLayout(t.Rows, p.rows, limit, d); err != nil {
			return fmt.Errorf("table %s: %w", ti.name, err)
		}
	}
	if pl.timeCol != "" {
		pl.lay = pl.lay.scattered(pl.hash("time order"))
	}
	lay := pl.lay
	pl.picks[i].pick = func(row int64) (int64, bool) { p, _ := lay.at(row); return p, true }
	return nil
}

// exprRow is what an expr column sees of its row: the table's columns and, through the
// foreign key exprs name, the parent row's.
func (pl *planner) exprRow() exprRow {
	er := exprRow{tp: pl.tp, lineOf: func(int64) int64 { return 0 }}
	if fi := exprParent(pl.ti, pl.t); fi >= 0 {
		er.parent, er.pick = pl.picks[fi].parent, pl.picks[fi].pick
		for _, g := range er.parent.gens {
			er.parentCols = append(er.parentCols, genplan.ExprColumn{Name: g.col.name, Type: g.col.dataType})
		}
		er.parentType = genplan.ParentType(er.parentCols)
		if fi == pl.layoutFK {
			er.lineOf = pl.lay.timeLine
		}
	}
	return er
}

// planColumn plans column c's generator: an expr, or by its role, and records what an expr
// uses in deps.
func (pl *planner) planColumn(c *column, er exprRow, deps map[string][]string) error {
	ti, t, tp := pl.ti, pl.t, pl.tp
	s := t.Columns[c.name]
	cp := &colPlan{col: c, key: pl.hash(c.name), null: s.NullFraction}
	fi, inFK := pl.fkOf[c.name]
	role := pl.roles[c.name]
	if inFK && (s.Expr != "" || len(s.Values) > 0) {
		return pl.planFKSettings(cp, s, fi, er)
	}
	if s.Expr != "" {
		if role == autoInc || role == unique || inFK {
			return fmt.Errorf("tables: %s.%s is part of a key generate builds (auto-increment, unique or foreign), which expr cannot keep; remove expr", ti.name, c.name)
		}
		g, uses, err := exprGen(c, s.Expr, er, exprColumns(ti.cols))
		if err != nil {
			return fmt.Errorf("tables: %s.%s: %w", ti.name, c.name, err)
		}
		deps[c.name] = uses
		cp.base = g
		tp.gens = append(tp.gens, cp)
		tp.byName[c.name] = cp
		return nil
	}
	where := ti.name + "." + c.name
	r := ddl.Free
	switch {
	case role == autoInc:
		r = ddl.AutoIncrement
	case inFK:
		r = ddl.Foreign
	case role == unique:
		r = ddl.Unique
	case role == line:
		r = ddl.Line
	}
	if p := ddl.Problems(where, c.spec(), r, s.rule()); len(p) > 0 {
		return fmt.Errorf("tables: %s", p[0].Msg)
	}
	if r != ddl.Free && (s.FromSample != "" || s.rows != nil || s.Pattern != "" && r != ddl.Unique && r != ddl.Line) {
		return fmt.Errorf("tables: %s is part of a key generate builds (primary or foreign), so from_sample and pattern do not apply to it; remove them", where)
	}
	var err error
	switch {
	case role == autoInc:
		// explicit 1..N rather than the server's counter: the same ids on every run
		// and whatever order the threads insert in, and the ids children take
		cp.base = func(dst []byte, row int64, _ *stream) []byte { return strconv.AppendInt(dst, row+1, 10) }
	case inFK:
		f := ti.fks[fi]
		pc := pl.picks[fi].parent.byName[f.parentCols[slices.Index(f.cols, c.name)]]
		pick := pl.picks[fi].pick
		cp.base = func(dst []byte, row int64, _ *stream) []byte {
			pr, _ := pick(row)
			return pc.emit(dst, pr)
		}
	case role == unique:
		cp.base, err = pl.uniqueBase(c, s, cp.key, where)
	case role == line:
		cp.base, err = pl.lineBase(c, s, where)
	case c.name == pl.timeCol:
		if cp.base, err = orderedTimeGen(c, s, t.Rows); err != nil {
			err = fmt.Errorf("tables: %s: %w", where, err)
		}
	default:
		cp.base, err = freeBase(c, s, t.Rows, where)
	}
	if err != nil {
		return err
	}
	tp.gens = append(tp.gens, cp)
	tp.byName[c.name] = cp
	return nil
}

// uniqueBase makes column c unique: distinct values in a permuted order.
func (pl *planner) uniqueBase(c *column, s Settings, key uint64, where string) (valueGen, error) {
	g, err := uniqueGen(c, s, pl.t.Rows)
	if err != nil {
		return nil, fmt.Errorf("%s is made unique (it is in a unique or primary key): %w", where, err)
	}
	pm := newPerm(uint64(max(pl.t.Rows, 1)), key^0x2545f491)
	return func(dst []byte, row int64, r *stream) []byte { return g(dst, pm.at(uint64(row)), r) }, nil
}

// lineBase numbers each parent's rows (the column completes a key with a foreign key).
func (pl *planner) lineBase(c *column, s Settings, where string) (valueGen, error) {
	lay := pl.lay
	g, err := uniqueGen(c, s, lay.most)
	if err != nil {
		return nil, fmt.Errorf("%s numbers the rows of each parent (it completes a key with a foreign key): %w", where, err)
	}
	if spreads(c) {
		return spreadLines(lay, g), nil
	}
	return func(dst []byte, row int64, r *stream) []byte { _, l := lay.at(row); return g(dst, uint64(l), r) }, nil
}

// freeBase is a column no key constrains: by its type and the plan's rule.
func freeBase(c *column, s Settings, rows int64, where string) (valueGen, error) {
	g, err := freeGen(c, s, rows)
	if errors.Is(err, errUnknownType) {
		return nil, errors.New(ddl.UnknownType(where, c.columnType))
	}
	if err != nil {
		return nil, fmt.Errorf("tables: %s: %w", where, err)
	}
	return g, nil
}

// checkExprCycle refuses expr columns that make each other.
func (pl *planner) checkExprCycle(deps map[string][]string) error {
	if _, cycle := ddl.Order(sortedKeys(deps), func(n string) []string {
		var out []string
		for _, d := range deps[n] {
			if _, ok := deps[d]; ok {
				out = append(out, d)
			}
		}
		return out
	}); cycle != nil {
		return fmt.Errorf("tables: %s: the expr columns %s make each other (%s); one must come from the others without them", pl.ti.name, strings.Join(cycle[:len(cycle)-1], ", "), strings.Join(cycle, " -> "))
	}
	return nil
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
