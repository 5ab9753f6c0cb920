package genplan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// checkSchema checks the step's tables and column settings against the CREATE TABLEs of its
// schema file, so that what the file already tells (a table it does not create, a column
// that is not there, a key too narrow for the rows, a cycle of foreign keys, a type the
// generator does not know) fails at validate instead of after the schema ran. What the file
// does not let it read (a table made by a query, an ALTER it does not know) is left to the
// run, which checks again on what the server says.
func (g *Generate) checkSchema(v *spec.Check) {
	if g.SchemaPath == "" {
		return
	}
	data, err := v.ReadFile(g.SchemaPath, maxSchemaFile)
	if err != nil || data == nil {
		return // v.path said the file is missing; a file too big to read is left to the run
	}
	s := ddl.ParseFor(string(data), g.Server)
	c := &schemaCheck{v: v, g: g, s: s, file: g.Schema, db: g.Database, rows: map[string]int64{}, read: map[string]*ddl.Table{}}
	if c.db == "" {
		c.db = s.Database
	}
	for i := range g.Tables {
		c.rows[g.Tables[i].Name] = g.Tables[i].Rows
	}
	c.tables()
	c.perParentRows()
	for i := range g.Tables {
		t := &g.Tables[i]
		if dt := c.read[t.Name]; dt != nil {
			c.columns(t, dt)
			c.uniques(t, dt)
			c.widths(t, dt)
			c.perParent(t, dt)
			c.exprs(t, dt)
			c.rowSample(t, dt)
			c.layout(t, dt)
		}
	}
	c.foreignKeys()
}

type schemaCheck struct {
	v    *spec.Check
	g    *Generate
	s    *ddl.Schema
	file string // as the plan names it
	db   string // the database filled, "" when only the run knows
	rows map[string]int64
	read map[string]*ddl.Table // the listed tables the file defines in a way it could read
}

// maxSchemaFile bounds the schema file validate reads whole: a file of CREATE TABLEs is far
// smaller, and a dump with its rows (which generate would refuse anyway: its tables would
// not be empty) is not worth holding in memory to check.
const maxSchemaFile = 32 << 20

func (c *schemaCheck) at(p ddl.Pos) string { return fmt.Sprintf("%s:%d", c.file, p.Line) }

// tables finds each listed table in the file. One it does not create is an error only when
// the file was read whole and creates tables: a file of settings alone may precede tables
// that are already there.
func (c *schemaCheck) tables() {
	var created, names []string // as a message shows them; names of the database filled
	for _, t := range c.s.Tables {
		if c.db == "" || t.Database == c.db || t.Database == "" {
			created = append(created, t.Name)
			names = append(names, t.Name)
		} else {
			created = append(created, t.Database+"."+t.Name)
		}
	}
	for i := range c.g.Tables {
		t := &c.g.Tables[i]
		dt := c.s.Table(c.db, t.Name)
		switch {
		case dt == nil && c.s.Whole && len(created) > 0:
			in := ""
			if c.db != "" {
				in = " in database " + c.db
			}
			c.v.Errorf(t.Src.Pos, "schema %s creates no table %s%s (it creates %s); create it in the schema or remove it from tables%s", c.file, t.Name, in, strings.Join(created, ", "), spec.Suggest(t.Name, names))
		case dt != nil && !dt.Unread:
			c.read[t.Name] = dt
		}
	}
}

// column finds a column as the run does: by its exact name.
func column(dt *ddl.Table, name string) *ddl.Column {
	for _, col := range dt.Columns {
		if col.Name == name {
			return col
		}
	}
	return nil
}

// role is the part a column plays in the keys generate builds, as far as the file tells:
// a column of a composite key without a foreign key is left free, as which of them the run
// makes unique depends on the rows.
func role(dt *ddl.Table, col *ddl.Column) ddl.Role {
	if col.AutoIncrement {
		return ddl.AutoIncrement
	}
	for _, f := range dt.Foreign {
		for _, fc := range f.Columns {
			if strings.EqualFold(fc, col.Name) {
				return ddl.Foreign
			}
		}
	}
	for _, k := range dt.Uniques {
		if len(k.Columns) == 1 && strings.EqualFold(k.Columns[0], col.Name) {
			return ddl.Unique
		}
	}
	return ddl.Free
}

