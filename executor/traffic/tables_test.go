package traffic

import (
	"strings"
	"testing"
)

// TestTables: the tables a statement names, from go-tpc's statements and the forms around
// them; the words that stand where a table would (FOR UPDATE, ON DUPLICATE KEY UPDATE, a
// derived table, a quoted FROM) are not taken for one, and a statement whose text does not
// tell is not ok.
func TestTables(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT no_o_id FROM new_order WHERE no_w_id = 1 AND no_d_id = 3 ORDER BY no_o_id ASC LIMIT 1 FOR UPDATE", "tpcc.new_order"},
		{"SELECT /*+ TIDB_INLJ(order_line,stock) */ COUNT(DISTINCT (s_i_id)) stock_count FROM order_line, stock WHERE ol_w_id = 1", "tpcc.order_line tpcc.stock"},
		{"SELECT c_discount, c_last FROM customer c, `w`.warehouse AS w WHERE w_id = 1 FOR UPDATE NOWAIT", "tpcc.customer w.warehouse"},
		{"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (3025, 2, 'x, FROM secret')", "tpcc.new_order"},
		{"INSERT LOW_PRIORITY IGNORE INTO t(a) VALUES (1) ON DUPLICATE KEY UPDATE a = a + 1", "tpcc.t"},
		{"UPDATE district SET d_next_o_id = 3025 + 1 WHERE d_id = 2", "tpcc.district"},
		{"UPDATE a JOIN b ON a.id = b.id SET a.v = b.v", "tpcc.a tpcc.b"},
		{"DELETE FROM new_order WHERE no_o_id = 2101", "tpcc.new_order"},
		{"REPLACE INTO t SELECT * FROM (SELECT * FROM s) AS d", "tpcc.t tpcc.s"},
		{"SELECT * FROM t1 LEFT JOIN t2 USING (id) STRAIGHT_JOIN t3 ON 1", "tpcc.t1 tpcc.t2 tpcc.t3"},
		{"LOAD DATA INFILE 'f' INTO TABLE t", "tpcc.t"},
		{"CALL new_order(1)", ""},
		{"LOCK TABLES t WRITE", ""},
		{"ALTER TABLE t ADD COLUMN c INT", ""},
		{"SELECT 1 FOR UPDATE", ""},
	} {
		got, ok := Tables(Fingerprint(c.sql), "tpcc")
		if strings.Join(got, " ") != c.want || ok != (c.want != "") {
			t.Errorf("%s: %v %v, want %q", c.sql, got, ok, c.want)
		}
	}
}
