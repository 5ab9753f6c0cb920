package generate_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

const shopSQL = "../../examples/shop.sql"

var shopTables = []string{"customers", "products", "orders", "order_items"}

func shop(seed int64, threads int) generate.Options {
	return generate.Options{Schema: shopSQL, Seed: seed, Threads: threads, Tables: []generate.Table{
		// listed children first: the order to fill them in comes from the foreign keys
		{Name: "order_items", Rows: 5000},
		{Name: "orders", Rows: 2000, Columns: map[string]generate.Settings{
			"customer_id": {Distribution: "zipf"},
			"status":      {Values: []string{"new", "paid", "shipped"}, Weights: []float64{1, 3, 6}},
			"note":        {NullFraction: 0.5, Length: 20},
		}},
		{Name: "customers", Rows: 1000},
		{Name: "products", Rows: 300},
	}}
}

func count(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func checksums(t *testing.T, db *sql.DB) string {
	t.Helper()
	var out []string
	for _, tn := range shopTables {
		var name, sum string
		if err := db.QueryRow("CHECKSUM TABLE shop."+tn).Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		out = append(out, tn+"="+sum)
	}
	return strings.Join(out, " ")
}

func run(t *testing.T, db *sql.DB, o generate.Options) generate.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	var last [2]int64
	o.Loaded = func(done, total int64) { last = [2]int64{done, total} }
	res, err := generate.Run(ctx, db, o)
	if err != nil {
		t.Fatal(err)
	}
	if last[0] != res.Rows || last[1] != res.Rows {
		t.Errorf("progress ended at %d of %d rows, want %d of %d", last[0], last[1], res.Rows, res.Rows)
	}
	return res
}

func TestShop(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "gen"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)

	res := run(t, db, shop(42, 4))
	if got := strings.Join(res.Filled, ","); got != "customers,orders,products,order_items" {
		t.Errorf("filled %s, want parents first in the order listed: customers,orders,products,order_items", got)
	}
	for q, want := range map[string]int64{
		"SELECT COUNT(*) FROM shop.customers":   1000,
		"SELECT COUNT(*) FROM shop.products":    300,
		"SELECT COUNT(*) FROM shop.orders":      2000,
		"SELECT COUNT(*) FROM shop.order_items": 5000,
		// zero orphans
		"SELECT COUNT(*) FROM shop.orders o LEFT JOIN shop.customers c ON c.id = o.customer_id WHERE c.id IS NULL":    0,
		"SELECT COUNT(*) FROM shop.order_items i LEFT JOIN shop.orders o ON o.id = i.order_id WHERE o.id IS NULL":     0,
		"SELECT COUNT(*) FROM shop.order_items i LEFT JOIN shop.products p ON p.id = i.product_id WHERE p.id IS NULL": 0,
		// zero duplicates (unique_checks was off: the generator's word is what is checked)
		"SELECT COUNT(*) - COUNT(DISTINCT email) FROM shop.customers":                    0,
		"SELECT COUNT(*) - COUNT(DISTINCT sku) FROM shop.products":                       0,
		"SELECT COUNT(*) - COUNT(DISTINCT order_id, line) FROM shop.order_items":         0,
		"SELECT MIN(id) * 10000 + MAX(id) FROM shop.customers":                           1*10000 + 1000,
		"SELECT COUNT(*) FROM shop.orders WHERE note IS NOT NULL AND LENGTH(note) <> 20": 0,
	} {
		if got := count(t, db, q); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	nulls := count(t, db, "SELECT COUNT(*) FROM shop.orders WHERE note IS NULL")
	if nulls < 800 || nulls > 1200 {
		t.Errorf("%d of 2000 notes are NULL, want about half (null_fraction 0.5)", nulls)
	}
	top := count(t, db, "SELECT SUM(n) FROM (SELECT COUNT(*) AS n FROM shop.orders GROUP BY customer_id ORDER BY n DESC LIMIT 10) t")
	share := float64(top) / 2000
	t.Logf("zipf: the 1%% most frequent customers (10 of 1000) hold %.1f%% of the orders", share*100)
	if share < 0.20 {
		t.Errorf("the 10 most frequent customers hold %.1f%% of the orders, want at least 20%% under zipf", share*100)
	}
	for status, want := range map[string]float64{"new": 10, "paid": 30, "shipped": 60} {
		got := float64(count(t, db, "SELECT COUNT(*) FROM shop.orders WHERE status = '"+status+"'")) / 20
		t.Logf("status %s: %.1f%%", status, got)
		if got < want-3 || got > want+3 {
			t.Errorf("status %s is %.1f%% of the orders, want %.0f%% ± 3", status, got, want)
		}
	}
	// orders (an auto-increment key, a customer drawn row by row) go in in placed_at's order
	if corr := correlation(t, db, "shop.orders", "id", "placed_at"); corr < 0.8 {
		t.Errorf("orders' id-time correlation is %.3f, want >= 0.8 (rows in time order)", corr)
	} else {
		t.Logf("orders: id-time correlation %.3f; a customer's orders span %.2f blocks of 250 ids (%.2f orders each)", corr,
			blocks(t, db, "shop.orders", "id", "customer_id"), number(t, db, "SELECT AVG(n) FROM (SELECT COUNT(*) n FROM shop.orders GROUP BY customer_id) t"))
	}
	lines := count(t, db, "SELECT MAX(line) FROM shop.order_items")
	if lines < 2 {
		t.Errorf("order lines go up to %d, want a per-order sequence", lines)
	}

	first := checksums(t, db)
	t.Logf("seed 42, 4 threads: %s", first)
	again := func(seed int64, threads int) string {
		t.Helper()
		if _, err := db.Exec("DROP DATABASE shop"); err != nil {
			t.Fatal(err)
		}
		run(t, db, shop(seed, threads))
		return checksums(t, db)
	}
	if second := again(42, 4); second != first {
		t.Errorf("the same seed gave other rows:\n%s\n%s", first, second)
	}
	if one := again(42, 1); one != first {
		t.Errorf("1 thread gave other rows than 4:\n%s\n%s", first, one)
	} else {
		t.Logf("seed 42, 1 thread: %s", one)
	}
	if other := again(43, 4); other == first {
		t.Errorf("seed 43 gave the same rows as seed 42: %s", other)
	}
}