func settings(gc *GenerateColumn) ddl.Settings {
	if gc == nil {
		return ddl.Settings{}
	}
	return ddl.Settings{Distribution: gc.Distribution, Values: len(gc.AllValues()), Min: string(gc.Min), Max: string(gc.Max), NullFraction: gc.NullFraction, Length: gc.Length}
}

func (c *schemaCheck) columns(t *GenerateTable, dt *ddl.Table) {
	var names []string
	for _, col := range dt.Columns {
		names = append(names, col.Name)
	}
	for j := range t.Columns {
		gc := &t.Columns[j]
		col := column(dt, gc.Name)
		if col == nil {
			c.v.Errorf(gc.Src.Pos, "table %s has no column %s (%s creates it with %s)%s", t.Name, gc.Name, c.at(dt.Pos), strings.Join(names, ", "), spec.Suggest(gc.Name, names))
			continue
		}
		c.foreignValues(t, dt, gc, col)
		for _, p := range ddl.Problems(t.Name+"."+col.Name, col, role(dt, col), settings(gc)) {
			pos := gc.Src.Pos
			if p.Option != "" && gc.Src.Has(p.Option) {
				pos = gc.Src.At(p.Option)
			}
			c.v.Errorf(pos, "%s (%s)", p.Msg, c.at(col.Pos))
		}
	}
	for _, col := range dt.Columns {
		gc := t.Columns.Lookup(col.Name)
		if col.Generated || ddl.Known(col.Type) || gc != nil && (len(gc.AllValues()) > 0 || gc.Expr.Source != "") || role(dt, col) != ddl.Free {
			continue
		}
		pos := t.Src.Pos
		if gc != nil {
			pos = gc.Src.Pos
		}
		c.v.Errorf(pos, "%s (%s)", ddl.UnknownType(t.Name+"."+col.Name, col.TypeText), c.at(col.Pos))
	}
}

