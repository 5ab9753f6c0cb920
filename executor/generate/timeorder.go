package generate

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// Rows in time order. In production a table keyed by an auto-increment id gets its rows as
// they happen: ids follow time, and one parent's rows (a customer's rentals) are spread over
// the whole table. A per_parent layout writes a parent's rows next to each other instead, so a
// per-parent lookup reads a page or two where production reads one page per row: a benchmark
// on such data is several times too fast once the data outgrows the buffer pool.
//
// So where a table's primary key is one auto-increment column and a column carries its time,
// row i (id i+1) takes the time i/rows of the way through the column's range, and the slot
// of the layout it fills is a permutation of i (the Feistel network unique keys use). Each
// parent's rows land at uniformly random places, so their times are uniform over the range,
// as if each parent's times were drawn and all parents' rows merged by time, which is what
// production's insert order is. A merge would need a heap over the parents and a pass from
// the first row to reach any row; the permutation gives any row in O(1) and no memory beyond
// the layout's counts, so threads and shards start anywhere and a child table's row can read
// its parent row (payment.customer_id from its rental) wherever it is. A parent's rows keep
// their slot's number where a key numbers them (line columns: any order keeps them distinct);
// expr's line counts the parent's rows before it, so it follows time (timeLine).

// TimeNone as a table's Time keeps its rows parent by parent.
const TimeNone = "none"

// timeColumn is the column that carries the table's time, "" when its rows are not put in
// time order: declared (Table.Time), else found in a child table with a surrogate key; distinct
// says its range has a step per row, so that no two rows get the same time.
func (pl *planner) timeColumn() (col string, distinct bool, err error) {
	ti, t := pl.ti, pl.t
	if t.Time == TimeNone {
		return "", false, nil
	}
	surrogate := len(ti.uniques) > 0 && ti.uniques[0].name == "PRIMARY" && len(ti.uniques[0].cols) == 1 &&
		pl.roles[ti.uniques[0].cols[0]] == autoInc
	var c *column
	if t.Time != "" {
		if c = ti.column(t.Time); c == nil {
			return "", false, fmt.Errorf("tables: %s: time: no column %s in table %s; name its DATE, DATETIME or TIMESTAMP column, or none", t.Name, t.Time, ti.name)
		}
		if !surrogate {
			return "", false, fmt.Errorf("tables: %s: time: %s puts the rows in time order so that ids follow it, which needs a primary key of one auto-increment column, and %s has none; remove time", t.Name, t.Time, ti.name)
		}
		if why := pl.notTime(c); why != "" {
			return "", false, fmt.Errorf("tables: %s: time: %s %s; name another column, or none", t.Name, t.Time, why)
		}
	} else if surrogate && len(ti.fks) > 0 {
		for _, x := range ti.cols {
			if pl.notTime(x) == "" {
				c = x
				break
			}
		}
	}
	if c == nil {
		return "", false, nil
	}
	_, _, steps, err := timeSpan(c, t.Columns[c.name])
	if err != nil {
		return "", false, fmt.Errorf("tables: %s.%s: %w", ti.name, c.name, err)
	}
	return c.name, steps >= uint64(max(t.Rows, 0)), nil
}

// keyByTime says unique key k is kept by the time column: a row's time is in its own share of
// the range, so with a step per row no two rows share one. A key with the time column that
// would need it as its own unique or numbering column otherwise leaves the rows unordered
// (an error where time: named the column).
func (pl *planner) keyByTime(k key) (bool, error) {
	if pl.timeCol == "" || !slices.Contains(k.cols, pl.timeCol) {
		return false, nil
	}
	if pl.timeDistinct {
		return true, nil
	}
	if pl.t.Time != "" {
		return false, fmt.Errorf("tables: %s: time: %s is in unique key %s, and its range (min..max) has fewer steps than the %d rows, so times in row order would repeat; widen min..max, use a DATETIME, or time: none", pl.t.Name, pl.timeCol, k.name, pl.t.Rows)
	}
	pl.timeCol = ""
	return false, nil
}

