package verify

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
)

// Bounds on what is held to show differing rows: a result set beyond them is not held (its
// rest is read and dropped) and its rows are not shown.
const (
	maxHeldRows  = 10000
	maxHeldBytes = 4 << 20
	// maxCellShown cuts a cell of query-details.jsonl, maxCellSaid one in a first difference.
	maxCellShown = 1024
	maxCellSaid  = 64
)

// tooLarge is the first difference of results beyond the bounds.
var tooLarge = fmt.Sprintf("too large to show rows (more than %d rows or %d MB on a side)", maxHeldRows, maxHeldBytes>>20)

// sameAgain is the first difference when the rows were the same when run again: the data
// changed in between, or the statement's result depends on more than its text.
const sameAgain = "rows the same when run again"

// detailer writes query-details.jsonl: per fingerprint and compared target that differed,
// both plans and, when the rows differed, the differing rows of the sample run again on
// both sides. It has a connection of its own per target.
type detailer struct {
	targets  []Target
	sessions []*session
	out      *results.Writer
	redact   func(string) string // Options.Redact
	err      error               // the first failure to write
}

func newDetailer(targets []Target, out *results.Writer) *detailer {
	d := &detailer{targets: targets, out: out, sessions: make([]*session, len(targets))}
	for i, t := range targets {
		d.sessions[i] = &session{name: t.Name, db: t.DB}
	}
	return d
}

// close ends the connections and says whether every line was written.
func (d *detailer) close() error {
	for _, s := range d.sessions {
		s.close()
	}
	return d.err
}

// add writes the line of fingerprint fi against target ti, whose queries.csv row is r, and
// returns r with its differences saying where the rows first differ when that is known.
func (d *detailer) add(ctx context.Context, fp *fingerprint, fi, ti int, runs []*targetRun, r results.QueryRow) results.QueryRow {
	if d.out == nil || d.err != nil {
		return r
	}
	base, other := runs[0], runs[ti]
	qd := results.QueryDetail{FingerprintID: fp.id, Target: r.Target, Statement: r.Example}
	if fp.explain {
		bp, op := plansOf(base, other, fi)
		qd.BasePlan, qd.Plan = planLines(bp), planLines(op)
	}
	if j := rowsDiffer(fp, base, other, fi); j >= 0 && r.Results == results.VerifyDifferent && ctx.Err() == nil {
		smp := fp.samples[j]
		qd.Statement = smp.text
		hb, errB := d.sessions[0].hold(ctx, smp)
		ho, errO := d.sessions[ti].hold(ctx, smp)
		switch {
		case errB != nil:
			qd.FirstDifference = fmt.Sprintf("could not run again on %s: %v", d.targets[0].Name, errB)
		case errO != nil:
			qd.FirstDifference = fmt.Sprintf("could not run again on %s: %v", d.targets[ti].Name, errO)
		default:
			qd.Columns = hb.cols
			qd.BaseRows, qd.Rows, qd.FirstDifference = diffRows(hb, ho, fp.ordered)
			if qd.FirstDifference != tooLarge && qd.FirstDifference != sameAgain {
				b, o := base.outcomes[fi][j], other.outcomes[fi][j]
				r.Differences = withFirstDifference(r.Differences, qd.FirstDifference, b.rows, o.rows)
			}
		}
	}
	if err := d.out.AppendQueryDetail(redactDetail(qd, d.redact)); err != nil {
		d.err = fmt.Errorf("verify: %w", err)
	}
	return r
}

// rowsDiffer is the first sample of fingerprint fi whose rows differ (both ran alike and
// without error, comparable): -1 for none.
func rowsDiffer(fp *fingerprint, base, other *targetRun, fi int) int {
	if fp.noCompare {
		return -1
	}
	for j := range fp.samples {
		b, o := base.outcomes[fi][j], other.outcomes[fi][j]
		if b.ran && o.ran && b.code == 0 && o.code == 0 && b.setup == o.setup && (b.sum != o.sum || b.rows != o.rows) {
			return j
		}
	}
	return -1
}

func planLines(p planOutcome) []string {
	switch {
	case p.plan != nil:
		return p.plan.Lines()
	case p.err != "":
		return []string{"EXPLAIN: " + p.err}
	}
	return nil
}

// withFirstDifference puts first in place of the checksum phrase of a differences cell.
func withFirstDifference(diffs, first string, baseRows, rows int64) string {
	if baseRows != rows {
		first += fmt.Sprintf(", rows %d → %d", baseRows, rows)
	}
	parts := strings.Split(diffs, "; ")
	for i, p := range parts {
		if strings.HasPrefix(p, "row checksum") {
			parts[i] = first
			return strings.Join(parts, "; ")
		}
	}
	return diffs
}

// held is a statement's rows, up to the bounds.
type held struct {
	cols []string
	rows [][]*string
	full bool // the bounds were reached: there were more rows than held
}

// hold runs the sample again, in its context, keeping its rows up to the bounds.
func (s *session) hold(ctx context.Context, smp sample) (held, error) {
	code, ok := s.readyFor(ctx, smp)
	if !ok {
		return held{}, fmt.Errorf("target lost: %s", s.lost)
	}
	if code != 0 {
		return held{}, fmt.Errorf("error %d", code)
	}
	h, err := s.holdRows(ctx, smp.text)
	if err != nil {
		if code, ok := errorCode(err); ok {
			return held{}, fmt.Errorf("error %d", code)
		}
		s.drop(err)
		return held{}, err
	}
	return h, nil
}

