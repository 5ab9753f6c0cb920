package genplan

import (
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// The checks of a table's time: and no_overlap:, and of a foreign key column's expr: and
// values: (executor/generate's timeorder.go, overlap.go and fkfollow.go say what they do).

// checkLayout checks what a table's time and no_overlap say without the schema file.
func (t *GenerateTable) checkLayout(v *spec.Check) {
	if no := t.NoOverlap; no != nil && no.From != "" && no.From == no.To {
		v.Errorf(no.Src.At("to"), "%s: no_overlap from and to are both %s; to is the column where an interval ends", t.Name, no.To)
	}
}

func isTemporal(col *ddl.Column) bool {
	return col.Type == "date" || col.Type == "datetime" || col.Type == "timestamp"
}

// surrogate says dt's primary key is one auto-increment column.
func surrogate(dt *ddl.Table) bool {
	if len(dt.Uniques) == 0 || dt.Uniques[0].Name != "PRIMARY" || len(dt.Uniques[0].Columns) != 1 {
		return false
	}
	col := dt.Column(dt.Uniques[0].Columns[0])
	return col != nil && col.AutoIncrement
}

// layout checks time: and no_overlap: against the schema file's columns.
func (c *schemaCheck) layout(t *GenerateTable, dt *ddl.Table) {
	if t.Time != "" && t.Time != "none" {
		at := t.Src.At("time")
		col := column(dt, t.Time)
		switch {
		case col == nil:
			c.v.Errorf(at, "%s: time: no column %s in %s (%s creates it with %s); name its DATE, DATETIME or TIMESTAMP column, or none%s", t.Name, t.Time, t.Name, c.at(dt.Pos), strings.Join(columnNames(dt), ", "), spec.Suggest(t.Time, columnNames(dt)))
		case !isTemporal(col):
			c.v.Errorf(at, "%s: time: %s is %s, not a DATE, DATETIME or TIMESTAMP (%s)", t.Name, col.Name, col.TypeText, c.at(col.Pos))
		case !surrogate(dt):
			c.v.Errorf(at, "%s: time: %s puts the rows in time order so that ids follow it, which needs a primary key of one auto-increment column, and %s has none; remove time (%s)", t.Name, col.Name, t.Name, c.at(dt.Pos))
		case role(dt, col) != ddl.Free && role(dt, col) != ddl.Unique: // a unique time: the run checks it has a step per row
			c.v.Errorf(at, "%s: time: %s is in a key generate builds; name another column, or none (%s)", t.Name, col.Name, c.at(col.Pos))
		default:
			if gc := t.Columns.Lookup(col.Name); gc != nil {
				for _, k := range []string{"expr", "values", "values_file", "from_sample", "pattern"} {
					if gc.Src.Has(k) {
						c.v.Errorf(gc.Src.At(k), "%s.%s carries the table's time (time: %s), and %s cannot keep its values in row order; remove %s (min and max bound the times)", t.Name, col.Name, col.Name, k, k)
					}
				}
				if gc.Distribution != "" && gc.Distribution != "uniform" {
					c.v.Errorf(gc.Src.At("distribution"), "%s.%s carries the table's time (time: %s): rows in time order spread their times uniformly over min..max; remove distribution", t.Name, col.Name, col.Name)
				}
			}
		}
	}
	c.noOverlap(t, dt)
}

// noOverlap checks no_overlap's columns: ends of a date or time type, and an entity that is a
// foreign key of the table to the parent it is laid out by.
func (c *schemaCheck) noOverlap(t *GenerateTable, dt *ddl.Table) {
	no := t.NoOverlap
	if no == nil {
		return
	}
	for _, e := range []struct{ key, name string }{{"entity", no.Entity}, {"from", no.From}, {"to", no.To}} {
		col := column(dt, e.name)
		switch {
		case col == nil:
			c.v.Errorf(no.Src.At(e.key), "%s: no_overlap %s: no column %s in %s (%s creates it with %s)%s", t.Name, e.key, e.name, t.Name, c.at(dt.Pos), strings.Join(columnNames(dt), ", "), spec.Suggest(e.name, columnNames(dt)))
		case e.key != "entity" && !isTemporal(col):
			c.v.Errorf(no.Src.At(e.key), "%s: no_overlap %s: %s is %s, and an interval's ends are DATE, DATETIME or TIMESTAMP columns (%s)", t.Name, e.key, col.Name, col.TypeText, c.at(col.Pos))
		case e.key == "to" && role(dt, col) != ddl.Free:
			c.v.Errorf(no.Src.At(e.key), "%s: no_overlap to: %s is in a key generate builds, which a cut would break; name another column (%s)", t.Name, col.Name, c.at(col.Pos))
		}
	}
	var fk *ddl.ForeignKey
	for i, f := range dt.Foreign {
		if containsFold(f.Columns, no.Entity) {
			fk = &dt.Foreign[i]
			break
		}
	}
	switch {
	case column(dt, no.Entity) == nil:
	case fk == nil:
		c.v.Errorf(no.Src.At("entity"), "%s: no_overlap entity: %s is not a foreign key of %s; name the foreign key column of the entity whose intervals must not overlap (%s)", t.Name, no.Entity, t.Name, c.at(dt.Pos))
	case t.PerParent != nil && perParentParent(t, dt) != fk.Parent:
		c.v.Errorf(no.Src.At("entity"), "%s: no_overlap entity: %s references %s, and per_parent lays the rows out by %s; the rows of one %s are found through the layout: give per_parent: {parent: %s} (%s)", t.Name, no.Entity, fk.Parent, perParentParent(t, dt), no.Entity, fk.Parent, c.at(fk.Pos))
	case t.PerParent == nil && !startsAKey(dt, fk):
		c.v.Errorf(no.Src.At("entity"), "%s: no_overlap entity: the rows of one %s are found through the table's layout, and %s has none by %s; give per_parent: {parent: %s} (%s)", t.Name, no.Entity, t.Name, fk.Parent, fk.Parent, c.at(fk.Pos))
	}
}

// startsAKey says a unique key of dt begins with fk's columns: generate lays the rows out by it.
func startsAKey(dt *ddl.Table, fk *ddl.ForeignKey) bool {
	for _, k := range dt.Uniques {
		if len(k.Columns) > len(fk.Columns) && subsetFold(fk.Columns, k.Columns[:len(fk.Columns)]) {
			return true
		}
	}
	return false
}

// foreignExpr checks the expr of foreign key column col: parent.COLUMN, where the parent's
// COLUMN references the same table, so that the value is one of its keys.
func (c *schemaCheck) foreignExpr(t *GenerateTable, dt *ddl.Table, gc *GenerateColumn, col *ddl.Column) {
	at := gc.Src.At("expr")
	name, ok := FollowedParentColumn(gc.Expr.Source)
	fk := foreignOf(dt, col.Name)
	if !ok || fk == nil || col.AutoIncrement {
		c.v.Errorf(at, "%s.%s is part of a key generate builds (auto-increment, unique or foreign), which expr cannot keep; on a foreign key column expr can only be parent.COLUMN, a column of the parent row that references the same table; remove expr (%s)", t.Name, col.Name, c.at(col.Pos))
		return
	}
	if len(fk.Columns) != 1 {
		c.v.Errorf(at, "%s.%s is in foreign key %s of %d columns, and expr takes a foreign key of one column only; remove expr (%s)", t.Name, col.Name, fk.Name, len(fk.Columns), c.at(fk.Pos))
		return
	}
	if t.PerParent != nil && strings.EqualFold(perParentParent(t, dt), fk.Parent) {
		c.v.Errorf(at, "%s.%s is the foreign key per_parent lays the rows out by, so generate picks its parent rows; remove expr (%s)", t.Name, col.Name, c.at(fk.Pos))
		return
	}
	p := c.exprParent(t, dt)
	if p == nil {
		c.v.Errorf(at, "%s.%s: expr %q reads the parent row, and %s references several tables; say which with per_parent: {parent: TABLE} (%s)", t.Name, col.Name, gc.Expr.Source, t.Name, c.at(dt.Pos))
		return
	}
	pc := column(p, name)
	if pc == nil {
		c.v.Errorf(at, "%s.%s: expr %q: parent table %s has no column %s (%s creates it with %s)%s", t.Name, col.Name, gc.Expr.Source, p.Name, name, c.at(p.Pos), strings.Join(columnNames(p), ", "), spec.Suggest(name, columnNames(p)))
		return
	}
	if strings.EqualFold(p.Name, fk.Parent) && strings.EqualFold(name, fk.ParentColumns[0]) {
		return
	}
	if pf := foreignOf(p, pc.Name); pf != nil && len(pf.Columns) == 1 && strings.EqualFold(pf.Parent, fk.Parent) && strings.EqualFold(pf.ParentColumns[0], fk.ParentColumns[0]) {
		return
	}
	c.v.Errorf(at, "%s.%s: expr %q: %s.%s is not a foreign key to %s (%s), so its values need not be keys of %s; follow a column of %s that references %s (%s)", t.Name, col.Name, gc.Expr.Source, p.Name, pc.Name, fk.Parent, fk.ParentColumns[0], fk.Parent, p.Name, fk.Parent, c.at(pc.Pos))
}

// foreignValues checks the values of foreign key column col where the parent's key is an
// auto-increment with rows the plan gives: 1 to rows.
func (c *schemaCheck) foreignValues(t *GenerateTable, dt *ddl.Table, gc *GenerateColumn, col *ddl.Column) {
	fk := foreignOf(dt, col.Name)
	if fk == nil || len(gc.AllValues()) == 0 {
		return
	}
	if len(fk.Columns) != 1 {
		c.v.Errorf(gc.valuesAt(), "%s.%s is in foreign key %s of %d columns, and values take a foreign key of one column only; remove values (%s)", t.Name, col.Name, fk.Name, len(fk.Columns), c.at(fk.Pos))
		return
	}
	p := c.s.Table(c.db, fk.Parent)
	rows, listed := c.rows[fk.Parent]
	if p == nil || !listed || rows <= 0 {
		return // the run checks against the rows it makes
	}
	if pc := p.Column(fk.ParentColumns[0]); pc == nil || !pc.AutoIncrement {
		return
	}
	for _, val := range gc.AllValues() {
		if n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64); err != nil || n < 1 || n > rows {
			c.v.Errorf(gc.valuesAt(), "%s.%s: values lists %q, which is not the %s of a row of %s (they are 1 to %d); list keys of its rows (%s)", t.Name, col.Name, val, fk.ParentColumns[0], fk.Parent, rows, c.at(fk.Pos))
			return
		}
	}
}

// foreignOf is the first foreign key of dt with column name, or nil.
func foreignOf(dt *ddl.Table, name string) *ddl.ForeignKey {
	for i, f := range dt.Foreign {
		if containsFold(f.Columns, name) {
			return &dt.Foreign[i]
		}
	}
	return nil
}