// notTime says why column c cannot carry the table's time ("" when it can): it must be a
// date or time column whose values generate draws over a range.
func (pl *planner) notTime(c *column) string {
	s := pl.t.Columns[c.name]
	_, inFK := pl.fkOf[c.name]
	switch {
	case c.dataType != "date" && c.dataType != "datetime" && c.dataType != "timestamp":
		return fmt.Sprintf("is %s, not a DATE, DATETIME or TIMESTAMP", c.columnType)
	case c.generated:
		return "is a generated column (the server computes it)"
	case inFK || pl.roles[c.name] != free:
		return "is in a key generate builds"
	case s.Expr != "" || len(s.Values) > 0 || s.FromSample != "" || s.rows != nil || s.Pattern != "":
		return "takes its values from expr, values or from_sample, which time order cannot keep (min and max can)"
	case s.Distribution != "" && s.Distribution != "uniform":
		return fmt.Sprintf("has distribution %s; rows in time order spread their times uniformly over min..max", s.Distribution)
	}
	return ""
}

// scattered is l with its rows put in time order: row i fills slot perm(i).
func (l *layout) scattered(key uint64) *layout {
	rows := l.start[len(l.start)-1]
	pm := newPerm(uint64(max(rows, 1)), key)
	return &layout{start: l.start, most: l.most, scatter: &pm}
}

// rowOf is the row of parent p's line-th slot.
func (l *layout) rowOf(p, line int64) int64 {
	slot := l.start[p] + line
	if l.scatter != nil {
		return int64(l.scatter.inv(uint64(slot)))
	}
	return slot
}

// timeLine is row's number among its parent's rows from 0, in row order: in a scattered layout,
// where rows go in in time order, the parent's rows before it (a cost of the parent's count);
// otherwise its line.
func (l *layout) timeLine(row int64) int64 {
	p, line := l.at(row)
	if l.scatter == nil {
		return line
	}
	n := int64(0)
	for k := range l.count(p) {
		if l.rowOf(p, k) < row {
			n++
		}
	}
	return n
}

// count is how many rows parent p has.
func (l *layout) count(p int64) int64 { return l.start[p+1] - l.start[p] }

// orderedTimeGen gives row i of rows a time in the i-th rows-th of the column's range (min..max,
// else the year before the epoch, as timeGen's), drawn within it: the times never go back as
// the rows (the ids) go up.
func orderedTimeGen(c *column, s Settings, rows int64) (valueGen, error) {
	from, unit, steps, err := timeSpan(c, s)
	if err != nil {
		return nil, err
	}
	layout := "2006-01-02 15:04:05"
	if c.dataType == "date" {
		layout = "2006-01-02"
	}
	n := uint64(max(rows, 1))
	// row i owns steps [a(i), a(i+1)), a(i) = i*steps/rows rounded down: disjoint, and none
	// empty when there is a step per row
	a := func(i uint64) uint64 {
		hi, lo := bits.Mul64(i, steps)
		q, _ := bits.Div64(hi, lo, n)
		return q
	}
	return func(dst []byte, row int64, r *stream) []byte {
		lo, hi := a(uint64(row)), a(uint64(row)+1)
		k := lo
		if hi > lo {
			k += r.intn(hi - lo)
		}
		return appendQuoted(dst, from.Add(time.Duration(k)*unit).Format(layout))
	}, nil
}

// timeSpan is a date or time column's range as timeGen draws it: from, the step (a day or a
// second) and how many steps (min..max, else the year before the epoch).
func timeSpan(c *column, s Settings) (from time.Time, unit time.Duration, steps uint64, err error) {
	from, to := epoch.AddDate(-1, 0, 0), epoch.Add(-time.Second)
	if s.Min != "" {
		if from, err = ddl.ParseTime(s.Min); err != nil {
			return from, 0, 0, err
		}
	}
	if s.Max != "" {
		if to, err = ddl.ParseTime(s.Max); err != nil {
			return from, 0, 0, err
		}
	}
	unit = time.Second
	if c.dataType == "date" {
		unit = 24 * time.Hour
	}
	if to.Before(from) {
		return from, 0, 0, fmt.Errorf("max %s is before min %s", strings.TrimSpace(s.Max), strings.TrimSpace(s.Min))
	}
	return from, unit, uint64(to.Sub(from)/unit) + 1, nil
}
