package generate_test

import (
	"context"
	"database/sql"
	"math"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// TestFromSample: columns drawn from real data on a real server, through each source a
// MariaDB has: rows (a small table read whole, a big one by its primary key, one without a
// key by a scan) and the persistent histograms of emptied tables (JSON_HB for strings and
// dates, DOUBLE_PREC_HB for numbers); patterns and the default for an email column beside.
func TestFromSample(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "gensample"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 1)
	// status: 90% paid, 5% new, 5% shipped, every 50th NULL; amount uniform 0..99.90;
	// placed uniform over 300 days
	fill := "SELECT IF(seq%50=0,NULL,IF(seq%10<9,'paid',IF(seq%20=9,'new','shipped'))), seq%1000/10, '2024-01-01' + INTERVAL seq%300 DAY FROM prod.seq_1_to_"
	for _, q := range []string{
		"CREATE DATABASE prod",
		"CREATE TABLE prod.orders (id INT AUTO_INCREMENT PRIMARY KEY, status VARCHAR(10), amount DECIMAL(8,2), placed DATE)",
		"INSERT INTO prod.orders (status, amount, placed) " + fill + "30000",
		"CREATE TABLE prod.small LIKE prod.orders", "INSERT INTO prod.small (status, amount, placed) " + fill + "2000",
		"CREATE TABLE prod.nokey (status VARCHAR(10), amount DECIMAL(8,2), placed DATE)", "INSERT INTO prod.nokey " + fill + "30000",
		"CREATE TABLE prod.hist LIKE prod.orders", "INSERT INTO prod.hist (status, amount, placed) " + fill + "2000",
		"CREATE TABLE prod.hist2 LIKE prod.orders", "INSERT INTO prod.hist2 (status, amount, placed) " + fill + "2000",
		"CREATE TABLE prod.empty LIKE prod.orders",
		"SET SESSION histogram_type = JSON_HB", "ANALYZE TABLE prod.hist PERSISTENT FOR ALL",
		"SET SESSION histogram_type = DOUBLE_PREC_HB", "ANALYZE TABLE prod.hist2 PERSISTENT FOR ALL",
		// the statistics stay after the rows go: what a table generate fills looks like
		"TRUNCATE prod.hist", "TRUNCATE prod.hist2",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ddl := `CREATE DATABASE gen; USE gen;
CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, status VARCHAR(10), amount DECIMAL(8,2), placed DATE,
  code CHAR(9) NOT NULL UNIQUE, email VARCHAR(80) NOT NULL, ref VARCHAR(20) NOT NULL UNIQUE);
CREATE TABLE small LIKE orders; CREATE TABLE nokey LIKE orders; CREATE TABLE hist LIKE orders; CREATE TABLE hist2 LIKE orders;`
	const rows = 5000
	table := func(name string, cols map[string]generate.Settings) generate.Table {
		cols["code"] = generate.Settings{Pattern: "[A-Z]{2}-[0-9]{6}"}
		cols["ref"] = generate.Settings{Pattern: "{last_name}-{row}"}
		return generate.Table{Name: name, Rows: rows, Columns: cols}
	}
	o := generate.Options{Schema: schema(t, ddl), Seed: 5, Threads: 2, Tables: []generate.Table{
		table("orders", map[string]generate.Settings{"status": {FromSample: "prod.orders"}, "amount": {FromSample: "prod.orders.amount"}}),
		table("small", map[string]generate.Settings{"status": {FromSample: "prod.small"}}),
		table("nokey", map[string]generate.Settings{"status": {FromSample: "prod.nokey"}}),
		table("hist", map[string]generate.Settings{"status": {FromSample: "prod.hist"}, "placed": {FromSample: "prod.hist"}}),
		table("hist2", map[string]generate.Settings{"amount": {FromSample: "prod.hist2"}}),
	}}
	run(t, db, o)
	share := func(q string) float64 {
		t.Helper()
		var f float64
		if err := db.QueryRow(q).Scan(&f); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return f
	}
	near := func(q string, want, tol float64) {
		t.Helper()
		got := share(q)
		t.Logf("%s = %.3f (want %.3f ± %.3f)", q, got, want, tol)
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.3f, want %.3f ± %.3f", q, got, want, tol)
		}
	}
	for _, tn := range []string{"orders", "small", "nokey", "hist"} {
		near("SELECT AVG(status = 'paid') FROM gen."+tn+" WHERE status IS NOT NULL", 0.9, 0.03)
		near("SELECT AVG(status = 'new') FROM gen."+tn+" WHERE status IS NOT NULL", 0.05, 0.015)
		near("SELECT AVG(status IS NULL) FROM gen."+tn, 0.02, 0.01)
	}
	near("SELECT AVG(amount < 50) FROM gen.orders", 0.5, 0.03)
	near("SELECT AVG(amount < 50) FROM gen.hist2", 0.5, 0.03)
	near("SELECT AVG(amount < 25) FROM gen.hist2", 0.25, 0.03)
	near("SELECT AVG(amount < 0 OR amount > 99.90) FROM gen.hist2", 0, 0)
	near("SELECT AVG(placed < '2024-04-01') FROM gen.hist", 91.0/300, 0.03)
	for _, tn := range []string{"orders", "hist"} {
		near("SELECT COUNT(DISTINCT code) / COUNT(*) FROM gen."+tn, 1, 0)
		near("SELECT AVG(code REGEXP '^[A-Z]{2}-[0-9]{6}$') FROM gen."+tn, 1, 0)
		near("SELECT AVG(ref REGEXP '^[A-Z][a-z]+-[0-9]+$') FROM gen."+tn, 1, 0)
		near("SELECT AVG(email REGEXP '^[a-z]+[.][a-z]+[0-9]*@example[.](com|org|net)$') FROM gen."+tn, 1, 0)
	}

	// the same seed gives the same rows, sampled sources included
	sums := func() string {
		var out []string
		for _, tn := range []string{"orders", "nokey", "hist"} {
			var name, sum string
			if err := db.QueryRow("CHECKSUM TABLE gen."+tn).Scan(&name, &sum); err != nil {
				t.Fatal(err)
			}
			out = append(out, sum)
		}
		return strings.Join(out, " ")
	}
	first := sums()
	if _, err := db.Exec("DROP DATABASE gen"); err != nil {
		t.Fatal(err)
	}
	run(t, db, o)
	if again := sums(); again != first {
		t.Errorf("the same seed gave other rows: %s, then %s", first, again)
	}

	for _, tc := range []struct {
		name, ddl string
		cols      map[string]generate.Settings
		want      []string
	}{
		{"no rows, no histogram", "CREATE DATABASE e1; USE e1; CREATE TABLE t (id INT PRIMARY KEY, status VARCHAR(10));",
			map[string]generate.Settings{"status": {FromSample: "prod.empty"}},
			[]string{"t.status: from_sample prod.empty: prod.empty.status has no rows to sample and no histogram", "ANALYZE TABLE prod.empty PERSISTENT FOR ALL"}},
		{"no such column", "CREATE DATABASE e2; USE e2; CREATE TABLE t (id INT PRIMARY KEY, status VARCHAR(10));",
			map[string]generate.Settings{"status": {FromSample: "prod.orders.state"}},
			[]string{"no column prod.orders.state on the target"}},
		{"too long for the column", "CREATE DATABASE e3; USE e3; CREATE TABLE t (id INT PRIMARY KEY, status VARCHAR(4));",
			map[string]generate.Settings{"status": {FromSample: "prod.small"}}, // 'shipped'
			[]string{"prod.small.status has values up to 7 characters long, and varchar(4) holds 4"}},
		{"string histogram without values", "CREATE DATABASE e4; USE e4; CREATE TABLE t (id INT PRIMARY KEY, status VARCHAR(10));",
			map[string]generate.Settings{"status": {FromSample: "prod.hist2"}},
			[]string{"DOUBLE_PREC_HB histogram", "SET SESSION histogram_type = JSON_HB"}},
		{"pattern on a number", "CREATE DATABASE e5; USE e5; CREATE TABLE t (id INT PRIMARY KEY, n INT);",
			map[string]generate.Settings{"n": {Pattern: "[0-9]{3}"}},
			[]string{"t.n: pattern makes strings, and the column is int"}},
		{"pattern too long", "CREATE DATABASE e6; USE e6; CREATE TABLE t (id INT PRIMARY KEY, code CHAR(8));",
			map[string]generate.Settings{"code": {Pattern: "[A-Z]{2}-[0-9]{6}"}},
			[]string{"makes values up to 9 characters long, and char(8) holds 8"}},
		{"unique pattern too small", "CREATE DATABASE e7; USE e7; CREATE TABLE t (id INT PRIMARY KEY, code CHAR(2) UNIQUE);",
			map[string]generate.Settings{"code": {Pattern: "[a-z]{2}"}},
			[]string{"t.code", "676 distinct values", "fewer than the 1000 rows"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := generate.Run(context.Background(), db, generate.Options{Schema: schema(t, tc.ddl), Seed: 1, Threads: 1,
				Tables: []generate.Table{{Name: "t", Rows: 1000, Columns: tc.cols}}})
			if err == nil {
				t.Fatalf("no error, want one saying %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}

	t.Run("whole rows", func(t *testing.T) { fromSampleRows(t, db) })
}

// fromSampleRows: a table-level from_sample draws city and zip from one row of a table
// where each city has its own few zips (a pair drawn column by column would almost never be
// one of them), read by its primary key (more rows than the sample holds); the same rows at
// 1 and 3 threads.
func fromSampleRows(t *testing.T, db *sql.DB) {
	for _, q := range []string{
		"CREATE TABLE prod.addr (id INT AUTO_INCREMENT PRIMARY KEY, city VARCHAR(20) NOT NULL, zip CHAR(5) NOT NULL)",
		"INSERT INTO prod.addr (city, zip) SELECT CONCAT('city', seq%200), LPAD((seq%200)*10 + seq%7%3, 5, '0') FROM prod.seq_1_to_30000",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ddl := "CREATE DATABASE whole; USE whole; CREATE TABLE people (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(30), city VARCHAR(20), zip CHAR(5));"
	o := func(threads int) generate.Options {
		return generate.Options{Schema: schema(t, ddl), Seed: 3, Threads: threads, Tables: []generate.Table{{Name: "people", Rows: 4000,
			RowSample: &generate.RowSample{Table: "prod.addr", Columns: []string{"city", "zip"}}}}}
	}
	count := func(q string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	sum := func() string {
		var name, s string
		if err := db.QueryRow("CHECKSUM TABLE whole.people").Scan(&name, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	run(t, db, o(1))
	if n := count("SELECT COUNT(*) FROM whole.people p WHERE NOT EXISTS (SELECT 1 FROM prod.addr a WHERE a.city = p.city AND a.zip = p.zip)"); n != 0 {
		t.Errorf("%d of 4000 rows have a city and zip no sample row has together", n)
	}
	if n := count("SELECT COUNT(*) FROM whole.people WHERE city IS NULL OR zip IS NULL"); n != 0 {
		t.Errorf("%d rows have a NULL city or zip, and the sample has none", n)
	}
	// 600 pairs: about 470 of them come up in 4000 rows; one pair repeated would pass above
	if n := count("SELECT COUNT(DISTINCT city, zip) FROM whole.people"); n < 300 {
		t.Errorf("%d distinct city and zip pairs in 4000 rows drawn from 600", n)
	}
	first := sum()
	if _, err := db.Exec("DROP DATABASE whole"); err != nil {
		t.Fatal(err)
	}
	run(t, db, o(3))
	if again := sum(); again != first {
		t.Errorf("3 threads gave other rows than 1: checksum %s, then %s", first, again)
	}

	bad := o(1)
	bad.Schema = schema(t, "CREATE DATABASE whole2; USE whole2; CREATE TABLE people (id INT PRIMARY KEY, city VARCHAR(20), zip CHAR(5));")
	bad.Tables[0].RowSample = &generate.RowSample{Table: "prod.addr", Columns: []string{"city", "postcode"}}
	_, err := generate.Run(context.Background(), db, bad)
	if want := "people: from_sample prod.addr: no column prod.addr.postcode on the target"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got error %v, want one saying %q", err, want)
	}
}
