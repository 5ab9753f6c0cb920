package generate

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// no_overlap: the intervals [from, to) of one entity's rows (a copy's rentals, an employee's
// salaries) never overlap. Each column keeps its own generator; a row's to is then cut at the
// start of the entity's next interval (the next from, ties in row order), and a NULL to (an
// interval still open) is kept on the entity's last interval only. The entity's rows are found
// through the table's layout (per_parent, or a key that starts with the entity's foreign key),
// so a row reads its siblings' starts: O(rows of the entity) per row, no memory held.

// planNoOverlap wraps the to column of a table with no_overlap; deps are what its expr columns
// read.
func (pl *planner) planNoOverlap(deps map[string][]string) error {
	no, ti := pl.t.NoOverlap, pl.ti
	if no == nil {
		return nil
	}
	what := fmt.Sprintf("tables: %s: no_overlap", pl.t.Name)
	for _, n := range []string{no.Entity, no.From, no.To} {
		if ti.column(n) == nil {
			return fmt.Errorf("%s: no column %s in table %s", what, n, ti.name)
		}
	}
	if pl.layoutFK < 0 || !slices.Contains(ti.fks[pl.layoutFK].cols, no.Entity) {
		return fmt.Errorf("%s: the rows of one %s are found through the table's layout, and %s is not laid out by it; give %s per_parent: {parent: TABLE} with the table %s references", what, no.Entity, ti.name, pl.t.Name, no.Entity)
	}
	from, to := pl.tp.byName[no.From], pl.tp.byName[no.To]
	for _, cp := range []*colPlan{from, to} {
		if cp == nil {
			return fmt.Errorf("%s: %s and %s must be columns generate fills", what, no.From, no.To)
		}
		if t := cp.col.dataType; t != "date" && t != "datetime" && t != "timestamp" {
			return fmt.Errorf("%s: %s is %s, and an interval's ends are DATE, DATETIME or TIMESTAMP columns", what, cp.col.name, cp.col.columnType)
		}
	}
	if no.From == no.To {
		return fmt.Errorf("%s: from and to are both %s; name the column where an interval ends as to", what, no.From)
	}
	if reads(deps, no.From, no.To, map[string]bool{}) {
		return fmt.Errorf("%s: from: %s is made from %s (expr), and %s is cut at the next %s: make %s from %s instead", what, no.From, no.To, no.To, no.From, no.To, no.From)
	}
	if _, inFK := pl.fkOf[no.To]; inFK || pl.roles[no.To] != free {
		return fmt.Errorf("%s: to: %s is in a key generate builds, which a cut would break; name another column", what, no.To)
	}
	base, null, lay := to.base, to.null, pl.lay
	to.null = 0 // drawn here, from the same stream, so that an uncut row is what it was
	to.base = func(dst []byte, row int64, r *stream) []byte {
		next, ok := nextStart(lay, from, row)
		if null > 0 && r.float() < null {
			if !ok {
				return append(dst, "NULL"...)
			}
			return appendTime(dst, to.col, next)
		}
		start := len(dst)
		dst = base(dst, row, r)
		if !ok {
			return dst
		}
		if end, isNull := literalTime(to.col, string(dst[start:])); isNull || end.After(next) {
			return appendTime(dst[:start], to.col, next)
		}
		return dst
	}
	return nil
}

// nextStart is the start (from) of the interval after row's among the rows of its parent in
// lay, in order of from then row; false when row's is the last or has no start.
func nextStart(lay *layout, from *colPlan, row int64) (time.Time, bool) {
	own, isNull := literalTime(from.col, string(from.emit(nil, row)))
	if isNull {
		return time.Time{}, false
	}
	p, _ := lay.at(row)
	var best time.Time
	var bestRow int64 = -1
	var buf []byte
	for line := range lay.count(p) {
		q := lay.rowOf(p, line)
		if q == row {
			continue
		}
		buf = from.emit(buf[:0], q)
		t, isNull := literalTime(from.col, string(buf))
		if isNull || t.Before(own) || t.Equal(own) && q < row {
			continue // before row's interval
		}
		if bestRow < 0 || t.Before(best) || t.Equal(best) && q < bestRow {
			best, bestRow = t, q
		}
	}
	return best, bestRow >= 0
}

// literalTime reads a date or datetime literal of column c back; NULL, and what does not read,
// say isNull (an interval without that end).
func literalTime(c *column, lit string) (t time.Time, isNull bool) {
	if lit == "NULL" {
		return time.Time{}, true
	}
	layout := "2006-01-02 15:04:05"
	if c.dataType == "date" {
		layout = "2006-01-02"
	}
	s := strings.Trim(lit, "'")
	if t, err := time.Parse(layout, s); err == nil {
		return t, false
	}
	t, err := parseTime(s)
	return t, err != nil
}

// appendTime writes t as a literal of date or datetime column c.
func appendTime(dst []byte, c *column, t time.Time) []byte {
	if c.dataType == "date" {
		return appendQuoted(dst, t.Format("2006-01-02"))
	}
	return appendQuoted(dst, t.Format("2006-01-02 15:04:05"))
}

// reads says expr column col reads column target, itself or through other expr columns.
func reads(deps map[string][]string, col, target string, seen map[string]bool) bool {
	if seen[col] {
		return false
	}
	seen[col] = true
	for _, d := range deps[col] {
		if d == target || reads(deps, d, target, seen) {
			return true
		}
	}
	return false
}