func (s *session) holdRows(ctx context.Context, text string) (held, error) {
	rows, err := s.conn.QueryContext(ctx, text)
	if err != nil {
		return held{}, err
	}
	defer rows.Close()
	var h held
	if h.cols, err = rows.Columns(); err != nil {
		return held{}, err
	}
	cells := make([]sql.RawBytes, len(h.cols))
	ptrs := make([]any, len(cells))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	size := 0
	for rows.Next() {
		if len(h.rows) >= maxHeldRows || size >= maxHeldBytes {
			// Closing reads the rest without keeping it.
			h.full = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return held{}, err
		}
		row := make([]*string, len(cells))
		for i, c := range cells {
			if c != nil {
				v := string(c)
				row[i] = &v
				size += len(c)
			}
		}
		size += 16 * len(cells)
		h.rows = append(h.rows, row)
	}
	if err := rows.Close(); err != nil {
		return held{}, err
	}
	return h, rows.Err()
}

// diffRows finds the differing rows of two results: from the first position where they
// differ for an ordered statement; those on one side and not the other, both sorted, for an
// unordered one. It keeps results.MaxDetailRows on each side and says where the first
// difference is.
func diffRows(b, o held, ordered bool) (baseRows, rows [][]*string, first string) {
	if len(b.cols) != len(o.cols) {
		return shown(b.rows), shown(o.rows), fmt.Sprintf("columns %s → %s", strings.Join(b.cols, ", "), strings.Join(o.cols, ", "))
	}
	if ordered {
		i := 0
		for i < len(b.rows) && i < len(o.rows) && compareRows(b.rows[i], o.rows[i]) == 0 {
			i++
		}
		switch {
		case i == len(b.rows) && b.full, i == len(o.rows) && o.full:
			// the difference, if any, is past what was held
			return nil, nil, tooLarge
		case i == len(b.rows) && i == len(o.rows):
			return nil, nil, sameAgain
		}
		return shown(b.rows[i:]), shown(o.rows[i:]), describe(fmt.Sprintf("row %d", i+1), b.cols, at(b.rows, i), at(o.rows, i))
	}
	if b.full || o.full {
		return nil, nil, tooLarge
	}
	sortRows(b.rows)
	sortRows(o.rows)
	var onlyB, onlyO []int // positions in the sorted rows
	i, j := 0, 0
	for i < len(b.rows) || j < len(o.rows) {
		c := 0
		switch {
		case i == len(b.rows):
			c = 1
		case j == len(o.rows):
			c = -1
		default:
			c = compareRows(b.rows[i], o.rows[j])
		}
		switch {
		case c < 0:
			onlyB = append(onlyB, i)
			i++
		case c > 0:
			onlyO = append(onlyO, j)
			j++
		default:
			i++
			j++
		}
	}
	if len(onlyB) == 0 && len(onlyO) == 0 {
		return nil, nil, sameAgain
	}
	pick := func(rows [][]*string, at []int) [][]*string {
		var out [][]*string
		for _, k := range at[:min(len(at), results.MaxDetailRows)] {
			out = append(out, rows[k])
		}
		return shown(out)
	}
	var br, or []*string
	pos := 0
	if len(onlyB) > 0 {
		br, pos = b.rows[onlyB[0]], onlyB[0]
	}
	if len(onlyO) > 0 {
		or = o.rows[onlyO[0]]
		if len(onlyB) == 0 {
			pos = onlyO[0]
		}
	}
	where := fmt.Sprintf("row %d", pos+1)
	if len(b.rows) > 1 || len(o.rows) > 1 {
		// which row is the first of an unordered result is the sort's
		where += " (sorted)"
	}
	return pick(b.rows, onlyB), pick(o.rows, onlyO), describe(where, b.cols, br, or)
}

func at(rows [][]*string, i int) []*string {
	if i < len(rows) {
		return rows[i]
	}
	return nil
}

// describe says how row b became row o ("row 3, column 2 (price): 12.50 → 12.5000"); a
// missing row is nil.
func describe(where string, cols []string, b, o []*string) string {
	switch {
	case b == nil:
		return fmt.Sprintf("%s: none → %s", where, rowText(o))
	case o == nil:
		return fmt.Sprintf("%s: %s → none", where, rowText(b))
	}
	for c := range b {
		if compareCells(b[c], o[c]) != 0 {
			return fmt.Sprintf("%s, column %d (%s): %s → %s", where, c+1, cols[c], cellText(b[c]), cellText(o[c]))
		}
	}
	return where
}

func rowText(r []*string) string {
	cells := make([]string, len(r))
	for i, c := range r {
		cells[i] = cellText(c)
	}
	return "(" + strings.Join(cells, ", ") + ")"
}

func cellText(c *string) string {
	if c == nil {
		return "NULL"
	}
	return cut(*c, maxCellSaid)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// shown is at most results.MaxDetailRows rows, their long cells cut.
func shown(rows [][]*string) [][]*string {
	var out [][]*string
	for _, r := range rows[:min(len(rows), results.MaxDetailRows)] {
		row := make([]*string, len(r))
		for i, c := range r {
			if c != nil {
				v := cut(*c, maxCellShown)
				row[i] = &v
			}
		}
		out = append(out, row)
	}
	return out
}

// compareRows orders rows cell by cell, NULL first, the cells' bytes (not the server's
// collation: any total order pairs equal rows).
func compareRows(a, b []*string) int {
	for i := range min(len(a), len(b)) {
		if c := compareCells(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func compareCells(a, b *string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return strings.Compare(*a, *b)
}

func sortRows(rows [][]*string) { slices.SortFunc(rows, compareRows) }
