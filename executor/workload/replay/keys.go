package replay

import (
	"context"
	"database/sql"
	"hash/maphash"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/executor/traffic"
)

// The locking order per row (lockorder.go): two statements on one table that lock disjoint
// rows by the table's primary key need no order between them. Measured on go-tpc's TPC-C
// (bench/replay_commit_order.sh), keeping a table's locking statements one at a time made
// the ordered replay 1.4x slower than the unordered one: stock's 24,000 updates by key in a
// 10 s capture, of 100,000 rows, almost never meet. A statement is keyed when its text names
// every primary key column with literals (traffic.ParseRows) on a table whose rows only that
// key locks:
//   - the table has a primary key without a prefix part and no other unique index (an
//     INSERT's or an UPDATE's check of another unique index locks that index's rows, which
//     no text tells);
//   - the table is alone in its order group (no foreign key to or from another table the
//     capture locks, no trigger, not a view: relations.go);
//   - a statement that reads rows (not an INSERT) found in the capture as many rows as it has
//     keys: one that found fewer met a missing row, and InnoDB locks the gap where it would
//     be, which is the table's to order.
//
// A keyed statement waits for the earlier statements on the same rows and for the earlier
// unkeyed ones on its table; an unkeyed one waits for every earlier one on its table, keyed
// or not. The rule is still "a subset of what ended before": it cannot deadlock (lockorder.go).

// primaryKeys reads the primary keys of the target's tables, a schema at a time as the scan
// meets them: key(table) is the table's primary key columns (lower case, in order), or nil
// for a table whose rows are not told by its key alone (no primary key, a prefix part, another
// unique index) or that the target does not show.
type primaryKeys struct {
	cfg    *mysql.Config
	logf   func(string, ...any)
	db     *sql.DB
	failed bool
	read   map[string]bool     // schemas read
	keys   map[string][]string // "db.table" -> key
}

func newPrimaryKeys(cfg *mysql.Config, logf func(string, ...any)) *primaryKeys {
	return &primaryKeys{cfg: cfg, logf: logf, read: map[string]bool{}, keys: map[string][]string{}}
}

// keysQuery lists every unique index's columns of one schema's tables.
const keysQuery = "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND NON_UNIQUE = 0 ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX"

func (p *primaryKeys) key(table string) []string {
	if p == nil {
		return nil
	}
	schema, _, _ := strings.Cut(table, ".")
	if !p.read[schema] && !p.failed {
		p.read[schema] = true
		if err := p.readSchema(schema); err != nil {
			p.failed = true
			p.logf("replay: the target's primary keys not read (%v): the locking statements are kept in order per table, not per row", err)
		}
	}
	return p.keys[table]
}

func (p *primaryKeys) readSchema(schema string) error {
	if p.db == nil {
		conn, err := authretry.NewConnector(p.cfg.Clone())
		if err != nil {
			return err
		}
		p.db = sql.OpenDB(conn)
		p.db.SetMaxOpenConns(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	other := map[string]bool{} // tables with another unique index, or a prefix in the key
	err := rows(ctx, p.db, keysQuery, []any{schema}, func(v []string) {
		t := name(schema, v[0])
		if v[1] != "PRIMARY" || v[3] != "" {
			other[t] = true
			return
		}
		p.keys[t] = append(p.keys[t], strings.ToLower(v[2]))
	})
	for t := range other {
		delete(p.keys, t)
	}
	return err
}

func (p *primaryKeys) close() {
	if p != nil && p.db != nil {
		_ = p.db.Close()
	}
}

// rowKeys are the keys of the rows a locking statement on one table locks, hashed with the
// table's name; nil when the statement is not keyed (see above).
func (o *orderScan) rowKeys(s *traffic.Statement, table string) []uint64 {
	pk := o.keys.key(table)
	if pk == nil {
		return nil
	}
	r, ok := traffic.ParseRows(s.Text)
	if !ok {
		return nil
	}
	keys, ok := r.Keys(pk)
	if !ok {
		return nil
	}
	if !startsWithWord(s.Text, "insert") && !startsWithWord(s.Text, "replace") && s.RowsExamined != int64(len(keys)) {
		return nil // a missing row (a gap lock), or the source does not say
	}
	out := make([]uint64, len(keys))
	for i, k := range keys {
		out[i] = maphash.String(o.seed, table+"\x00"+k)
	}
	return out
}
