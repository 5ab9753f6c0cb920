package generate_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

var rentalTables = []string{"language", "film", "customer", "inventory", "rental", "payment"}

// rentals is a store's rentals in sakila's shape (testdata/rentals.sql): each customer 10 to
// 40 rentals over 2024, a payment per rental whose customer is its rental's, every film in
// language 1. rentalTime is rental's time: ("" found, generate.TimeNone for the rows customer
// by customer, as generate laid them out before rows in time order).
func rentals(seed int64, threads int, rentalTime string) generate.Options {
	return generate.Options{Schema: "testdata/rentals.sql", Seed: seed, Threads: threads, Tables: []generate.Table{
		{Name: "language", Rows: 6},
		{Name: "film", Rows: 200, Columns: map[string]generate.Settings{"language_id": {Values: []string{"1"}}}},
		{Name: "customer", Rows: 300},
		{Name: "inventory", Rows: 1000},
		{Name: "rental", PerParent: &generate.PerParent{Parent: "customer", Min: 10, Max: 40}, Time: rentalTime,
			Columns: map[string]generate.Settings{
				"rental_date": {Min: "2024-01-01", Max: "2024-12-31 23:59:59"},
				"return_date": {Expr: "rental_date + days(uniform(1, 10))", NullFraction: 0.02},
				"pad":         {Expr: `"line " + string(line)`},
			}},
		{Name: "payment", PerParent: &generate.PerParent{Parent: "rental", Min: 1, Max: 1}, Columns: map[string]generate.Settings{
			"customer_id":  {Expr: "parent.customer_id"},
			"payment_date": {Expr: "parent.rental_date + hours(uniform(0, 2))"},
			"amount":       {Min: "0.99", Max: "11.99"},
		}},
	}}
}

func rentalChecksums(t *testing.T, db *sql.DB) string {
	t.Helper()
	var out []string
	for _, tn := range rentalTables {
		var name, sum string
		if err := db.QueryRow("CHECKSUM TABLE rentals."+tn).Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		out = append(out, tn+"="+sum)
	}
	return strings.Join(out, " ")
}

func number(t *testing.T, db *sql.DB, q string) float64 {
	t.Helper()
	var x sql.NullFloat64
	if err := db.QueryRow(q).Scan(&x); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return x.Float64
}

// correlation is Pearson's of a table's id and its time column's seconds.
func correlation(t *testing.T, db *sql.DB, table, id, at string) float64 {
	return number(t, db, "SELECT (AVG(x*y) - AVG(x)*AVG(y)) / (STDDEV_POP(x) * STDDEV_POP(y)) FROM (SELECT "+id+" AS x, TO_SECONDS("+at+") AS y FROM "+table+") t")
}

// blocks is how many blocks of 250 ids one parent's rows span, on average over the parents.
func blocks(t *testing.T, db *sql.DB, table, id, parent string) float64 {
	return number(t, db, "SELECT AVG(b) FROM (SELECT COUNT(DISTINCT ("+id+" - 1) DIV 250) AS b FROM "+table+" GROUP BY "+parent+") t")
}

func dropRentals(t *testing.T, db *sql.DB) {
	t.Helper()
	if _, err := db.Exec("DROP DATABASE rentals"); err != nil {
		t.Fatal(err)
	}
}

