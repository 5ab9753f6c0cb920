package generate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/generate/genplan"
	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// A foreign key column that agrees with its parent row (payment.customer_id, the customer of
// the payment's rental: expr: parent.customer_id), or that takes listed keys (film.language_id:
// values: [1]). Both stay keys of the referenced table by construction or by a check before any
// row, so the load keeps foreign_key_checks=0 and the foreign key still holds.

// maxKeyScan bounds the parent rows read to check a foreign key's listed values when the
// referenced column is not an auto-increment (1..N needs no scan).
const maxKeyScan = 10_000_000

// planFKSettings plans foreign key column cp.col, which has expr or values, in foreign key fi.
func (pl *planner) planFKSettings(cp *colPlan, s Settings, fi int, er exprRow) error {
	ti, c := pl.ti, cp.col
	f := ti.fks[fi]
	where := ti.name + "." + c.name
	if p := ddl.Problems(where, c.spec(), ddl.Foreign, s.rule()); len(p) > 0 {
		return fmt.Errorf("tables: %s", p[0].Msg)
	}
	switch {
	case len(f.cols) != 1:
		return fmt.Errorf("tables: %s is in foreign key %s of %d columns (%s), and expr and values take a foreign key of one column only; remove them", where, f.name, len(f.cols), strings.Join(f.cols, ", "))
	case pl.modes[fi] != fkDrawn:
		return fmt.Errorf("tables: %s is the foreign key that lays out the rows of %s (per_parent, or a key that starts with it), so generate picks its parent rows; remove expr and values, or lay the table out by another parent", where, ti.name)
	case s.FromSample != "" || s.rows != nil || s.Pattern != "":
		return fmt.Errorf("tables: %s is a foreign key, so from_sample and pattern do not apply to it; remove them", where)
	}
	var err error
	if s.Expr != "" {
		cp.base, err = followBase(c, s.Expr, f, er, where)
	} else {
		cp.base, err = listedKeys(c, s, f, pl.picks[fi].parent, where)
	}
	if err != nil {
		return err
	}
	pl.tp.gens = append(pl.tp.gens, cp)
	pl.tp.byName[c.name] = cp
	return nil
}

// followBase gives foreign key column c (key f) the value of the parent row's column that src
// (parent.COLUMN) names: a column of the parent that references f's table too.
func followBase(c *column, src string, f key, er exprRow, where string) (valueGen, error) {
	name, ok := genplan.FollowedParentColumn(src)
	if !ok {
		return nil, fmt.Errorf("tables: %s is a foreign key column, whose expr can only be parent.COLUMN (a column of the parent row that references %s too), so that its value is a key of %s; got %q", where, f.parent, f.parent, src)
	}
	if er.parent == nil {
		return nil, fmt.Errorf("tables: %s: expr %q reads the parent row, and the table references several tables: say which with per_parent: {parent: TABLE}", where, src)
	}
	pc := er.parent.byName[name]
	if pc == nil {
		return nil, fmt.Errorf("tables: %s: expr %q: parent table %s has no column %s generate fills", where, src, er.parent.name, name)
	}
	if !holdsKeysOf(er.parent, name, f) {
		return nil, fmt.Errorf("tables: %s: expr %q: %s.%s is not a foreign key to %s (%s), so its values need not be keys of %s; follow a column of %s that references %s", where, src, er.parent.name, name, f.parent, f.parentCols[0], f.parent, er.parent.name, f.parent)
	}
	if pc.null > 0 && !c.nullable {
		return nil, fmt.Errorf("tables: %s is NOT NULL and follows %s.%s, which gets NULLs (null_fraction); make one nullable or remove the null_fraction", where, er.parent.name, name)
	}
	pick := er.pick
	return func(dst []byte, row int64, _ *stream) []byte {
		pr, _ := pick(row)
		return pc.emit(dst, pr)
	}, nil
}

// holdsKeysOf says parent's column name holds keys of f's referenced column: it is that column
// (parent is f's table) or a one-column foreign key of parent to it.
func holdsKeysOf(parent *tablePlan, name string, f key) bool {
	if parent.name == f.parent && name == f.parentCols[0] {
		return true
	}
	return slices.ContainsFunc(parent.info.fks, func(g key) bool {
		return len(g.cols) == 1 && g.cols[0] == name && g.parent == f.parent && g.parentCols[0] == f.parentCols[0]
	})
}

// listedKeys draws foreign key column c's values from its list, after checking each is the
// key of a row of parent p: 1..rows for an auto-increment key, else a row whose key it is.
func listedKeys(c *column, s Settings, f key, p *tablePlan, where string) (valueGen, error) {
	ref := f.parentCols[0]
	pc := p.byName[ref]
	if pc == nil {
		return nil, fmt.Errorf("tables: %s: %s.%s is not filled by generate", where, p.name, ref)
	}
	if rc := p.info.column(ref); rc != nil && rc.autoInc {
		for _, v := range s.Values {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil || n < 1 || n > p.rows {
				return nil, fmt.Errorf("tables: %s: values lists %q, which is not the %s of a row of %s (they are 1 to %d); list keys of its rows", where, v, ref, p.name, p.rows)
			}
		}
		return listedGen(s), nil
	}
	if p.rows > maxKeyScan {
		return nil, fmt.Errorf("tables: %s: values on a foreign key are checked against the parent's keys, and %s has %d rows, more than the %d generate reads for it; key %s by an auto-increment, or remove values", where, p.name, p.rows, maxKeyScan, p.name)
	}
	missing := map[string]bool{}
	for _, v := range s.Values {
		missing[v] = true
	}
	var buf []byte
	for r := int64(0); r < p.rows && len(missing) > 0; r++ {
		buf = pc.emit(buf[:0], r)
		delete(missing, readQuoted(string(buf)))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("tables: %s: values lists %s, which no row of %s has as %s; list keys of its rows", where, strings.Join(sortedKeys(missing), ", "), p.name, ref)
	}
	return listedGen(s), nil
}
