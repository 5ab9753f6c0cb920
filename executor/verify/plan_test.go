package verify

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The testdata EXPLAINs are MariaDB's, recorded from the sandboxes of
// TestVerifyFlagsPlanAndResults (QUADRANT_RECORD_EXPLAIN=DIR writes them again).
func readPlan(t *testing.T, name string) *Plan {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReducePlan(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReducePlan(t *testing.T) {
	for _, c := range []struct {
		file string
		want Plan
	}{
		{"ref.json", Plan{Tables: []Access{{"orders", "ref", "idx_customer", 20}}}},
		{"all.json", Plan{Tables: []Access{{"orders", "ALL", "", 4000}}}},
		{"join.json", Plan{Tables: []Access{{"c", "range", "PRIMARY", 19}, {"o", "ref", "idx_customer", 10}}, Temporary: true, Filesort: true}},
		{"join-noindex.json", Plan{Tables: []Access{{"o", "ALL", "", 4000}, {"c", "eq_ref", "PRIMARY", 1}}, Temporary: true, Filesort: true}},
	} {
		if got := readPlan(t, c.file); !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.file, *got, c.want)
		}
	}
}

func TestPlanDiff(t *testing.T) {
	ref, all := readPlan(t, "ref.json"), readPlan(t, "all.json")
	join, noindex := readPlan(t, "join.json"), readPlan(t, "join-noindex.json")
	for _, c := range []struct {
		name        string
		base, other *Plan
		want        string
	}{
		{"same", ref, readPlan(t, "ref.json"), ""},
		{"index dropped", ref, all, "orders: ref on idx_customer → ALL"},
		{"join order", join, noindex, "join order c, o → o, c"},
		{"rows within the factor", ref, &Plan{Tables: []Access{{"orders", "ref", "idx_customer", 150}}}, ""},
		{"rows beyond the factor", ref, &Plan{Tables: []Access{{"orders", "ref", "idx_customer", 250}}}, "orders: rows 20 → 250"},
		{"filesort and temporary", &Plan{Tables: join.Tables}, join, "temporary table no → yes; filesort no → yes"},
	} {
		if got := strings.Join(c.base.Diff(c.other), "; "); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// MySQL says filesort and temporary tables with flags rather than steps, and its rows as
// rows_examined_per_scan.
func TestReducePlanMySQLFlags(t *testing.T) {
	p, err := ReducePlan([]byte(`{"query_block": {"select_id": 1, "ordering_operation": {"using_filesort": true, "grouping_operation": {"using_temporary_table": true,
		"table": {"table_name": "t", "access_type": "index", "key": "k", "rows_examined_per_scan": 12, "used_columns": ["a"]}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{Tables: []Access{{"t", "index", "k", 12}}, Temporary: true, Filesort: true}
	if !reflect.DeepEqual(*p, want) {
		t.Errorf("%+v, want %+v", *p, want)
	}
	if _, err := ReducePlan([]byte(`{"query_block": {`)); err == nil {
		t.Error("a truncated EXPLAIN reduced without an error")
	}
}

func TestStatementRules(t *testing.T) {
	for _, c := range []struct {
		text             string
		nondet, orderedQ bool
	}{
		{"SELECT NOW()", true, false},
		{"select id from t where d > current_timestamp", true, false},
		{"SELECT RAND ( ) FROM t ORDER BY id", true, true},
		{"SELECT now_col FROM t", false, false},
		{"SHOW GLOBAL STATUS", true, false},
		{"SHOW CREATE TABLE t", false, false},
		{"SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) x", false, false},
		{"SELECT a FROM t WHERE b IN (SELECT b FROM u) ORDER BY a", false, true},
		{"SELECT reorder_by FROM t", false, false},
	} {
		if got := nondeterministic(c.text); got != c.nondet {
			t.Errorf("nondeterministic(%q) = %v", c.text, got)
		}
		if got := topLevelOrderBy(c.text); got != c.orderedQ {
			t.Errorf("topLevelOrderBy(%q) = %v", c.text, got)
		}
	}
}

func TestPlanLines(t *testing.T) {
	got := readPlan(t, "join.json").Lines()
	want := []string{"c: range on PRIMARY, rows ~19", "o: ref on idx_customer, rows ~10", "temporary table", "filesort"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Lines() = %q, want %q", got, want)
	}
}