// TestRowsInTimeOrder fills the rentals schema laid out customer by customer (time: none, as
// before rows in time order) and in time order (rental_date found), and checks what a
// per-customer lookup meets: ids that follow rental_date, and a customer's rentals spread over
// at least 10 times as many blocks of 250 ids; payments whose customer is their rental's; the
// pinned language; no orphans; the same rows at 1 and 3 threads and from 3 shards.
func TestRowsInTimeOrder(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "gentime"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)

	run(t, db, rentals(11, 3, generate.TimeNone))
	beforeCorr := correlation(t, db, "rentals.rental", "rental_id", "rental_date")
	beforeBlocks := blocks(t, db, "rentals.rental", "rental_id", "customer_id")
	rows := count(t, db, "SELECT COUNT(*) FROM rentals.rental")
	dropRentals(t, db)

	run(t, db, rentals(11, 3, ""))
	if got := count(t, db, "SELECT COUNT(*) FROM rentals.rental"); got != rows {
		t.Errorf("rental has %d rows in time order, %d customer by customer: per_parent's counts should not change", got, rows)
	}
	corr := correlation(t, db, "rentals.rental", "rental_id", "rental_date")
	spread := blocks(t, db, "rentals.rental", "rental_id", "customer_id")
	payCorr := correlation(t, db, "rentals.payment", "payment_id", "payment_date")
	t.Logf("rental (%d rows): id-time correlation %.3f before, %.3f after; a customer's rentals span %.2f blocks of 250 ids before, %.2f after (%.1fx); payment's correlation %.3f",
		rows, beforeCorr, corr, beforeBlocks, spread, spread/beforeBlocks, payCorr)
	if corr < 0.8 {
		t.Errorf("rental's id-time correlation is %.3f, want >= 0.8", corr)
	}
	if spread < 10*beforeBlocks {
		t.Errorf("a customer's rentals span %.2f blocks, want >= 10x the %.2f of the layout customer by customer", spread, beforeBlocks)
	}
	if payCorr < 0.8 {
		t.Errorf("payment's id-time correlation is %.3f, want >= 0.8 (its rows follow their rentals')", payCorr)
	}
	for q, want := range map[string]int64{
		"SELECT COUNT(*) FROM rentals.payment p JOIN rentals.rental r USING (rental_id) WHERE p.customer_id <> r.customer_id":   0,
		"SELECT COUNT(*) FROM rentals.film WHERE language_id <> 1":                                                              0,
		"SELECT COUNT(*) FROM rentals.payment p LEFT JOIN rentals.rental r USING (rental_id) WHERE r.rental_id IS NULL":         0,
		"SELECT COUNT(*) FROM rentals.payment p LEFT JOIN rentals.customer c USING (customer_id) WHERE c.customer_id IS NULL":   0,
		"SELECT COUNT(*) FROM rentals.rental r LEFT JOIN rentals.customer c USING (customer_id) WHERE c.customer_id IS NULL":    0,
		"SELECT COUNT(*) FROM rentals.rental r LEFT JOIN rentals.inventory i USING (inventory_id) WHERE i.inventory_id IS NULL": 0,
		"SELECT COUNT(*) - COUNT(DISTINCT rental_date, inventory_id, customer_id) FROM rentals.rental":                          0,
		"SELECT COUNT(*) FROM rentals.payment": rows,
		"SELECT COUNT(*) FROM rentals.rental WHERE rental_date < '2024-01-01' OR rental_date > '2024-12-31 23:59:59'": 0,
		// expr's line numbers a customer's rentals in time order
		`SELECT COUNT(*) FROM rentals.rental r WHERE pad <> CONCAT('line ', (SELECT COUNT(*) FROM rentals.rental b
			WHERE b.customer_id = r.customer_id AND b.rental_id < r.rental_id))`: 0,
	} {
		if got := count(t, db, q); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	three := rentalChecksums(t, db)
	dropRentals(t, db)
	run(t, db, rentals(11, 1, ""))
	if one := rentalChecksums(t, db); one != three {
		t.Errorf("1 thread gave other rows than 3:\n%s\n%s", three, one)
	}
	dropRentals(t, db)
	if sharded := rentalShards(t, db, 3); sharded != three {
		t.Errorf("3 shards gave other rows than one run:\n%s\n%s", three, sharded)
	}
}

// rentalShards fills the rentals schema from n shards in this process; their checksums.
func rentalShards(t *testing.T, db *sql.DB, n int) string {
	t.Helper()
	m := &meeting{n: n, arrived: map[string]int{}, open: map[string]chan struct{}{}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := rentals(11, 2, "")
			o.Shard, o.Meet, o.Logf = shard.Shard{Index: k, Count: n}, m.meet, t.Logf
			if _, errs[k] = generate.Run(ctx, db, o); errs[k] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", k, err)
		}
	}
	return rentalChecksums(t, db)
}

// copyRentals is rentals laid out copy by copy (per_parent inventory), rented over 3 months
// for 1 to 10 days: dense enough that a copy's rentals overlap unless no_overlap keeps them
// apart.
func copyRentals(noOverlap bool) generate.Options {
	o := rentals(3, 3, "")
	for i := range o.Tables {
		if tb := &o.Tables[i]; tb.Name == "rental" {
			tb.PerParent = &generate.PerParent{Parent: "inventory", Min: 0, Max: 12}
			tb.Columns["rental_date"] = generate.Settings{Min: "2024-01-01", Max: "2024-03-31 23:59:59"}
			if noOverlap {
				tb.NoOverlap = &generate.NoOverlap{Entity: "inventory_id", From: "rental_date", To: "return_date"}
			}
		}
	}
	return o
}

