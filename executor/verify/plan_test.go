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

// MySQL 8's JSON in the shapes its own test suite records (mysql-test's explain_json
// results; MySQL cannot be installed here to record it from a server): a join as a
// nested_loop, with cost_info objects and rows as rows_examined_per_scan, a derived table
// whose query_block nests under its table, a UNION's query_specifications, and a "message"
// table of a query_block that reads none. Join order is document order, nested blocks after
// the table that holds them.
func TestReducePlanMySQLShapes(t *testing.T) {
	p, err := ReducePlan([]byte(`{
  "query_block": {
    "select_id": 1,
    "cost_info": {"query_cost": "12.10"},
    "ordering_operation": {
      "using_filesort": true,
      "cost_info": {"sort_cost": "2.00"},
      "nested_loop": [
        {"table": {"table_name": "o", "access_type": "ALL", "possible_keys": ["idx_customer"],
                   "rows_examined_per_scan": 4000, "rows_produced_per_join": 400, "filtered": "10.00",
                   "cost_info": {"read_cost": "370.00", "eval_cost": "40.00", "prefix_cost": "410.00", "data_read_per_join": "12K"},
                   "used_columns": ["id", "customer_id"], "attached_condition": "(o.amount > 10)"}},
        {"table": {"table_name": "c", "access_type": "eq_ref", "possible_keys": ["PRIMARY"], "key": "PRIMARY",
                   "used_key_parts": ["id"], "key_length": "4", "ref": ["shop.o.customer_id"],
                   "rows_examined_per_scan": 1, "rows_produced_per_join": 400, "filtered": "100.00",
                   "cost_info": {"read_cost": "100.00", "eval_cost": "40.00", "prefix_cost": "550.00", "data_read_per_join": "9K"},
                   "used_columns": ["id", "name"]}},
        {"table": {"table_name": "d", "access_type": "ref", "key": "<auto_key0>", "rows_examined_per_scan": 2,
                   "materialized_from_subquery": {"using_temporary_table": true, "dependent": false, "cacheable": true,
                     "query_block": {"select_id": 2, "table": {"table_name": "items", "access_type": "range", "key": "idx_order",
                       "rows_examined_per_scan": 30, "cost_info": {"read_cost": "3.00"}}}}}}
      ]
    }
  }
}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{Tables: []Access{{"o", "ALL", "", 4000}, {"c", "eq_ref", "PRIMARY", 1}, {"d", "ref", "<auto_key0>", 2}, {"items", "range", "idx_order", 30}},
		Temporary: true, Filesort: true}
	if !reflect.DeepEqual(*p, want) {
		t.Errorf("join:\n got %+v\nwant %+v", *p, want)
	}

	u, err := ReducePlan([]byte(`{"query_block": {"union_result": {"using_temporary_table": true, "table_name": "<union1,2>", "access_type": "ALL",
  "query_specifications": [
    {"dependent": false, "cacheable": true, "query_block": {"select_id": 1, "table": {"table_name": "t1", "access_type": "ALL", "rows_examined_per_scan": 7}}},
    {"dependent": false, "cacheable": true, "query_block": {"select_id": 2, "table": {"message": "Impossible WHERE noticed after reading const tables"}}}
  ]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Tables) != 2 || u.Tables[0] != (Access{"t1", "ALL", "", 7}) || !u.Temporary || u.Filesort {
		t.Errorf("union: %+v; want t1 then the message table, a temporary table, no filesort", *u)
	}
	// the same union on a server that now reads t1 by an index is another plan
	v := *u
	v.Tables = append([]Access{{"t1", "index", "k", 7}}, u.Tables[1:]...)
	if d := u.Diff(&v); len(d) == 0 {
		t.Errorf("a union whose first table went from ALL to index: no difference")
	}
}

// EXPLAIN sees the first explainSamples samples: a plan that changes for one literal only
// (a range of half the table) is a different plan, told by that sample's pair.
func TestComparePlansOfSeveralSamples(t *testing.T) {
	smps := []sample{{text: "SELECT a FROM t WHERE k < 10"}, {text: "SELECT a FROM t WHERE k < 20"}, {text: "SELECT a FROM t WHERE k < 5000"}}
	fp := &fingerprint{id: "q1", text: "select a from t where k<?", samples: smps, explain: true}
	ran := []outcome{{ran: true, rows: 1, sum: "1:a"}, {ran: true, rows: 1, sum: "1:a"}, {ran: true, rows: 1, sum: "1:a"}}
	rangeK := &Plan{Tables: []Access{{"t", "range", "k", 10}}}
	scan := &Plan{Tables: []Access{{"t", "ALL", "", 9000}}}
	base := &targetRun{outcomes: [][]outcome{ran}, plans: [][]planOutcome{{{plan: rangeK}, {plan: rangeK}, {plan: rangeK}}}}
	next := &targetRun{outcomes: [][]outcome{ran}, plans: [][]planOutcome{{{plan: rangeK}, {plan: rangeK}, {plan: scan}}}}
	r := compare(fp, "base", "new", base, next, 0)
	if r.Plan != "different" || !strings.Contains(r.Differences, "t: range on k → ALL") {
		t.Errorf("plan %s, differences %q; want different, t: range on k → ALL (the third sample's)", r.Plan, r.Differences)
	}
	if bp, op := plansOf(base, next, 0); bp.plan != rangeK || op.plan != scan {
		t.Errorf("plansOf gave %+v and %+v; want the third sample's pair", bp.plan, op.plan)
	}
	next.plans[0][2] = planOutcome{plan: rangeK}
	if r := compare(fp, "base", "new", base, next, 0); r.Plan != "same" || r.Differences != "" {
		t.Errorf("the same plans for every sample: plan %s, differences %q", r.Plan, r.Differences)
	}
}
