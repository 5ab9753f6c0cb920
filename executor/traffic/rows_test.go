package traffic

import (
	"strings"
	"testing"
)

// TestRows: the rows go-tpc's locking statements and the forms around them name, as keys of
// a given primary key; a statement that does not tell its rows by that key (a range, an OR,
// a join, a subquery, a column left out, a value that is not a literal) is not ok, so that the
// caller orders it against the whole table.
func TestRows(t *testing.T) {
	n := func(vals ...string) string { // a key as Keys spells it
		for i, v := range vals {
			if strings.HasPrefix(v, "'") {
				vals[i] = "s" + strings.Trim(v, "'")
			} else {
				vals[i] = "n" + v
			}
		}
		return strings.Join(vals, "\x00")
	}
	for _, c := range []struct {
		sql  string
		key  string // the primary key's columns
		want []string
	}{
		{"SELECT d_next_o_id, d_tax FROM district WHERE d_id = 4 AND d_w_id = 1 FOR UPDATE", "d_w_id d_id", []string{n("1", "4")}},
		{"UPDATE district SET d_next_o_id = 3001 + 1 WHERE d_id = 4 AND d_w_id = 1", "d_w_id d_id", []string{n("1", "4")}},
		{"UPDATE stock SET s_quantity = 48, s_ytd = s_ytd + 9 WHERE s_i_id = 6167 AND s_w_id = 1", "s_w_id s_i_id", []string{n("1", "6167")}},
		{"SELECT s_i_id FROM stock WHERE (s_w_id, s_i_id) IN ((1,6167),(1,31767)) FOR UPDATE", "s_w_id s_i_id", []string{n("1", "6167"), n("1", "31767")}},
		{"DELETE FROM new_order WHERE (no_w_id, no_d_id, no_o_id) IN (\n\t(1,1,2101),(1,2,2101)\n)", "no_w_id no_d_id no_o_id", []string{n("1", "1", "2101"), n("1", "2", "2101")}},
		{"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (3001, 4, 1)", "no_w_id no_d_id no_o_id", []string{n("1", "4", "3001")}},
		{"INSERT into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_amount, ol_dist_info) VALUES (3001,4,1,1,194.02,'HUS, WHERE x'),(3001,4,1,2,262.1,'ILA')", "ol_w_id ol_d_id ol_o_id ol_number", []string{n("1", "4", "3001", "1"), n("1", "4", "3001", "2")}},
		{"UPDATE customer SET c_balance = c_balance - 1761.01 WHERE c_w_id = 1 AND c_d_id = 8 AND c_id = 405", "c_w_id c_d_id c_id", []string{n("1", "8", "405")}},
		{"UPDATE `t` SET v = 'a = 1 OR b = 2' WHERE `T`.`ID` IN (1, 2.0, '3', -4) /* or */ -- or\n", "id", []string{n("1"), n("2"), n("3"), n("-4")}},
		{"UPDATE t SET v = 1 WHERE 7 = id AND v > 3 AND name LIKE 'x%'", "id", []string{n("7")}},
		{"UPDATE t SET v = 1 WHERE name = 'Ab  ' AND id = 1", "name", []string{n("'ab")}},
		{"REPLACE INTO t (id, v) VALUES (1, NOW())", "id", []string{n("1")}},
		{"INSERT INTO t (id, v) VALUES (1, 2) ON DUPLICATE KEY UPDATE v = v + 1", "id", []string{n("1")}},
		{"SELECT no_o_id FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 ORDER BY no_o_id ASC LIMIT 1 FOR UPDATE", "no_w_id no_d_id no_o_id", nil},
		{"UPDATE order_line SET ol_delivery_d = '2026-12-03' WHERE (ol_w_id, ol_d_id, ol_o_id) IN ((1,1,2101))", "ol_w_id ol_d_id ol_o_id ol_number", nil},
		{"UPDATE t SET v = 1 WHERE id = 1 OR id = 2", "id", nil},
		{"UPDATE t SET v = 1 WHERE id = 1 + 1", "id", nil},
		{"UPDATE t SET v = 1 WHERE id = (SELECT 1)", "id", nil},
		{"DELETE FROM t WHERE id IN (SELECT id FROM u)", "id", nil},
		{"UPDATE t, u SET t.v = 1 WHERE t.id = 1 AND u.id = 1", "id", nil},
		{"UPDATE t JOIN u USING (id) SET t.v = 1 WHERE t.id = 1", "id", nil},
		{"UPDATE t SET v = 1", "id", nil},
		{"UPDATE t SET v = 1 WHERE id = NULL", "id", nil},
		{"UPDATE t SET v = 1 WHERE id = ?", "id", nil},
		{"INSERT INTO t VALUES (1, 2)", "id", nil},
		{"INSERT INTO t (id, v) SELECT id, v FROM u", "id", nil},
		{"INSERT INTO t (id, v) VALUES (1, 2), (id + 1, 3)", "id", nil},
		{"INSERT INTO t SET id = 1", "id", nil},
		{"UPDATE t SET v = 1 WHERE id = 1 /*!50000 OR 1 */", "id", nil},
		{"SELECT v FROM t FORCE INDEX (k) WHERE id = 1 FOR UPDATE", "id", nil},
		{"CALL p(1)", "id", nil},
	} {
		var got []string
		if r, ok := ParseRows(c.sql); ok {
			got, _ = r.Keys(strings.Fields(c.key))
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s\n  by (%s): %q, want %q", c.sql, c.key, got, c.want)
		}
	}
}

