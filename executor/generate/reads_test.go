package generate_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// readsSchema is a customer's rentals, 170 bytes or so a row, in database db.
const readsSchema = `CREATE DATABASE %[1]s;
USE %[1]s;
CREATE TABLE customer (customer_id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL);
CREATE TABLE rental (
  rental_id INT AUTO_INCREMENT PRIMARY KEY,
  rental_date DATETIME NOT NULL,
  customer_id INT NOT NULL,
  return_date DATETIME NULL,
  pad CHAR(120) NOT NULL,
  KEY idx_customer (customer_id),
  FOREIGN KEY (customer_id) REFERENCES customer (customer_id)
);
`

// readsPlan fills database db with customers customers of 10 to 40 rentals each (25 on average).
func readsPlan(t *testing.T, db string, customers int64, rentalTime string) generate.Options {
	path := filepath.Join(t.TempDir(), db+".sql")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(readsSchema, db)), 0o644); err != nil {
		t.Fatal(err)
	}
	return generate.Options{Schema: path, Seed: 5, Threads: 2, Tables: []generate.Table{
		{Name: "customer", Rows: customers},
		{Name: "rental", PerParent: &generate.PerParent{Min: 10, Max: 40}, Time: rentalTime, Columns: map[string]generate.Settings{
			"rental_date": {Min: "2024-01-01", Max: "2024-12-31 23:59:59"},
		}},
	}}
}

// readsPerLookup is the pages InnoDB read from disk per lookup of one customer's rentals (their
// whole rows, through the customer index) in table, over n random customers after as many to
// warm the buffer pool up with this table's pages.
func readsPerLookup(t *testing.T, db *sql.DB, table string, customers int64, n int) float64 {
	t.Helper()
	q := "SELECT COUNT(*), SUM(LENGTH(pad)) FROM " + table + " FORCE INDEX (idx_customer) WHERE customer_id = ?"
	r := rand.New(rand.NewPCG(1, 2))
	lookups := func() {
		for range n {
			var rows, bytes sql.NullInt64
			if err := db.QueryRow(q, 1+r.Int64N(customers)).Scan(&rows, &bytes); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	lookups()
	before := count(t, db, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_READS'")
	lookups()
	after := count(t, db, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_READS'")
	return float64(after-before) / float64(n)
}

// TestPhysicalReadsAsProduction: with the rentals 4 times the buffer pool, a lookup of a
// customer's rentals reads as many pages from disk on generated rows in time order as on a copy
// shaped as production (the test draws each rental a time and inserts them in its order, ids
// following time), within 25%; the layout customer by customer (time: none) reads far fewer.
func TestPhysicalReadsAsProduction(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genreads", Config: []sandbox.Option{{Name: "innodb_buffer_pool_size", Value: "8M"}}})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 2)
	const customers = 8000
	run(t, db, readsPlan(t, "bycustomer", customers, generate.TimeNone))
	run(t, db, readsPlan(t, "bytime", customers, ""))
	// production's shape: the same rentals, each at a time of its own, inserted in time order
	for _, s := range []string{
		"CREATE TABLE bycustomer.production LIKE bycustomer.rental",
		"INSERT INTO bycustomer.production (rental_date, customer_id, return_date, pad) SELECT d, customer_id, return_date, pad FROM (SELECT TIMESTAMP'2024-01-01 00:00:00' + INTERVAL FLOOR(RAND(7) * 31622400) SECOND AS d, customer_id, return_date, pad FROM bycustomer.rental) t ORDER BY d",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	pool := count(t, db, "SELECT @@innodb_buffer_pool_size")
	size := count(t, db, "SELECT DATA_LENGTH + INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'bytime' AND TABLE_NAME = 'rental'")
	t.Logf("rental: %d rows, %.1f MiB, %.1fx the buffer pool of %.1f MiB", count(t, db, "SELECT COUNT(*) FROM bytime.rental"), float64(size)/(1<<20), float64(size)/float64(pool), float64(pool)/(1<<20))
	if size < 4*pool {
		t.Fatalf("the rentals take %d bytes, less than 4 times the buffer pool's %d", size, pool)
	}
	const n = 1000
	production := readsPerLookup(t, db, "bycustomer.production", customers, n)
	byTime := readsPerLookup(t, db, "bytime.rental", customers, n)
	byCustomer := readsPerLookup(t, db, "bycustomer.rental", customers, n)
	t.Logf("pages read from disk per customer lookup: production-shaped copy %.2f, generated in time order %.2f (%.2fx), customer by customer %.2f (%.2fx)",
		production, byTime, byTime/production, byCustomer, byCustomer/production)
	if byTime < 0.75*production || byTime > 1.25*production {
		t.Errorf("generated rows in time order read %.2f pages per lookup, production's shape %.2f: want within 25%%", byTime, production)
	}
	if byCustomer > 0.5*production {
		t.Errorf("the layout customer by customer reads %.2f pages per lookup, production's shape %.2f: the test cannot tell them apart", byCustomer, production)
	}
}