func schema(t *testing.T, ddl string) string {
	p := filepath.Join(t.TempDir(), "schema.sql")
	if err := os.WriteFile(p, []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestErrors: what the run refuses, each with what to do. A refusal comes before any row:
// every table of the case's database is checked empty after it. A failure while loading
// says which table is left part-filled (with the rows it really holds), which were filled
// before it and which not.
func TestErrors(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "generr"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	ctx := context.Background()
	for _, tc := range []struct {
		name, db, ddl string
		tables        []generate.Table
		want          []string
		threads       int
		rowsAfter     map[string]int64 // -1: the count the error says; default every table 0
	}{
		{name: "cycle", db: "c1", ddl: `CREATE TABLE a (id INT PRIMARY KEY, b_id INT);
			CREATE TABLE b (id INT PRIMARY KEY, a_id INT, FOREIGN KEY (a_id) REFERENCES a (id));
			ALTER TABLE a ADD FOREIGN KEY (b_id) REFERENCES b (id);`,
			tables: []generate.Table{{Name: "a", Rows: 10}, {Name: "b", Rows: 10}},
			want:   []string{"cycle (a -> b -> a)", "DROP FOREIGN KEY"}},
		{name: "unknown type", db: "c2", ddl: `CREATE TABLE before_it (id INT PRIMARY KEY); CREATE TABLE places (id INT PRIMARY KEY, spot POINT NOT NULL);`,
			tables: []generate.Table{{Name: "before_it", Rows: 10}, {Name: "places", Rows: 10}},
			want:   []string{"places.spot has type point", "values:"}},
		{name: "absent table", db: "c3", ddl: `CREATE TABLE here (id INT PRIMARY KEY);`,
			tables: []generate.Table{{Name: "here", Rows: 10}, {Name: "gone", Rows: 10}},
			want:   []string{"no table gone in database c3", "remove it from tables:"}},
		{name: "unlisted parent", db: "c4", ddl: `CREATE TABLE p (id INT PRIMARY KEY);
			CREATE TABLE k (id INT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id));`,
			tables: []generate.Table{{Name: "k", Rows: 10}},
			want:   []string{"k.p_id references p", "add p: {rows: N}"}},
		{name: "rows already", db: "c5", ddl: `CREATE TABLE full (id INT PRIMARY KEY); INSERT INTO full VALUES (1);`,
			tables: []generate.Table{{Name: "full", Rows: 10}},
			want:   []string{"c5.full already has rows", "TRUNCATE"}, rowsAfter: map[string]int64{"full": 1}},
		{name: "too small a key", db: "c6", ddl: `CREATE TABLE tiny (id TINYINT UNSIGNED PRIMARY KEY);`,
			tables: []generate.Table{{Name: "tiny", Rows: 300}},
			want:   []string{"tiny.id", "cannot hold 300 distinct values"}},
		{name: "a listed foreign key beyond the parent's rows", db: "c20", ddl: `CREATE TABLE p (id INT AUTO_INCREMENT PRIMARY KEY);
			CREATE TABLE k (id INT AUTO_INCREMENT PRIMARY KEY, p_id INT NOT NULL, FOREIGN KEY (p_id) REFERENCES p (id));`,
			tables: []generate.Table{{Name: "p", Rows: 6}, {Name: "k", Rows: 10, Columns: map[string]generate.Settings{"p_id": {Values: []string{"1", "9"}}}}},
			want:   []string{`k.p_id: values lists "9", which is not the id of a row of p (they are 1 to 6)`}},
		{name: "a listed foreign key no parent row has", db: "c21", ddl: `CREATE TABLE p (code CHAR(4) PRIMARY KEY);
			CREATE TABLE k (id INT AUTO_INCREMENT PRIMARY KEY, code CHAR(4) NOT NULL, FOREIGN KEY (code) REFERENCES p (code));`,
			tables: []generate.Table{{Name: "p", Rows: 5}, {Name: "k", Rows: 10, Columns: map[string]generate.Settings{"code": {Values: []string{"zzzz"}}}}},
			want:   []string{"k.code: values lists zzzz, which no row of p has as code"}},
		{name: "a foreign key that follows a column that is no key", db: "c22", ddl: `CREATE TABLE c (id INT AUTO_INCREMENT PRIMARY KEY);
			CREATE TABLE r (id INT AUTO_INCREMENT PRIMARY KEY, c_id INT NOT NULL, n INT NOT NULL, FOREIGN KEY (c_id) REFERENCES c (id));
			CREATE TABLE pay (id INT AUTO_INCREMENT PRIMARY KEY, r_id INT NOT NULL, c_id INT NOT NULL, FOREIGN KEY (r_id) REFERENCES r (id), FOREIGN KEY (c_id) REFERENCES c (id));`,
			tables: []generate.Table{{Name: "c", Rows: 5}, {Name: "r", Rows: 10}, {Name: "pay", PerParent: &generate.PerParent{Parent: "r", Min: 1, Max: 1},
				Columns: map[string]generate.Settings{"c_id": {Expr: "parent.n"}}}},
			want: []string{`pay.c_id: expr "parent.n": r.n is not a foreign key to c (id)`}},
		{name: "time without a surrogate key", db: "c23", ddl: `CREATE TABLE p (id INT PRIMARY KEY);
			CREATE TABLE k (p_id INT NOT NULL, at DATETIME NOT NULL, PRIMARY KEY (p_id, at), FOREIGN KEY (p_id) REFERENCES p (id));`,
			tables: []generate.Table{{Name: "p", Rows: 5}, {Name: "k", Rows: 10, Time: "at"}},
			want:   []string{"k: time: at puts the rows in time order so that ids follow it, which needs a primary key of one auto-increment column"}},
		{name: "no_overlap of an entity the rows are not laid out by", db: "c24", ddl: `CREATE TABLE c (id INT AUTO_INCREMENT PRIMARY KEY);
			CREATE TABLE r (id INT AUTO_INCREMENT PRIMARY KEY, c_id INT NOT NULL, at DATETIME NOT NULL, back DATETIME, FOREIGN KEY (c_id) REFERENCES c (id));`,
			tables: []generate.Table{{Name: "c", Rows: 5}, {Name: "r", Rows: 10, NoOverlap: &generate.NoOverlap{Entity: "c_id", From: "at", To: "back"}}},
			want:   []string{"r: no_overlap: the rows of one c_id are found through the table's layout", "per_parent: {parent: TABLE}"}},
		{name: "no_overlap whose start is made from its end", db: "c25", ddl: `CREATE TABLE c (id INT AUTO_INCREMENT PRIMARY KEY);
			CREATE TABLE r (id INT AUTO_INCREMENT PRIMARY KEY, c_id INT NOT NULL, at DATETIME NOT NULL, back DATETIME, FOREIGN KEY (c_id) REFERENCES c (id));`,
			tables: []generate.Table{{Name: "c", Rows: 5}, {Name: "r", PerParent: &generate.PerParent{Max: 3}, NoOverlap: &generate.NoOverlap{Entity: "c_id", From: "at", To: "back"},
				Columns: map[string]generate.Settings{"at": {Expr: "back - days(1)"}}}},
			want: []string{"r: no_overlap: from: at is made from back (expr)"}},
		{name: "a setting its column cannot take", db: "c7", ddl: `CREATE TABLE n (id INT PRIMARY KEY, at DATE NOT NULL);`,
			tables: []generate.Table{{Name: "n", Rows: 10, Columns: map[string]generate.Settings{"at": {Length: 4}}}},
			want:   []string{"n.at: length applies to strings, and date is not one"}},
		// issue 47: validate and the run said nothing, the load stopped at 255 / 65535
		{name: "too small an auto-increment", db: "c9", ddl: `CREATE TABLE a (id INT PRIMARY KEY);
			CREATE TABLE category (category_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, a_id INT, FOREIGN KEY (a_id) REFERENCES a (id));`,
			tables: []generate.Table{{Name: "a", Rows: 10}, {Name: "category", Rows: 300}},
			want:   []string{"category.category_id is AUTO_INCREMENT", "300 rows", "tinyint(3) unsigned holds at most 255", "SMALLINT UNSIGNED"}},
		{name: "a per_parent auto-increment too small", db: "c10", ddl: `CREATE TABLE customer (id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY);
			CREATE TABLE payment (payment_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, customer_id SMALLINT UNSIGNED NOT NULL,
				FOREIGN KEY (customer_id) REFERENCES customer (id));`,
			tables: []generate.Table{{Name: "customer", Rows: 6000}, {Name: "payment", PerParent: &generate.PerParent{Min: 16, Max: 37}}},
			want:   []string{"payment.payment_id is AUTO_INCREMENT", "smallint(5) unsigned holds at most 65535"}},
		// n counts the rows 0, 1, 2... (sequential): rows 0..~1900 fit the first INSERT (a
		// row is ~270 bytes, a batch 512 KB) and pass the check; the second holds n 3001.
		// One thread, so the first batch is in before the failure.
		{name: "fails while loading", db: "c8", ddl: `CREATE TABLE a (id INT PRIMARY KEY);
			CREATE TABLE b (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a_id INT NOT NULL, pad CHAR(255) NOT NULL, n INT NOT NULL,
				CONSTRAINT small CHECK (n <= 3000), FOREIGN KEY (a_id) REFERENCES a (id));
			CREATE TABLE c (id INT PRIMARY KEY, b_id INT NOT NULL, FOREIGN KEY (b_id) REFERENCES b (id));`,
			tables:  []generate.Table{{Name: "c", Rows: 10}, {Name: "b", Rows: 6000, Columns: map[string]generate.Settings{"n": {Distribution: "sequential", Min: "0", Max: "9999"}}}, {Name: "a", Rows: 10}},
			threads: 1, want: []string{"fill b:", "small", "of its 6000 rows: TRUNCATE it", "filled before it: a;", "not filled: c"},
			rowsAfter: map[string]int64{"a": 10, "b": -1, "c": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ddl := "CREATE DATABASE " + tc.db + "; USE " + tc.db + ";\n" + tc.ddl
			threads := tc.threads
			if threads == 0 {
				threads = 2
			}
			_, err := generate.Run(ctx, db, generate.Options{Schema: schema(t, ddl), Seed: 1, Threads: threads, Tables: tc.tables})
			if err == nil {
				t.Fatalf("no error, want one saying %q", tc.want)
			}
			t.Logf("error: %v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			rows, qerr := db.Query("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", tc.db)
			if qerr != nil {
				t.Fatal(qerr)
			}
			var names []string
			for rows.Next() {
				var n string
				if err := rows.Scan(&n); err != nil {
					t.Fatal(err)
				}
				names = append(names, n)
			}
			rows.Close()
			if len(names) == 0 {
				t.Fatalf("the schema made no table in %s", tc.db)
			}
			for _, n := range names {
				want := tc.rowsAfter[n]
				if want < 0 {
					_, after, _ := strings.Cut(err.Error(), n+" is left with about ")
					if _, scanErr := fmt.Sscan(after, &want); scanErr != nil || want <= 0 {
						t.Errorf("the error does not say how many rows %s is left with: %v", n, err)
					}
				}
				if got := count(t, db, "SELECT COUNT(*) FROM "+tc.db+"."+n); got != want {
					t.Errorf("%s.%s holds %d rows after the error, want %d", tc.db, n, got, want)
				}
			}
		})
	}
}

// TestKeys: the keys beyond the shop's on one schema: a primary key that is not
// auto-increment, a unique string, a generated column, a unique foreign key (1:1), a
// junction table of two foreign keys, a composite primary key without foreign keys (its
// TINYINT too small, its CHAR not) and a composite foreign key.
func TestKeys(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genkeys"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	ddl := `CREATE DATABASE k; USE k;
CREATE TABLE people (id BIGINT NOT NULL PRIMARY KEY, handle VARCHAR(20) NOT NULL UNIQUE, born DATE,
  upper_handle VARCHAR(20) AS (UPPER(handle)) VIRTUAL, score DECIMAL(5,2), flags SET('a','b','c'), active TINYINT(1) NOT NULL,
  seen TIMESTAMP NULL, at TIME, yr YEAR, doc JSON, raw VARBINARY(16), bits BIT(3), amount DOUBLE);
CREATE TABLE passports (person_id BIGINT NOT NULL PRIMARY KEY, number CHAR(9) NOT NULL, FOREIGN KEY (person_id) REFERENCES people (id));
CREATE TABLE teams (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(30) NOT NULL);
CREATE TABLE memberships (person_id BIGINT NOT NULL, team_id INT NOT NULL, PRIMARY KEY (person_id, team_id),
  FOREIGN KEY (person_id) REFERENCES people (id), FOREIGN KEY (team_id) REFERENCES teams (id));
CREATE TABLE regions (code CHAR(4) NOT NULL, region TINYINT NOT NULL, PRIMARY KEY (code, region));
CREATE TABLE stores (id INT NOT NULL PRIMARY KEY, code CHAR(4) NOT NULL, region TINYINT NOT NULL,
  FOREIGN KEY (code, region) REFERENCES regions (code, region));`
	run(t, db, generate.Options{Schema: schema(t, ddl), Seed: 7, Threads: 3, Tables: []generate.Table{
		{Name: "people", Rows: 500}, {Name: "passports", Rows: 400}, {Name: "teams", Rows: 20},
		{Name: "memberships", Rows: 3000}, {Name: "regions", Rows: 200}, {Name: "stores", Rows: 300},
	}})
	for q, want := range map[string]int64{
		"SELECT COUNT(*) FROM k.people":                                                                                         500,
		"SELECT COUNT(*) FROM k.passports":                                                                                      400,
		"SELECT COUNT(*) FROM k.memberships":                                                                                    3000,
		"SELECT COUNT(*) FROM k.regions":                                                                                        200,
		"SELECT COUNT(*) FROM k.stores":                                                                                         300,
		"SELECT COUNT(DISTINCT handle) FROM k.people":                                                                           500,
		"SELECT COUNT(*) FROM k.people WHERE upper_handle <> UPPER(handle)":                                                     0,
		"SELECT COUNT(DISTINCT person_id) FROM k.passports":                                                                     400,
		"SELECT COUNT(DISTINCT person_id, team_id) FROM k.memberships":                                                          3000,
		"SELECT COUNT(DISTINCT code, region) FROM k.regions":                                                                    200,
		"SELECT COUNT(*) FROM k.people WHERE active NOT IN (0, 1)":                                                              0,
		"SELECT COUNT(*) FROM k.people WHERE born < '2025-01-01' OR born >= '2026-01-01'":                                       0,
		"SELECT COUNT(*) FROM k.passports p LEFT JOIN k.people x ON x.id = p.person_id WHERE x.id IS NULL":                      0,
		"SELECT COUNT(*) FROM k.memberships m LEFT JOIN k.people x ON x.id = m.person_id WHERE x.id IS NULL":                    0,
		"SELECT COUNT(*) FROM k.memberships m LEFT JOIN k.teams x ON x.id = m.team_id WHERE x.id IS NULL":                       0,
		"SELECT COUNT(*) FROM k.stores s LEFT JOIN k.regions r ON r.code = s.code AND r.region = s.region WHERE r.code IS NULL": 0,
	} {
		if got := count(t, db, q); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
}

// TestSessionStaysHome: the load's session settings (foreign_key_checks off) and the
// schema's USE do not reach the next user of the pool, which a plan's sql: steps share.
func TestSessionStaysHome(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "gensess"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 1)
	run(t, db, generate.Options{Schema: schema(t, "CREATE DATABASE s; USE s; CREATE TABLE t (id INT PRIMARY KEY);"), Seed: 1, Threads: 1,
		Tables: []generate.Table{{Name: "t", Rows: 10}}})
	var fk int
	var cur sql.NullString
	if err := db.QueryRow("SELECT @@foreign_key_checks, DATABASE()").Scan(&fk, &cur); err != nil {
		t.Fatal(err)
	}
	if fk != 1 || cur.Valid {
		t.Errorf("after generate the pool's connection has foreign_key_checks=%d and database %q, want 1 and none", fk, cur.String)
	}
}