// TestRowsBound: an IN list longer than maxKeys is the whole table, and so is a cross product
// of lists past it.
func TestRowsBound(t *testing.T) {
	list := func(n int) string {
		v := make([]string, n)
		for i := range v {
			v[i] = "1"
		}
		return strings.Join(v, ",")
	}
	for _, c := range []struct {
		sql string
		ok  bool
	}{
		{"DELETE FROM t WHERE a IN (" + list(maxKeys) + ")", true},
		{"DELETE FROM t WHERE a IN (" + list(maxKeys+1) + ")", false},
		{"DELETE FROM t WHERE a IN (" + list(40) + ") AND b IN (" + list(40) + ")", false},
	} {
		r, ok := ParseRows(c.sql)
		if ok {
			_, ok = r.Keys([]string{"a", "b"}[:1+strings.Count(c.sql, " b IN")])
		}
		if ok != c.ok {
			t.Errorf("%.60s...: ok %v, want %v", c.sql, ok, c.ok)
		}
	}
}

// FuzzRows: any text read for its rows neither panics nor gives a key that is not one of
// the statement's own literals' (every part of a key is a canonical literal).
func FuzzRows(f *testing.F) {
	for _, s := range []string{
		"SELECT s_i_id FROM stock WHERE (s_w_id, s_i_id) IN ((1,6167),(1,31767)) FOR UPDATE",
		"INSERT into t (a, b) VALUES (1,'x, y'),(2, NOW())",
		"UPDATE t SET v = 'a' WHERE `a` = -1 AND b IN (1, 2) /* c */ -- d",
		"DELETE FROM t WHERE (a, b) IN ((1, (2)), (3",
		"UPDATE t SET v = 1 WHERE a = 'unterminated",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := ParseRows(s)
		if !ok {
			return
		}
		for _, key := range [][]string{{"a"}, {"a", "b"}, {"s_w_id", "s_i_id"}} {
			keys, ok := r.Keys(key)
			if !ok {
				continue
			}
			if len(keys) == 0 || len(keys) > maxKeys {
				t.Fatalf("%q by %v: %d keys", s, key, len(keys))
			}
			for _, k := range keys {
				for _, part := range strings.Split(k, "\x00") {
					if part == "" || part[0] != 'n' && part[0] != 's' {
						t.Fatalf("%q by %v: key part %q is not a literal", s, key, part)
					}
				}
			}
		}
	})
}
