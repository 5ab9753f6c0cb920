package verify

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results"
)

// Two servers differing in four ways at once (an index dropped, div_precision_increment,
// ONLY_FULL_GROUP_BY in sql_mode, a column's collation) and a capture of three sessions,
// one of which sets div_precision_increment and sql_mode and runs a prepared statement:
// verify flags exactly the fingerprints the differences touch (four, and a division whose
// result is too large to show rows), each for its reason and with its query-details.jsonl line; the statements of the session that set both
// variables run with them on both servers (so the same), NOW() is not comparable, and
// every other fingerprint is same/same.
func TestVerifyKindsOfDifference(t *testing.T) {
	base, next := startPair(t, []sandbox.Option{
		{Name: "div_precision_increment", Value: "4"},
		{Name: "sql_mode", Value: "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"}},
		[]sandbox.Option{
			{Name: "div_precision_increment", Value: "8"},
			{Name: "sql_mode", Value: "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"}})
	shop(t, base.Primary, false)
	shop(t, next.Primary, true)
	for s, collation := range map[*sandbox.Server]string{base.Primary: "utf8mb4_general_ci", next.Primary: "utf8mb4_bin"} {
		if err := s.Exec(context.Background(),
			"CREATE TABLE shop.fruits (id INT PRIMARY KEY, name VARCHAR(20) CHARACTER SET utf8mb4 COLLATE "+collation+" NOT NULL)",
			"INSERT INTO shop.fruits VALUES (1, 'cherry'), (2, 'Banana'), (3, 'apple')"); err != nil {
			t.Fatal(err)
		}
	}

	const (
		lookup  = "SELECT id, amount FROM orders WHERE customer_id = 7"
		divSet  = "SELECT id, amount / 3 AS third FROM orders WHERE id = 6"
		groupOK = "SELECT name, id FROM customers WHERE id <= 3 GROUP BY name"
		byID    = "SELECT name FROM customers WHERE id = 4"
		div     = "SELECT id, amount / 7 FROM orders WHERE id = 5"
		group   = "SELECT name, COUNT(*) FROM customers WHERE id <= 3 GROUP BY id"
		fruits  = "SELECT name FROM fruits ORDER BY name"
		now     = "SELECT NOW(), name FROM customers WHERE id = 1"
		count   = "SELECT COUNT(*) FROM customers"
		// more rows than a detail holds
		large = "SELECT seq, seq / 7 FROM seq_1_to_10001"
	)
	dir := t.TempDir()
	capPath := filepath.Join(dir, "traffic.qcap")
	writeTraffic(t, capPath, []traffic.Statement{
		// Session 21 runs its reads in settings of its own, the same on both servers.
		{Session: 21, Schema: "shop", Text: "SET div_precision_increment = 2"},
		{Session: 21, Schema: "shop", Text: "SET SESSION sql_mode = 'STRICT_TRANS_TABLES'"},
		{Session: 21, Schema: "shop", Text: divSet},
		{Session: 21, Schema: "shop", Text: groupOK},
		{Session: 21, Schema: "shop", Text: "PREPARE byId FROM 'SELECT name FROM customers WHERE id = ?'"},
		{Session: 21, Schema: "shop", Text: "SET @id = 4"},
		{Session: 21, Schema: "shop", Text: "EXECUTE byId USING @id"},
		// Sessions 22 and 23 run in the servers' defaults.
		{Session: 22, Schema: "shop", Text: div},
		{Session: 22, Schema: "shop", Text: group},
		{Session: 23, Schema: "shop", Text: fruits},
		{Session: 22, Schema: "shop", Text: now},
		{Session: 23, Schema: "shop", Text: count},
		{Session: 23, Schema: "shop", Text: lookup},
		{Session: 22, Schema: "shop", Text: large},
		{Session: 21, Schema: "shop", Text: divSet},
	})

	out := filepath.Join(dir, "out")
	w, err := results.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{Traffic: capPath, Sample: 3, Seed: 1, Out: w, Logf: t.Logf,
		Targets: []Target{{"base", sandboxtest.DB(t, base.Primary.DSN(""), 2)}, {"new", sandboxtest.DB(t, next.Primary.DSN(""), 2)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadQueries(out)
	if err != nil {
		t.Fatal(err)
	}
	details, err := results.ReadQueryDetails(out)
	if err != nil {
		t.Fatal(err)
	}
	byExample := map[string]results.QueryRow{}
	for _, r := range rows {
		byExample[r.Example] = r
		t.Logf("%s | %s | %s | %v %v | %s", r.Example, r.Results, r.Plan, r.BaseErrors, r.Errors, r.Differences)
	}
	detailOf := map[string]results.QueryDetail{}
	for _, d := range details {
		detailOf[d.FingerprintID] = d
		t.Logf("detail %s: %+v", d.Statement, d)
	}
	if len(rows) != 10 || len(byExample) != 10 {
		t.Fatalf("%d rows in queries.csv (%d examples), want 10: one per fingerprint", len(rows), len(byExample))
	}
	if sum.Different != 5 || len(details) != 5 {
		t.Errorf("%d fingerprints different and %d query-details lines, want 5 and 5", sum.Different, len(details))
	}
	row := func(example string) (results.QueryRow, results.QueryDetail) {
		t.Helper()
		r, ok := byExample[example]
		if !ok {
			t.Fatalf("no row with example %q (a sample of an EXECUTE runs as its prepared text)", example)
		}
		return r, detailOf[r.FingerprintID]
	}

	// (a) the index dropped: the plan
	r, d := row(lookup)
	if r.Results != results.VerifySame || r.Plan != results.VerifyDifferent || r.Differences != "orders: ref on idx_customer → ALL" ||
		len(d.BasePlan) != 1 || !strings.HasPrefix(d.BasePlan[0], "orders: ref on idx_customer, rows ~") ||
		len(d.Plan) != 1 || !strings.HasPrefix(d.Plan[0], "orders: ALL, rows ~") || d.Rows != nil {
		t.Errorf("lookup by customer: %+v, detail %+v; want plan different (orders: ref on idx_customer → ALL), both plans, no rows", r, d)
	}
	// (b) div_precision_increment: a row's value
	r, d = row(div)
	wantFirst := "row 1, column 2 (amount / 7): 0.892857 → 0.8928571429"
	if r.Results != results.VerifyDifferent || r.Plan != results.VerifySame || r.Differences != wantFirst ||
		d.FirstDifference != wantFirst || d.Statement != div || !reflect.DeepEqual(d.Columns, []string{"id", "amount / 7"}) ||
		!reflect.DeepEqual(cells(d.BaseRows), [][]string{{"5", "0.892857"}}) || !reflect.DeepEqual(cells(d.Rows), [][]string{{"5", "0.8928571429"}}) {
		t.Errorf("division: %+v, detail %+v; want results different (%s) with the rows", r, d, wantFirst)
	}
	// (c) ONLY_FULL_GROUP_BY on the new server only: an error there
	r, d = row(group)
	if r.Results != results.VerifyDifferent || len(r.BaseErrors) != 0 || r.Errors[1055] != 1 ||
		!strings.HasPrefix(r.Differences, "ok → error 1055") || d.Statement != group || d.Rows != nil ||
		!reflect.DeepEqual(d.Plan, []string{"EXPLAIN: error 1055"}) {
		t.Errorf("GROUP BY: %+v, detail %+v; want results different (ok → error 1055) on new only", r, d)
	}
	// (d) a collation: an ORDER BY's order
	r, d = row(fruits)
	wantFirst = "row 1, column 1 (name): apple → Banana"
	if r.Results != results.VerifyDifferent || r.Plan != results.VerifySame || r.Differences != wantFirst || d.FirstDifference != wantFirst ||
		!reflect.DeepEqual(cells(d.BaseRows), [][]string{{"apple"}, {"Banana"}, {"cherry"}}) ||
		!reflect.DeepEqual(cells(d.Rows), [][]string{{"Banana"}, {"apple"}, {"cherry"}}) {
		t.Errorf("ORDER BY name: %+v, detail %+v; want results different (%s), the rows from the first difference", r, d, wantFirst)
	}
	// (b) again, in a result larger than a detail holds: no rows, the checksum said
	r, d = row(large)
	if r.Results != results.VerifyDifferent || r.Differences != "row checksum differs, rows 10001 → 10001" ||
		d.FirstDifference != tooLarge || d.Rows != nil || d.BaseRows != nil {
		t.Errorf("large division: %+v, detail %+v; want results different (row checksum differs, rows 10001 → 10001), %q and no rows", r, d, tooLarge)
	}
	// (e) NOW(): run, not compared
	if r, _ := row(now); r.Results != results.VerifyNotComparable || r.Plan != results.VerifySame || r.Differences != "" {
		t.Errorf("NOW(): %+v; want not_comparable, plan same", r)
	}
	// Session 21's division and GROUP BY differ between the servers' defaults: same means
	// they ran with the session's div_precision_increment and sql_mode on both.
	for _, example := range []string{divSet, groupOK, byID, count} {
		r, d := row(example)
		if r.Results != results.VerifySame || r.Plan != results.VerifySame || r.Differences != "" || d.FingerprintID != "" {
			t.Errorf("%s: %+v; want same/same, no differences, no query-details line", example, r)
		}
	}
	if r, _ := row(divSet); r.Count != 2 {
		t.Errorf("%s: count %d, want 2", divSet, r.Count)
	}
}

func cells(rows [][]*string) [][]string {
	var out [][]string
	for _, r := range rows {
		var c []string
		for _, v := range r {
			if v == nil {
				c = append(c, "NULL")
			} else {
				c = append(c, *v)
			}
		}
		out = append(out, c)
	}
	return out
}
