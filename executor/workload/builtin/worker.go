package builtin

import (
	"database/sql/driver"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/executor/workload/sbrand"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// Statement kinds, as the keys of oltp_common.lua's stmt_defs.
const (
	kPoint = iota
	kSimple
	kSum
	kOrder
	kDistinct
	kIndexUpd
	kNonIndexUpd
	kDelete
	kInsert
	nKinds
)

var stmtDefs = [nKinds]string{
	kPoint:       "SELECT c FROM sbtest%d WHERE id=?",
	kSimple:      "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?",
	kSum:         "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?",
	kOrder:       "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	kDistinct:    "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	kIndexUpd:    "UPDATE sbtest%d SET k=k+1 WHERE id=?",
	kNonIndexUpd: "UPDATE sbtest%d SET c=? WHERE id=?",
	kDelete:      "DELETE FROM sbtest%d WHERE id=?",
	kInsert:      "INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)",
}

// classNames are the kinds' statement classes, as stmt.CLASS.* columns name them.
var classNames = [nKinds]string{
	kPoint: "point_select", kSimple: "simple_range", kSum: "sum_range", kOrder: "order_range",
	kDistinct: "distinct_range", kIndexUpd: "index_update", kNonIndexUpd: "non_index_update",
	kDelete: "delete", kInsert: "insert",
}

// kinds are the statement kinds script name prepares.
func kinds(name string, p Params) []int {
	point := []int{kPoint}
	if p.RangeSelects {
		point = append(point, kSimple, kSum, kOrder, kDistinct)
	}
	switch name {
	case "oltp_read_write":
		return append(point, kIndexUpd, kNonIndexUpd, kDelete, kInsert)
	case "oltp_read_only":
		return point
	case "oltp_write_only":
		return []int{kIndexUpd, kNonIndexUpd, kDelete, kInsert}
	case "oltp_point_select":
		return []int{kPoint}
	case "oltp_update_index":
		return []int{kIndexUpd}
	case "oltp_update_non_index":
		return []int{kNonIndexUpd}
	case "oltp_delete":
		return []int{kDelete}
	}
	return nil
}

// Statements are the statement classes script name runs, in the order a transaction
// runs them (begin first, commit last), for its stmt.CLASS.* columns; nil when it
// has none (select_random_*, bulk_insert: one statement of their own, the event) or
// statement_stats is off. A Lap's class indexes them.
func Statements(name string, p Params) []string {
	if !p.StatementStats {
		return nil
	}
	trx := !p.SkipTrx && (name == "oltp_read_write" || name == "oltp_read_only" || name == "oltp_write_only")
	var out []string
	if trx {
		out = append(out, "begin")
	}
	for _, k := range kinds(name, p) {
		out = append(out, classNames[k])
	}
	if name == "oltp_insert" {
		out = append(out, classNames[kInsert])
	}
	if trx {
		out = append(out, "commit")
	}
	return out
}

// Shared is state shared by all workers of one run (oltp_insert's unique ids); shard
// keeps those ids distinct from other shards' too.
type Shared struct {
	unique atomic.Uint32
	shard  shard.Shard
}

// Worker runs one builtin's events on one connection.
type Worker struct {
	name    string
	p       Params
	id      int
	threads int
	rng     *sbrand.Rand
	shared  *Shared
	stmts   [][nKinds]*engine.Stmt // [table-1][kind]
	single  *engine.Stmt           // select_random_*
	args    [4]driver.Value
	many    []driver.Value
	buf     []byte
	// bulk_insert state
	bulkHead string
	bulkN    int64
	// oltp_read_only: reads left in the transaction; the last one goes out
	// with the COMMIT (engine.Conn.ExecCommit).
	left int
	// class is each kind's statement class (an index of Statements), begin and commit
	// BEGIN's and COMMIT's; -1 when not timed.
	class                   [nKinds]int
	beginClass, commitClass int
}

// NewWorker prepares worker id's statements on c, as the script's thread_init does.
func NewWorker(name string, p Params, id, threads int, shared *Shared, c *engine.Conn) (*Worker, error) {
	w := &Worker{name: name, p: p, id: id, threads: threads, rng: sbrand.New(p.Rand, id), shared: shared}
	classes := Statements(name, p)
	for k := range w.class {
		w.class[k] = slices.Index(classes, classNames[k])
	}
	w.beginClass, w.commitClass = slices.Index(classes, "begin"), slices.Index(classes, "commit")
	if len(classes) > 0 {
		c.TimeStatements(w.beginClass, w.commitClass)
	}
	switch name {
	case "oltp_point_select":
		w.p.PointSelects = 1 // oltp_point_select.lua: one query per event
	case "oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_update_index", "oltp_update_non_index", "oltp_delete", "oltp_insert":
	case "select_random_points":
		sql := "SELECT id, k, c, pad FROM sbtest1 WHERE k IN (" + strings.Repeat("?, ", p.RandomPoints-1) + "?)"
		s, err := c.Prepare(sql)
		if err != nil {
			return nil, err
		}
		w.single, w.many = s, make([]driver.Value, p.RandomPoints)
	case "select_random_ranges":
		sql := "SELECT count(k) FROM sbtest1 WHERE " + strings.Repeat("k BETWEEN ? AND ? OR ", p.NumberOfRanges-1) + "k BETWEEN ? AND ?"
		s, err := c.Prepare(sql)
		if err != nil {
			return nil, err
		}
		w.single, w.many = s, make([]driver.Value, 2*p.NumberOfRanges)
	case "bulk_insert":
		w.bulkHead = "INSERT INTO sbtest" + strconv.Itoa(id+1) + " VALUES"
	default:
		return nil, fmt.Errorf("unknown builtin %q", name)
	}
	w.stmts = make([][nKinds]*engine.Stmt, p.Tables)
	for t := range p.Tables {
		for _, k := range kinds(name, p) {
			s, err := c.PrepareAs(fmt.Sprintf(stmtDefs[k], t+1), w.class[k])
			if err != nil {
				return nil, err
			}
			w.stmts[t][k] = s
		}
	}
	return w, nil
}

func (w *Worker) table() int  { return int(w.rng.Uniform(1, uint32(w.p.Tables))) - 1 }
func (w *Worker) id64() int64 { return int64(w.rng.Default(1, uint32(w.p.TableSize))) }

// Event runs one event of the script.
func (w *Worker) Event(c *engine.Conn) (int, error) {
	switch w.name {
	case "oltp_read_write", "oltp_read_only", "oltp_write_only":
		return 0, w.transaction(c)
	case "oltp_point_select":
		return 0, w.points(c)
	case "oltp_update_index":
		return 0, w.indexUpdates(c)
	case "oltp_update_non_index":
		return 0, w.nonIndexUpdates(c)
	case "oltp_delete":
		w.args[0] = w.id64()
		return 0, w.failed(c, w.class[kDelete], c.Exec(w.stmts[w.table()][kDelete], w.args[:1]))
	case "oltp_insert":
		return 0, w.insert(c)
	case "select_random_points", "select_random_ranges":
		return 0, w.randomSelect(c)
	case "bulk_insert":
		return 0, w.bulk(c)
	}
	return 0, fmt.Errorf("unknown builtin %q", w.name)
}

func (w *Worker) transaction(c *engine.Conn) error {
	w.left = 0
	if w.name == "oltp_read_only" && !w.p.SkipTrx {
		w.left = w.p.PointSelects
		if w.p.RangeSelects {
			w.left += w.p.SimpleRanges + w.p.SumRanges + w.p.OrderRanges + w.p.DistinctRanges
		}
	}
	committed := w.left > 0
	if !w.p.SkipTrx {
		if err := c.Begin(); err != nil {
			return w.failed(c, w.beginClass, err)
		}
	}
	if w.name != "oltp_write_only" {
		if err := w.points(c); err != nil {
			return err
		}
		if w.p.RangeSelects {
			for _, k := range []struct {
				kind, n int
			}{{kSimple, w.p.SimpleRanges}, {kSum, w.p.SumRanges}, {kOrder, w.p.OrderRanges}, {kDistinct, w.p.DistinctRanges}} {
				if err := w.ranges(c, k.kind, k.n); err != nil {
					return err
				}
			}
		}
	}
	if w.name != "oltp_read_only" {
		if err := w.indexUpdates(c); err != nil {
			return err
		}
		if err := w.nonIndexUpdates(c); err != nil {
			return err
		}
		if err := w.deleteInserts(c); err != nil {
			return err
		}
	}
	if !w.p.SkipTrx && !committed {
		if err := c.Commit(); err != nil {
			return w.failed(c, w.commitClass, err)
		}
	}
	return nil
}

// failed counts err against the statement class that got it (stmt.CLASS.errors) and
// returns it.
func (w *Worker) failed(c *engine.Conn, class int, err error) error {
	if err != nil {
		c.LapError(class, err)
	}
	return err
}

// read runs a read of kind; the last read of a read-only transaction commits too (an
// error is the read's: a COMMIT of reads has nothing to conflict on).
func (w *Worker) read(c *engine.Conn, kind int, s *engine.Stmt, args []driver.Value) error {
	if w.left > 0 {
		w.left--
		if w.left == 0 {
			return w.failed(c, w.class[kind], c.ExecCommit(s, args))
		}
	}
	return w.failed(c, w.class[kind], c.Exec(s, args))
}

func (w *Worker) points(c *engine.Conn) error {
	s := w.stmts[w.table()][kPoint]
	for range w.p.PointSelects {
		w.args[0] = w.id64()
		if err := w.read(c, kPoint, s, w.args[:1]); err != nil {
			return err
		}
	}
	return nil
}

func (w *Worker) ranges(c *engine.Conn, kind, n int) error {
	s := w.stmts[w.table()][kind]
	for range n {
		id := w.id64()
		w.args[0], w.args[1] = id, id+int64(w.p.RangeSize)-1
		if err := w.read(c, kind, s, w.args[:2]); err != nil {
			return err
		}
	}
	return nil
}

func (w *Worker) indexUpdates(c *engine.Conn) error {
	s := w.stmts[w.table()][kIndexUpd]
	for range w.p.IndexUpdates {
		w.args[0] = w.id64()
		if err := c.Exec(s, w.args[:1]); err != nil {
			return w.failed(c, w.class[kIndexUpd], err)
		}
	}
	return nil
}

func (w *Worker) nonIndexUpdates(c *engine.Conn) error {
	s := w.stmts[w.table()][kNonIndexUpd]
	for range w.p.NonIndexUpdates {
		w.buf = w.rng.String(w.buf[:0], sbrand.CTemplate)
		w.args[0], w.args[1] = string(w.buf), w.id64()
		if err := c.Exec(s, w.args[:2]); err != nil {
			return w.failed(c, w.class[kNonIndexUpd], err)
		}
	}
	return nil
}

func (w *Worker) deleteInserts(c *engine.Conn) error {
	t := w.table()
	del, ins := w.stmts[t][kDelete], w.stmts[t][kInsert]
	for range w.p.DeleteInserts {
		id, k := w.id64(), w.id64()
		w.args[0] = id
		if err := c.Exec(del, w.args[:1]); err != nil {
			return w.failed(c, w.class[kDelete], err)
		}
		w.buf = w.rng.String(w.buf[:0], sbrand.CTemplate)
		cval := string(w.buf)
		w.buf = w.rng.String(w.buf[:0], sbrand.PadTemplate)
		w.args[0], w.args[1], w.args[2], w.args[3] = id, k, cval, string(w.buf)
		if err := c.Exec(ins, w.args[:4]); err != nil {
			return w.failed(c, w.class[kInsert], err)
		}
	}
	return nil
}

// insert is oltp_insert.lua: a text-protocol INSERT, id 0 (auto_inc) or a unique id.
func (w *Worker) insert(c *engine.Conn) error {
	t := w.table() + 1
	k := w.id64()
	var id int64
	if !w.p.AutoInc {
		id = int64(w.unique()) - 2147483648
	}
	b := append(w.buf[:0], "INSERT INTO sbtest"...)
	b = strconv.AppendInt(b, int64(t), 10)
	b = append(b, " (id, k, c, pad) VALUES ("...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, k, 10)
	b = append(b, ", '"...)
	b = w.rng.String(b, sbrand.CTemplate)
	b = append(b, "', '"...)
	b = w.rng.String(b, sbrand.PadTemplate)
	b = append(b, "')"...)
	w.buf = b
	if w.class[kInsert] < 0 {
		_, err := c.ExecText(string(b), false, nil)
		return err
	}
	t0 := time.Now()
	_, err := c.ExecText(string(b), false, nil)
	if err == nil {
		c.Lap(w.class[kInsert], time.Since(t0))
	}
	return w.failed(c, w.class[kInsert], err)
}

// unique returns distinct uint32s across all workers of the run (sysbench.rand.unique):
// a counter through an odd multiplier, a bijection on uint32.
func (w *Worker) unique() uint32 {
	return w.shared.shard.Unique(w.shared.unique.Add(1))*0x9E3779B1 + 0x7F4A7C15
}

// randomSelect is select_random_points/ranges: each thread draws from its own
// slice of [0, table_size] so threads' ranges do not overlap.
func (w *Worker) randomSelect(c *engine.Conn) error {
	rlen := int64(w.p.TableSize) / int64(w.threads)
	rmin := rlen * int64(w.id%w.threads)
	rmax := rmin + rlen
	if w.name == "select_random_points" {
		for i := range w.many {
			w.many[i] = int64(w.rng.Default(uint32(rmin), uint32(rmax)))
		}
	} else {
		for i := 0; i < len(w.many); i += 2 {
			v := int64(w.rng.Default(uint32(rmin), uint32(rmax)))
			w.many[i], w.many[i+1] = v, v+int64(w.p.Delta)
		}
	}
	return c.Exec(w.single, w.many)
}

// bulk is bulk_insert.lua: every event appends one row to a multi-row INSERT,
// sent when it reaches sysbench's bulk buffer size.
func (w *Worker) bulk(c *engine.Conn) error {
	if len(w.buf) == 0 {
		w.buf = append(w.buf, w.bulkHead...)
	} else {
		w.buf = append(w.buf, ',')
	}
	w.bulkN++
	w.buf = append(w.buf, '(')
	w.buf = strconv.AppendInt(w.buf, w.bulkN, 10)
	w.buf = append(w.buf, ',')
	w.buf = strconv.AppendInt(w.buf, w.bulkN, 10)
	w.buf = append(w.buf, ')')
	if len(w.buf) >= bulkSize {
		return w.Finish(c)
	}
	return nil
}

// Finish sends bulk_insert's pending rows.
func (w *Worker) Finish(c *engine.Conn) error {
	if w.name != "bulk_insert" || len(w.buf) == 0 {
		return nil
	}
	_, err := c.ExecText(string(w.buf), false, nil)
	w.buf = w.buf[:0]
	return err
}