// uniques refuses a key that cannot take the rows asked: a column of it made unique by
// itself must hold that many distinct values; a key with foreign keys at most the product
// of its parents' rows and its own columns' values.
func (c *schemaCheck) uniques(t *GenerateTable, dt *ddl.Table) {
	if t.Rows <= 0 {
		return
	}
	rowsAt := t.Src.At("rows")
	for _, k := range dt.Uniques {
		cols := make([]*ddl.Column, len(k.Columns))
		skip := false
		for i, n := range k.Columns {
			cols[i] = dt.Column(n)
			skip = skip || cols[i] == nil || cols[i].AutoIncrement || cols[i].Generated
		}
		if skip {
			continue // an auto-increment key is 1..N; a generated column the server's
		}
		inFK := map[string]bool{}
		product := 1.0
		var parts []string
		for _, f := range dt.Foreign {
			in := 0
			for _, fc := range f.Columns {
				inFK[strings.ToLower(fc)] = true
				if containsFold(k.Columns, fc) {
					in++
				}
			}
			if in > 0 && in < len(f.Columns) {
				skip = true // a column of the key takes a parent's value the key does not bound
			}
			if in < len(f.Columns) {
				continue
			}
			p, listed := c.rows[f.Parent]
			if !listed {
				skip = true // foreignKeys says so
			}
			product *= float64(p)
			parts = append(parts, fmt.Sprintf("%s: %d rows", f.Parent, p))
		}
		if skip {
			continue
		}
		withFK := len(parts) > 0
		var own []*ddl.Column
		for _, col := range cols {
			if !inFK[strings.ToLower(col.Name)] {
				own = append(own, col)
			}
		}
		best, why := 0.0, ""
		for _, col := range own {
			n, w := ddl.Distinct(col, settings(t.Columns.Lookup(col.Name)))
			if w != "" {
				why = w
				continue
			}
			best = max(best, n)
			product *= n
			parts = append(parts, fmt.Sprintf("%s %s: %s values", col.Name, col.TypeText, distinct(n)))
		}
		what := fmt.Sprintf("key %s (%s) of %s", k.Name, strings.Join(k.Columns, ", "), t.Name)
		if len(own) == 1 && !withFK && listed(t, own[0]) > 0 {
			gc := t.Columns.Lookup(own[0].Name)
			if a, b, dup := ddl.Repeated(gc.AllValues()); dup {
				c.v.Errorf(gc.valuesAt(), "%s.%s is in %s, so each value is used once, and values lists %q and %q, which the key takes as one; remove one (%s)", t.Name, own[0].Name, what, a, b, c.at(own[0].Pos))
			}
		}
		switch {
		case why != "" && !withFK && len(own) == 1:
			c.v.Errorf(rowsAt, "%s.%s is in %s, which generate makes unique, and %s; fill this table yourself or key it by an integer (%s)", t.Name, own[0].Name, what, why, c.at(own[0].Pos))
		case why != "" && withFK:
			// which column numbers the rows of a parent, the run knows
		case withFK && product < float64(t.Rows):
			c.v.Errorf(rowsAt, "%s can take at most %s distinct rows (%s), fewer than the %d rows asked; lower rows or give the parents more (%s)", what, distinct(product), strings.Join(parts, " × "), t.Rows, c.at(k.Pos))
		case !withFK && len(own) == 1 && best < float64(t.Rows) && listed(t, own[0]) > 0:
			col, gc := own[0], t.Columns.Lookup(own[0].Name)
			c.v.Errorf(gc.valuesAt(), "%s.%s is in %s, so each of the %d rows needs its own value, and values lists %d; list at least %d (each is used once) or lower rows (%s)", t.Name, col.Name, what, t.Rows, len(gc.AllValues()), t.Rows, c.at(col.Pos))
		case !withFK && len(own) == 1 && best < float64(t.Rows):
			col := own[0]
			c.v.Errorf(rowsAt, "%s.%s is in %s, so each of the %d rows needs its own value, and %s holds %s values%s; widen the column or lower rows (%s)", t.Name, col.Name, what, t.Rows, col.TypeText, distinct(best), from(col, t.Columns.Lookup(col.Name)), c.at(col.Pos))
		case !withFK && best < float64(t.Rows) && len(parts) > 0:
			together := ""
			if product < float64(t.Rows) {
				together = fmt.Sprintf(", and together at most %s", distinct(product))
			}
			c.v.Errorf(rowsAt, "no column of %s holds %d distinct values by itself (%s%s), and generate makes one column of a key unique; widen one or lower rows (%s)", what, t.Rows, strings.Join(parts, ", "), together, c.at(k.Pos))
		}
	}
}

// listed is how many values: the plan lists for column col of t.
func listed(t *GenerateTable, col *ddl.Column) int {
	if gc := t.Columns.Lookup(col.Name); gc != nil {
		return len(gc.AllValues())
	}
	return 0
}

// distinct is a count of values as a message shows it.
func distinct(n float64) string {
	if math.IsInf(n, 1) || n >= 1e18 {
		return "more than 10^18"
	}
	return strconv.FormatFloat(n, 'f', 0, 64)
}

