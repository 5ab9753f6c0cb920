package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results"
)

// shop is the schema both sandboxes hold: orders are many per customer, so that without
// idx_customer a lookup by customer scans the table.
func shop(t *testing.T, s *sandbox.Server, dropIndex bool) {
	t.Helper()
	stmts := []string{
		"CREATE DATABASE shop",
		"CREATE TABLE shop.customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL)",
		"CREATE TABLE shop.orders (id INT PRIMARY KEY, customer_id INT NOT NULL, amount DECIMAL(10,2) NOT NULL, KEY idx_customer (customer_id))",
		"INSERT INTO shop.customers SELECT seq, CONCAT('customer ', seq) FROM shop.seq_1_to_200",
		"INSERT INTO shop.orders SELECT seq, 1 + seq % 200, seq * 1.25 FROM shop.seq_1_to_4000",
		"ANALYZE TABLE shop.customers, shop.orders",
	}
	if dropIndex {
		stmts = append(stmts, "ALTER TABLE shop.orders DROP INDEX idx_customer")
	}
	if err := s.Exec(context.Background(), stmts...); err != nil {
		t.Fatal(err)
	}
}

// Two sandboxes alike but for a dropped index and div_precision_increment: verify flags
// exactly the lookup by customer (plan) and the division (results), NOW() as not
// comparable, the failing statement as an error, and every other read as the same.
func TestVerifyFlagsPlanAndResults(t *testing.T) {
	base, next := startPair(t, []sandbox.Option{{Name: "div_precision_increment", Value: "4"}},
		[]sandbox.Option{{Name: "div_precision_increment", Value: "8"}})
	shop(t, base.Primary, false)
	shop(t, next.Primary, true)

	dir := t.TempDir()
	capPath := filepath.Join(dir, "traffic.qcap")
	writeTraffic(t, capPath, []traffic.Statement{
		{Session: 11, Schema: "shop", Text: "SELECT id, amount FROM orders WHERE customer_id = 7"},
		{Session: 12, Schema: "shop", Text: "SELECT id, amount / 7 FROM orders WHERE id = 5"},
		{Session: 13, Schema: "shop", Text: "SELECT NOW(), name FROM customers WHERE id = 1"},
		{Session: 11, Schema: "shop", Text: "UPDATE customers SET name = 'changed' WHERE id = 2"},
		{Session: 12, Schema: "shop", Text: "SELECT name FROM customers WHERE id = 3 FOR UPDATE"},
		{Session: 13, Schema: "shop", Text: "SELECT COUNT(*) FROM customers"},
		{Session: 11, Schema: "shop", Text: "SELECT id, amount FROM orders WHERE customer_id = 9"},
		{Session: 14, Schema: "", Text: "SELECT name FROM shop.customers WHERE id IN (1, 2, 3)"},
		{Session: 12, Schema: "shop", Text: "SELECT id, name FROM customers ORDER BY name DESC LIMIT 5"},
		{Session: 13, Schema: "shop", Text: "SELECT no_such_column FROM customers"},
		{Session: 11, Schema: "shop", Text: "SELECT id, amount / 7 FROM orders WHERE id = 8"},
		{Session: 14, Schema: "", Text: "SELECT name FROM shop.customers WHERE id IN (4, 5, 6)"},
		{Session: 12, Schema: "shop", Text: "USE shop"},
		{Session: 11, Schema: "shop", Text: "SELECT id, amount FROM orders WHERE customer_id = 11"},
	})

	w, err := results.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{Traffic: capPath, Sample: 2, Seed: 1, Out: w, Logf: t.Logf,
		Targets: []Target{{"base", sandboxtest.DB(t, base.Primary.DSN(""), 2)}, {"new", sandboxtest.DB(t, next.Primary.DSN(""), 2)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 3 || sum.Statements != 11 {
		t.Errorf("read %d statements and skipped %d; want 11 and 3 (the UPDATE, the FOR UPDATE, the USE)", sum.Statements, sum.Skipped)
	}
	rows, err := results.ReadQueries(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	byText := map[string]results.QueryRow{}
	for _, r := range rows {
		if r.Target != "new" {
			t.Errorf("%s: target %q, want new (the base is not compared with itself)", r.Fingerprint, r.Target)
		}
		byText[r.Example] = r
		t.Logf("%s | %d | %s | %s | %v %v | %s", r.Fingerprint, r.Count, r.Results, r.Plan, r.BaseErrors, r.Errors, r.Differences)
	}
	if len(rows) != 7 {
		t.Fatalf("%d rows in queries.csv, want 7 (one per fingerprint)", len(rows))
	}
	find := func(prefix string) results.QueryRow {
		t.Helper()
		for text, r := range byText {
			if strings.HasPrefix(text, prefix) {
				return r
			}
		}
		t.Fatalf("no row for %q", prefix)
		return results.QueryRow{}
	}
	lookup := find("SELECT id, amount FROM orders WHERE customer_id")
	if lookup.Results != results.VerifySame || lookup.Plan != results.VerifyDifferent || lookup.Count != 3 ||
		!strings.Contains(lookup.Differences, "orders: ref on idx_customer → ALL") {
		t.Errorf("lookup by customer: %+v; want results same, plan different (orders: ref on idx_customer → ALL), count 3", lookup)
	}
	div := find("SELECT id, amount / 7")
	if div.Results != results.VerifyDifferent || div.Plan != results.VerifySame || div.Differences != "row 1, column 2 (amount / 7): 0.892857 → 0.8928571429" {
		t.Errorf("division: %+v; want results different (row 1, column 2 (amount / 7): 0.892857 → 0.8928571429), plan same", div)
	}
	now := find("SELECT NOW()")
	if now.Results != results.VerifyNotComparable || now.Plan != results.VerifySame {
		t.Errorf("NOW(): %+v; want not_comparable, plan same", now)
	}
	bad := find("SELECT no_such_column")
	if bad.Results != results.VerifyError || bad.BaseErrors[1054] != 1 || bad.Errors[1054] != 1 {
		t.Errorf("failing statement: %+v; want results error with 1054:1 on both sides", bad)
	}
	for _, prefix := range []string{"SELECT COUNT(*) FROM customers", "SELECT name FROM shop.customers", "SELECT id, name FROM customers ORDER BY"} {
		r := find(prefix)
		if r.Results != results.VerifySame || r.Plan != results.VerifySame || r.Differences != "" {
			t.Errorf("%s: %+v; want same/same and no differences", prefix, r)
		}
	}
	if info := results.Describe(results.QueriesCSV, results.ColFingerprintID); info.Role != results.RoleKey {
		t.Errorf("Describe(queries, fingerprint_id) = %+v; want a row key", info)
	}
	if dir := os.Getenv("QUADRANT_RECORD_EXPLAIN"); dir != "" {
		recordExplain(t, dir, base.Primary, next.Primary)
	}
}

// recordExplain writes the EXPLAINs plan_test.go reads, from the real servers.
func recordExplain(t *testing.T, dir string, base, next *sandbox.Server) {
	for _, c := range []struct {
		file string
		s    *sandbox.Server
		q    string
	}{
		{"ref.json", base, "SELECT id, amount FROM orders WHERE customer_id = 7"},
		{"all.json", next, "SELECT id, amount FROM orders WHERE customer_id = 7"},
		{"join.json", base, "SELECT c.name, SUM(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.id < 20 GROUP BY c.name ORDER BY 2 DESC"},
		{"join-noindex.json", next, "SELECT c.name, SUM(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.id < 20 GROUP BY c.name ORDER BY 2 DESC"},
	} {
		db := sandboxtest.DB(t, c.s.DSN("shop"), 1)
		var js string
		if err := db.QueryRow("EXPLAIN FORMAT=JSON " + c.q).Scan(&js); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte(js+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// startPair starts the two sandboxes a test compares, base and new, at the same time, each
// with its settings (nil for none); in -short it skips the test.
func startPair(t *testing.T, baseConfig, newConfig []sandbox.Option) (base, next *sandbox.Cluster) {
	t.Helper()
	sandboxtest.SkipShort(t)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		base = sandboxtest.Start(t, sandbox.Options{Name: "base", Config: baseConfig})
	}()
	go func() { defer wg.Done(); next = sandboxtest.Start(t, sandbox.Options{Name: "new", Config: newConfig}) }()
	wg.Wait()
	if base == nil || next == nil {
		t.FailNow()
	}
	return base, next
}

func writeTraffic(t *testing.T, path string, stmts []traffic.Statement) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := traffic.NewWriter(f, traffic.QCapHeader{Created: time.Now().UTC(), Target: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range stmts {
		if err := w.Write(&stmts[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}
