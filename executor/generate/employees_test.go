package generate_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/generate/genplan"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

var departmentNames = []string{"Marketing", "Finance", "Human Resources", "Production", "Development", "Quality Management", "Sales", "Research", "Customer Service"}

var employeesTables = []string{"employees", "departments", "dept_emp", "dept_manager", "titles", "salaries"}

// employees is the classic employees sample schema at a small scale (2,000 employees), from
// the settings file docs/generate.md walks through.
func employees(t *testing.T, seed int64, threads int) generate.Options {
	t.Helper()
	g, err := genplan.LoadGenerate("testdata/employees.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := generate.FromSpec(g)
	o.Seed, o.Threads = seed, threads
	return o
}

func employeesChecksums(t *testing.T, db *sql.DB) string {
	t.Helper()
	var out []string
	for _, tn := range employeesTables {
		var name, sum string
		if err := db.QueryRow("CHECKSUM TABLE employees."+tn).Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		out = append(out, tn+"="+sum)
	}
	return strings.Join(out, " ")
}

// shares is each group's share of a table's rows, in percent.
func shares(t *testing.T, db *sql.DB, q string) map[string]float64 {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := map[string]float64{}
	total := 0.0
	for rows.Next() {
		var k string
		var n float64
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		out[k] = n
		total += n
	}
	for k := range out {
		out[k] = out[k] * 100 / total
	}
	return out
}

// TestEmployees fills the employees sample schema on one sandbox and checks what a user of it
// looks at: every department used, as evenly as asked; no orphans, no duplicates; the
// ranges asked for; the same rows at 1 and 4 threads.
func TestEmployees(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genemp"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	var logs []string
	o := employees(t, 5, 4)
	o.Logf = func(f string, args ...any) { logs = append(logs, fmt.Sprintf(f, args...)); t.Logf(f, args...) }
	run(t, db, o)

	t.Run("every department, uniformly", func(t *testing.T) {
		got := shares(t, db, "SELECT dept_no, COUNT(*) FROM employees.dept_emp GROUP BY dept_no")
		t.Logf("dept_emp per department (%%): %v", got)
		if len(got) != 9 {
			t.Errorf("dept_emp uses %d of the 9 departments, want all 9", len(got))
		}
		for d, share := range got {
			if share < 100.0/9-3 || share > 100.0/9+3 {
				t.Errorf("department %s holds %.1f%% of dept_emp, want 11.1%% ± 3 (uniform)", d, share)
			}
		}
		if n := count(t, db, "SELECT COUNT(DISTINCT dept_no) FROM employees.dept_manager"); n < 6 {
			t.Errorf("the 24 managers are in %d departments, want them spread (at least 6 of 9)", n)
		}
	})
	t.Run("real department names from a list", func(t *testing.T) {
		rows, err := db.Query("SELECT dept_no, dept_name FROM employees.departments ORDER BY dept_no")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var nos, names []string
		for rows.Next() {
			var no, name string
			if err := rows.Scan(&no, &name); err != nil {
				t.Fatal(err)
			}
			nos, names = append(nos, no), append(names, name)
		}
		t.Logf("departments: %v %v", nos, names)
		if strings.Join(nos, ",") != "d001,d002,d003,d004,d005,d006,d007,d008,d009" {
			t.Errorf("dept_no are %v, want d001..d009, each once", nos)
		}
		slices.Sort(names)
		want := slices.Sorted(slices.Values(departmentNames))
		if !slices.Equal(names, want) {
			t.Errorf("dept_name are %v, want each of %v once", names, want)
		}
	})
	t.Run("5 to 15 salaries and 1 or 2 departments per employee", func(t *testing.T) {
		for q, want := range map[string]int64{
			"SELECT MIN(n) * 100 + MAX(n) FROM (SELECT COUNT(*) AS n FROM employees.employees e JOIN employees.salaries s USING (emp_no) GROUP BY e.emp_no) c": 5*100 + 15,
			"SELECT COUNT(DISTINCT emp_no) FROM employees.salaries":                                              2000,
			"SELECT MIN(n) * 100 + MAX(n) FROM (SELECT COUNT(*) AS n FROM employees.dept_emp GROUP BY emp_no) c": 1*100 + 2,
			"SELECT COUNT(DISTINCT emp_no) FROM employees.dept_emp":                                              2000,
		} {
			if got := count(t, db, q); got != want {
				t.Errorf("%s = %d, want %d", q, got, want)
			}
		}
		avg := float64(count(t, db, "SELECT COUNT(*) FROM employees.salaries")) / 2000
		t.Logf("salaries: %.2f per employee on average", avg)
		if avg < 9 || avg > 11 {
			t.Errorf("%.2f salaries per employee on average, want about 10 (uniform 5..15)", avg)
		}
	})
	t.Run("dates that follow the hire date", func(t *testing.T) {
		for q, want := range map[string]int64{
			"SELECT COUNT(*) FROM employees.salaries s JOIN employees.employees e USING (emp_no) WHERE s.from_date < e.hire_date OR s.to_date <= s.from_date": 0,
			"SELECT COUNT(*) FROM employees.dept_emp d JOIN employees.employees e USING (emp_no) WHERE d.from_date < e.hire_date OR d.to_date <= d.from_date": 0,
			// the draws draw: not every salary a year to the day after the last
			"SELECT COUNT(DISTINCT DATEDIFF(s.from_date, e.hire_date)) > 1000 FROM employees.salaries s JOIN employees.employees e USING (emp_no)": 1,
		} {
			if got := count(t, db, q); got != want {
				t.Errorf("%s = %d, want %d", q, got, want)
			}
		}
		n := count(t, db, "SELECT COUNT(*) FROM employees.salaries")
		t.Logf("%d salaries, 100%% with from_date >= hire_date and to_date > from_date", n)
	})
	t.Run("no orphans, no duplicates", func(t *testing.T) {
		for q, want := range map[string]int64{
			"SELECT COUNT(*) FROM employees.dept_emp d LEFT JOIN employees.employees e USING (emp_no) WHERE e.emp_no IS NULL":         0,
			"SELECT COUNT(*) FROM employees.dept_emp d LEFT JOIN employees.departments p USING (dept_no) WHERE p.dept_no IS NULL":     0,
			"SELECT COUNT(*) FROM employees.dept_manager d LEFT JOIN employees.employees e USING (emp_no) WHERE e.emp_no IS NULL":     0,
			"SELECT COUNT(*) FROM employees.dept_manager d LEFT JOIN employees.departments p USING (dept_no) WHERE p.dept_no IS NULL": 0,
			"SELECT COUNT(*) FROM employees.titles x LEFT JOIN employees.employees e USING (emp_no) WHERE e.emp_no IS NULL":           0,
			"SELECT COUNT(*) FROM employees.salaries x LEFT JOIN employees.employees e USING (emp_no) WHERE e.emp_no IS NULL":         0,
			"SELECT COUNT(*) - COUNT(DISTINCT emp_no, dept_no) FROM employees.dept_emp":                                               0,
			"SELECT COUNT(*) - COUNT(DISTINCT emp_no, dept_no) FROM employees.dept_manager":                                           0,
			"SELECT COUNT(*) - COUNT(DISTINCT emp_no, title, from_date) FROM employees.titles":                                        0,
			"SELECT COUNT(*) - COUNT(DISTINCT emp_no, from_date) FROM employees.salaries":                                             0,
			"SELECT COUNT(*) - COUNT(DISTINCT dept_name) FROM employees.departments":                                                  0,
		} {
			if got := count(t, db, q); got != want {
				t.Errorf("%s = %d, want %d", q, got, want)
			}
		}
	})
	t.Run("indexes a foreign key needs are kept without trying", func(t *testing.T) {
		for _, l := range logs {
			if strings.Contains(l, "Error 1553") || strings.Contains(l, "Cannot drop") {
				t.Errorf("generate tried to drop an index a foreign key needs: %s", l)
			}
		}
		if !slices.ContainsFunc(logs, func(l string) bool {
			return strings.Contains(l, "dept_emp keeps index dept_no during the load: foreign key dept_emp_ibfk_2 needs it")
		}) {
			t.Errorf("the log does not say dept_emp keeps its index dept_no for its foreign key: %q", logs)
		}
		if n := count(t, db, "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'employees' AND INDEX_NAME = 'dept_no'"); n != 2 {
			t.Errorf("dept_emp and dept_manager have %d indexes dept_no after the load, want 2", n)
		}
	})
	t.Run("min and max on the dates of a composite key", func(t *testing.T) {
		for q, want := range map[string]int64{
			"SELECT MIN(from_date) >= '1985-01-01' FROM employees.salaries":                                 1,
			"SELECT MIN(from_date) = '1985-01-01' AND MAX(from_date) <= '1985-12-31' FROM employees.titles": 1,
		} {
			if got := count(t, db, q); got != want {
				t.Errorf("%s = %d, want %d", q, got, want)
			}
		}
	})
	t.Run("the same rows at 1 and 4 threads", func(t *testing.T) {
		four := employeesChecksums(t, db)
		if _, err := db.Exec("DROP DATABASE employees"); err != nil {
			t.Fatal(err)
		}
		run(t, db, employees(t, 5, 1))
		if one := employeesChecksums(t, db); one != four {
			t.Errorf("1 thread gave other rows than 4:\n%s\n%s", four, one)
		} else {
			t.Logf("seed 5, 1 and 4 threads: %s", one)
		}
	})
}

// TestKeySettingsRefused: a min and max on a key's date or decimal too close for the rows,
// or a list of values shorter than a unique column's rows, is refused before any row,
// saying so.
func TestKeySettingsRefused(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genrange"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	for _, tc := range []struct {
		name, ddl string
		set       generate.Settings
		want      string
	}{
		{"date", "CREATE TABLE t (d DATE NOT NULL PRIMARY KEY)", generate.Settings{Min: "2024-01-01", Max: "2024-01-10"},
			"date from 2024-01-01 to 2024-01-10 cannot hold 20 distinct values one day apart"},
		{"decimal", "CREATE TABLE t (d DECIMAL(6,2) NOT NULL PRIMARY KEY)", generate.Settings{Min: "100", Max: "110"},
			"decimal(6,2) cannot hold 20 distinct whole values from 100 to max 110"},
		{"an expression naming no column", "CREATE TABLE t (d INT NOT NULL PRIMARY KEY, e DATE NOT NULL)", generate.Settings{},
			"tables: t.e: expr \"date(\\\"2024-01-01\\\") + days(dd)\": unknown column dd (the row has d, e; parent.COLUMN for the parent's); did you mean \"d\"? (1:27)"},
		{"too few values", "CREATE TABLE t (d VARCHAR(10) NOT NULL PRIMARY KEY)", generate.Settings{Values: []string{"a", "b"}},
			"t.d is made unique (it is in key PRIMARY): values lists 2, fewer than the 20 distinct values the key needs (each is used once); list at least 20 or lower rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ddl := "CREATE DATABASE IF NOT EXISTS r; USE r; DROP TABLE IF EXISTS t; " + tc.ddl + ";"
			cols := map[string]generate.Settings{"d": tc.set}
			if strings.Contains(tc.name, "expression") {
				cols = map[string]generate.Settings{"e": {Expr: `date("2024-01-01") + days(dd)`}}
			}
			_, err := generate.Run(context.Background(), db, generate.Options{Schema: schema(t, ddl), Seed: 1, Threads: 1,
				Tables: []generate.Table{{Name: "t", Rows: 20, Columns: cols}}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	// the same ranges hold 10 rows, in them
	ddl := "CREATE DATABASE IF NOT EXISTS r; USE r; DROP TABLE IF EXISTS t; CREATE TABLE t (d DECIMAL(6,2) NOT NULL PRIMARY KEY, e DATETIME NOT NULL UNIQUE);"
	run(t, db, generate.Options{Schema: schema(t, ddl), Seed: 1, Threads: 1, Tables: []generate.Table{{Name: "t", Rows: 10, Columns: map[string]generate.Settings{
		"d": {Min: "100", Max: "110"}, "e": {Min: "2024-01-01 10:00:00", Max: "2024-01-01 10:00:09"}}}}})
	if got := count(t, db, "SELECT MIN(d) = 100 AND MAX(d) <= 110 AND MIN(e) = '2024-01-01 10:00:00' AND MAX(e) = '2024-01-01 10:00:09' FROM r.t"); got != 1 {
		t.Errorf("the key's values are not within min and max: %d", got)
	}
}