// from says where generate starts a unique integer column: what it holds depends on it.
func from(col *ddl.Column, gc *GenerateColumn) string {
	if _, _, ok := ddl.IntRange(col.Type, col.Unsigned); !ok {
		return ""
	}
	if gc != nil && gc.Min != "" {
		return " from min " + string(gc.Min)
	}
	return " counting from 1"
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// foreignKeys refuses a parent that is not listed and a cycle among the listed tables.
func (c *schemaCheck) foreignKeys() {
	var names []string
	for i := range c.g.Tables {
		t := &c.g.Tables[i]
		dt := c.read[t.Name]
		if dt == nil {
			continue
		}
		names = append(names, t.Name)
		for _, f := range dt.Foreign {
			if f.ParentDB != "" && f.ParentDB != dt.Database {
				continue // the run says generate fills one database
			}
			if _, listed := c.rows[f.Parent]; !listed {
				c.v.Errorf(t.Src.Pos, "%s (%s)", ddl.UnlistedParent(t.Name, f.Columns, f.Parent), c.at(f.Pos))
			}
		}
	}
	parents := func(n string) []string {
		var out []string
		for _, f := range c.read[n].Foreign {
			if c.read[f.Parent] != nil {
				out = append(out, f.Parent)
			}
		}
		return out
	}
	_, cycle := ddl.Order(names, parents)
	if cycle == nil {
		return
	}
	var where []string
	for i := 0; i+1 < len(cycle); i++ {
		for _, f := range c.read[cycle[i]].Foreign {
			if f.Parent == cycle[i+1] {
				where = append(where, fmt.Sprintf("%s %s.%s", c.at(f.Pos), cycle[i], strings.Join(f.Columns, ",")))
				break
			}
		}
	}
	for i := range c.g.Tables {
		if t := &c.g.Tables[i]; t.Name == cycle[0] {
			c.v.Errorf(t.Src.Pos, "%s (%s)", ddl.CycleMessage(cycle), strings.Join(where, "; "))
		}
	}
}

// perParentParent is the parent a per_parent table's counts are of: the one named, else the
// only table its foreign keys reference ("" when that is not one).
func perParentParent(t *GenerateTable, dt *ddl.Table) string {
	if t.PerParent.Parent != "" {
		return t.PerParent.Parent
	}
	var parents []string
	for _, f := range dt.Foreign {
		if !slices.Contains(parents, f.Parent) {
			parents = append(parents, f.Parent)
		}
	}
	if len(parents) == 1 {
		return parents[0]
	}
	return ""
}

// perParentRows gives each per_parent table the fewest rows it can get (its parent's rows
// times the least count), for the checks of the tables that reference it.
func (c *schemaCheck) perParentRows() {
	for range c.g.Tables {
		for i := range c.g.Tables {
			t := &c.g.Tables[i]
			if dt := c.read[t.Name]; t.PerParent != nil && dt != nil {
				lo, _ := t.PerParent.Range()
				c.rows[t.Name] = c.rows[perParentParent(t, dt)] * lo
			}
		}
	}
}

// perParent checks a per_parent table against its foreign keys: it has one to the parent,
// and the key that extends the parent's can take the most rows one parent gets.
func (c *schemaCheck) perParent(t *GenerateTable, dt *ddl.Table) {
	pp := t.PerParent
	if pp == nil {
		return
	}
	parent := perParentParent(t, dt)
	var fk *ddl.ForeignKey
	var refs []string
	for i, f := range dt.Foreign {
		refs = append(refs, f.Parent)
		if f.Parent == parent && fk == nil {
			fk = &dt.Foreign[i]
		}
	}
	switch {
	case len(dt.Foreign) == 0:
		c.v.Errorf(t.Src.At("per_parent"), "%s has no foreign key, so per_parent has no parent to count rows of; give rows: N instead (%s)", t.Name, c.at(dt.Pos))
		return
	case parent == "":
		c.v.Errorf(t.Src.At("per_parent"), "%s references %s; say whose rows per_parent counts with parent: TABLE (%s)", t.Name, strings.Join(refs, " and "), c.at(dt.Pos))
		return
	case fk == nil && c.rows[parent] == 0 && !c.listed(parent):
		return // checkRows said the parent is not listed
	case fk == nil:
		c.v.Errorf(pp.Src.At("parent"), "%s has no foreign key to %s (it references %s), so per_parent cannot count %s's rows; name one of those (%s)", t.Name, parent, strings.Join(refs, ", "), parent, c.at(dt.Pos))
		return
	}
	_, hi := pp.Range()
	most := pp.Src.At("max")
	if pp.Src.Has("count") {
		most = pp.Src.At("count")
	}
	for _, k := range dt.Uniques {
		if !subsetFold(fk.Columns, k.Columns) {
			continue
		}
		var own []string
		var other *ddl.ForeignKey
		for _, kc := range k.Columns {
			if containsFold(fk.Columns, kc) {
				continue
			}
			inFK := false
			for i := range dt.Foreign {
				if f := &dt.Foreign[i]; f != fk && containsFold(f.Columns, kc) {
					inFK, other = true, f
				}
			}
			if !inFK {
				own = append(own, kc)
			}
		}
		what := fmt.Sprintf("key %s (%s) of %s", k.Name, strings.Join(k.Columns, ", "), t.Name)
		switch {
		case len(own) == 0 && other == nil && hi > 1:
			c.v.Errorf(most, "%s makes its foreign key to %s unique, so a parent row has at most 1 row, not %d; lower it to 1 or give rows: N (%s)", what, parent, hi, c.at(k.Pos))
		case len(own) > 0:
			col := dt.Column(own[len(own)-1])
			if n, why := ddl.Distinct(col, settings(t.Columns.Lookup(col.Name))); why == "" && n < float64(hi) {
				c.v.Errorf(most, "%s numbers the rows of each %s row with %s, which holds %s values, fewer than the %d one parent may get; lower it or widen %s (%s)", what, parent, col.Name, distinct(n), hi, col.Name, c.at(col.Pos))
			}
		case other != nil:
			if p, listed := c.rows[other.Parent]; listed && p < hi {
				c.v.Errorf(most, "%s takes a distinct %s row for each row of one %s row, and %s gets %d rows, fewer than the %d one parent may get; lower it or give %s more rows (%s)", what, other.Parent, parent, other.Parent, p, hi, other.Parent, c.at(k.Pos))
			}
		}
		return
	}
}

func subsetFold(a, b []string) bool {
	for _, x := range a {
		if !containsFold(b, x) {
			return false
		}
	}
	return true
}

func (c *schemaCheck) listed(table string) bool {
	_, ok := c.rows[table]
	return ok
}

// exprs compiles the table's expr: columns against the schema file's columns and those of
// the parent (the per_parent one, else the only table the foreign keys reference), and
// refuses an expression on a column of a key generate builds and a cycle among them.
func (c *schemaCheck) exprs(t *GenerateTable, dt *ddl.Table) {
	cols := exprColumns(dt.Columns)
	var parentCols []ExprColumn
	if p := c.exprParent(t, dt); p != nil {
		parentCols = exprColumns(p.Columns)
	}
	deps := map[string][]string{}
	var names []string
	for j := range t.Columns {
		gc := &t.Columns[j]
		col := column(dt, gc.Name)
		if gc.Expr.Source == "" || col == nil {
			continue
		}
		if r := role(dt, col); r == ddl.Foreign {
			c.foreignExpr(t, dt, gc, col)
			continue
		} else if r != ddl.Free {
			c.v.Errorf(gc.Src.At("expr"), "%s.%s is part of a key generate builds (auto-increment, unique or foreign), which expr cannot keep; remove expr (%s)", t.Name, col.Name, c.at(col.Pos))
			continue
		}
		_, uses, err := CompileGenerateExpr(gc.Expr.Source, ExprColumn{col.Name, col.Type}, cols, parentCols, ExprDraws{})
		if err != nil {
			pos, msg := spec.ExprError(gc.Expr.Pos, err)
			c.v.Errorf(pos, "%s.%s: expr %q: %s (%s)", t.Name, col.Name, gc.Expr.Source, msg, c.at(col.Pos))
			continue
		}
		names = append(names, gc.Name)
		deps[gc.Name] = uses.Columns
	}
	_, cycle := ddl.Order(names, func(n string) []string {
		var out []string
		for _, d := range deps[n] {
			if _, ok := deps[d]; ok {
				out = append(out, d)
			}
		}
		return out
	})
	if cycle != nil {
		gc := t.Columns.Lookup(cycle[0])
		c.v.Errorf(gc.Expr.Pos, "%s: the expr columns %s make each other (%s); one must come from the others without them", t.Name, strings.Join(cycle[:len(cycle)-1], ", "), strings.Join(cycle, " -> "))
	}
}

// exprParent is the table parent.COLUMN reads, or nil.
func (c *schemaCheck) exprParent(t *GenerateTable, dt *ddl.Table) *ddl.Table {
	name := ""
	if t.PerParent != nil {
		name = perParentParent(t, dt)
	} else {
		for _, f := range dt.Foreign {
			if name != "" && name != f.Parent {
				return nil
			}
			name = f.Parent
		}
	}
	if name == "" {
		return nil
	}
	return c.s.Table(c.db, name)
}

func exprColumns(cols []*ddl.Column) []ExprColumn {
	var out []ExprColumn
	for _, col := range cols {
		if !col.Generated {
			out = append(out, ExprColumn{col.Name, col.Type})
		}
	}
	return out
}

// rowSample checks a table-level from_sample's columns against the file: each must be a
// column of the table, and of the sample table where the file creates that one too.
func (c *schemaCheck) rowSample(t *GenerateTable, dt *ddl.Table) {
	rs := t.FromSample
	if rs == nil {
		return
	}
	db, name := c.db, rs.Table
	if d, n, ok := strings.Cut(rs.Table, "."); ok {
		db, name = d, n
	}
	src := c.s.Table(db, name)
	if src != nil && src.Unread {
		src = nil
	}
	for _, sc := range rs.Columns {
		if column(dt, sc.Name) == nil {
			c.v.Errorf(sc.Pos, "%s: from_sample column %s is not a column of %s (%s creates it with %s); name one of its columns%s", t.Name, sc.Name, t.Name, c.at(dt.Pos), strings.Join(columnNames(dt), ", "), spec.Suggest(sc.Name, columnNames(dt)))
			continue
		}
		if src != nil && column(src, sc.Name) == nil {
			c.v.Errorf(sc.Pos, "%s: from_sample table %s has no column %s (%s creates it with %s); the sample's column must have the same name", t.Name, rs.Table, sc.Name, c.at(src.Pos), strings.Join(columnNames(src), ", "))
		}
	}
}

func columnNames(dt *ddl.Table) []string {
	out := make([]string, len(dt.Columns))
	for i, col := range dt.Columns {
		out[i] = col.Name
	}
	return out
}

// expected is about how many rows table name gets: its rows, or for a per_parent table its
// parent's times the mean count.
func (c *schemaCheck) expected(name string, depth int) float64 {
	for i := range c.g.Tables {
		t := &c.g.Tables[i]
		if t.Name != name {
			continue
		}
		dt := c.read[name]
		if t.PerParent == nil || dt == nil || depth > len(c.g.Tables) {
			return float64(t.Rows)
		}
		mean, _ := countMoments(t.PerParent)
		return c.expected(perParentParent(t, dt), depth+1) * mean
	}
	return 0
}

// countMoments are the mean and variance of one parent row's count of a per_parent table,
// by its distribution: uniform between min and max, normal around the middle (a sixth of
// the span for a standard deviation), zipf a rank k of 1..n with weight 1/k (min-1+k).
func countMoments(pp *GeneratePerParent) (mean, variance float64) {
	lo, hi := pp.Range()
	n := float64(hi - lo + 1)
	switch pp.Distribution {
	case "zipf":
		h := 0.5772156649 + math.Log(n) + 1/(2*n) // the harmonic number H(n)
		if n <= 1e6 {
			h = 0
			for k := 1.0; k <= n; k++ {
				h += 1 / k
			}
		}
		m := n / h
		return float64(lo) - 1 + m, n*(n+1)/2/h - m*m
	case "normal":
		return float64(lo+hi) / 2, n * n / 36
	}
	return float64(lo+hi) / 2, (n*n - 1) / 12
}

// widths refuses an auto-increment column too narrow for the rows: generate numbers them
// 1..N, and the load would stop at the type's largest value with the table part-filled (a
// foreign key column has its parent's type, as InnoDB requires). A per_parent table is
// refused when its rows exceed the type even 3 standard deviations below their mean (the
// sum of the parent rows' counts), so that a plan that may fit is left to the run, which
// knows the counts and checks before any row.
func (c *schemaCheck) widths(t *GenerateTable, dt *ddl.Table) {
	rows, at := t.Rows, t.Src.At("rows")
	if pp := t.PerParent; pp != nil {
		at = t.Src.At("per_parent")
		mean := c.expected(t.Name, 0)
		_, variance := countMoments(pp)
		parents := c.expected(perParentParent(t, dt), 0)
		rows = int64(math.Floor(mean - 3*math.Sqrt(parents*variance)))
	}
	for _, col := range dt.Columns {
		if !col.AutoIncrement || col.Generated {
			continue
		}
		if why := ddl.AutoIncrementFits(t.Name+"."+col.Name, col.TypeText, col.Type, col.Unsigned, rows, t.PerParent != nil); why != "" {
			c.v.Errorf(at, "%s (%s)", why, c.at(col.Pos))
		}
	}
}