const overlaps = `SELECT COUNT(*) FROM rentals.rental a JOIN rentals.rental b
	ON a.inventory_id = b.inventory_id AND a.rental_id < b.rental_id
	AND a.rental_date < COALESCE(b.return_date, '9999-12-31') AND b.rental_date < COALESCE(a.return_date, '9999-12-31')`

// TestNoOverlap: a copy's rentals overlap when nothing says they must not (the test can fail),
// never with no_overlap; a NULL return_date (a copy still out) is only on a copy's last rental;
// and the cut leaves every rental returned after it was rented.
func TestNoOverlap(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genoverlap"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)

	run(t, db, copyRentals(false))
	without := count(t, db, overlaps)
	dropRentals(t, db)
	run(t, db, copyRentals(true))
	with := count(t, db, overlaps)
	t.Logf("overlapping pairs of one copy's rentals: %d without no_overlap, %d with (%d rentals)", without, with, count(t, db, "SELECT COUNT(*) FROM rentals.rental"))
	if without == 0 {
		t.Fatalf("no overlapping rentals without no_overlap: the test's data is too sparse to tell")
	}
	if with != 0 {
		t.Errorf("%d pairs of one copy's rentals overlap with no_overlap, want 0", with)
	}
	for q, want := range map[string]int64{
		"SELECT COUNT(*) FROM rentals.rental WHERE return_date < rental_date": 0,
		`SELECT COUNT(*) FROM rentals.rental a JOIN rentals.rental b ON a.inventory_id = b.inventory_id
			AND a.return_date IS NULL AND b.rental_date > a.rental_date`: 0,
	} {
		if got := count(t, db, q); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	if n := count(t, db, "SELECT COUNT(*) FROM rentals.rental WHERE return_date IS NULL"); n == 0 {
		t.Errorf("no rental is still out: null_fraction should leave some copies' last rental open")
	}
	if corr := correlation(t, db, "rentals.rental", "rental_id", "rental_date"); corr < 0.8 {
		t.Errorf("rental laid out by copy: id-time correlation %.3f, want >= 0.8", corr)
	}
}

// salaryOverlaps counts the pairs of one employee's salaries (or departments) whose dates overlap.
func salaryOverlaps(t *testing.T, db *sql.DB, table string) int64 {
	return count(t, db, "SELECT COUNT(*) FROM employees."+table+" a JOIN employees."+table+
		" b ON a.emp_no = b.emp_no AND (a.from_date < b.from_date OR a.from_date = b.from_date AND a.to_date < b.to_date) AND b.from_date < a.to_date")
}

// TestNoOverlapOfSalaries: the employees shape, whose salaries (emp_no, from_date) and
// departments (emp_no, dept_no) are laid out by employee, overlap as its settings make them,
// and never with no_overlap on each.
func TestNoOverlapOfSalaries(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "gensalaries"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	run(t, db, employees(t, 5, 2))
	salaries, depts := salaryOverlaps(t, db, "salaries"), salaryOverlaps(t, db, "dept_emp")
	if _, err := db.Exec("DROP DATABASE employees"); err != nil {
		t.Fatal(err)
	}
	o := employees(t, 5, 2)
	for i := range o.Tables {
		if tb := &o.Tables[i]; tb.Name == "salaries" || tb.Name == "dept_emp" {
			tb.NoOverlap = &generate.NoOverlap{Entity: "emp_no", From: "from_date", To: "to_date"}
		}
	}
	run(t, db, o)
	t.Logf("overlapping pairs of one employee's salaries: %d without no_overlap, %d with; departments: %d, %d",
		salaries, salaryOverlaps(t, db, "salaries"), depts, salaryOverlaps(t, db, "dept_emp"))
	if salaries == 0 || depts == 0 {
		t.Fatalf("the employees settings give no overlapping salaries (%d) or departments (%d): the test cannot tell", salaries, depts)
	}
	for _, tn := range []string{"salaries", "dept_emp"} {
		if n := salaryOverlaps(t, db, tn); n != 0 {
			t.Errorf("%d pairs of one employee's %s overlap with no_overlap, want 0", n, tn)
		}
		if n := count(t, db, "SELECT COUNT(*) FROM employees."+tn+" WHERE to_date < from_date"); n != 0 {
			t.Errorf("%d rows of %s end before they start", n, tn)
		}
	}
}
