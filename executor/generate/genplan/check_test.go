package genplan_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// testEnv is the environment plans are loaded with, so that results do not depend on the machine.
var testEnv = map[string]string{"HOME": "/home/dba"}

// generatePlan is a plan whose setup generates tables (YAML under tables:) from schema.sql.
func generatePlan(extra, tables string) string {
	return plantest.Sandbox("gen", "", "setup:\n  - generate:\n      schema: schema.sql\n"+extra+"      tables:\n"+tables+
		"iteration:\n  workload: {transactions: [{name: a, statements: [{sql: SELECT 1}]}], duration: 1s}\n")
}

// rentalSchema is a customer c, its rentals r (an auto-increment key, a time, a return) and a
// payment per rental whose c_id should be its rental's.
const rentalSchema = "CREATE TABLE c (id INT AUTO_INCREMENT PRIMARY KEY);\n" +
	"CREATE TABLE r (id INT AUTO_INCREMENT PRIMARY KEY, c_id INT NOT NULL, n INT, at DATETIME NOT NULL, back DATETIME, FOREIGN KEY (c_id) REFERENCES c (id));\n" +
	"CREATE TABLE pay (id INT AUTO_INCREMENT PRIMARY KEY, r_id INT, c_id INT, at DATETIME NOT NULL, FOREIGN KEY (r_id) REFERENCES r (id), FOREIGN KEY (c_id) REFERENCES c (id), UNIQUE KEY (at));\n"

// TestGenerateSchemaChecks: what validate says (or must not say) about a generate: step
// from its schema file; the errors' positions are checked by the bad plan generate-schema.
func TestGenerateSchemaChecks(t *testing.T) {
	dump, err := os.ReadFile("../../../spec/ddl/testdata/dump.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, schema, extra, tables string
		want                        []string // each a line of the errors; none: the plan loads
	}{
		{"a mysqldump file", string(dump), "      database: shop\n", `        customers: {rows: 1000, columns: {tier: {values: [free, gold]}, updated_at: {null_fraction: 0.5}}}
        products: {rows: 300, columns: {spot: {values: ["ST_GeomFromText('POINT(1 1)')"]}, price: {min: 1, max: 90}}}
        orders: {rows: 2000, columns: {code: {min: -30000}}}
        order_items: {rows: 5000}
`, nil},
		{"a file that may create tables unseen", "CREATE TABLE t (id INT PRIMARY KEY);\nCALL make_more();\n", "", "        t: {rows: 1}\n        u: {rows: 1}\n", nil},
		{"a table made by a query is not checked", "CREATE TABLE src (id INT);\nCREATE TABLE t AS SELECT id, id AS n FROM src;\n", "", "        t: {rows: 1, columns: {n: {length: 3}}}\n", nil},
		{"a file that creates no table", "USE shop;\nSET sql_mode = '';\n", "", "        t: {rows: 1}\n", nil},
		{"the database filled is the step's", "CREATE DATABASE a; USE a; CREATE TABLE t (id INT PRIMARY KEY);\n", "      database: b\n", "        t: {rows: 1}\n",
			[]string{"plan.yaml:10:12: schema schema.sql creates no table t in database b (it creates a.t); create it in the schema or remove it from tables"}},
		{"a table created before any USE is in the DSN's database, which may be the one named", "CREATE TABLE t (id INT PRIMARY KEY);\n", "      database: b\n", "        t: {rows: 1}\n", nil},
		{"column names are exact, as the run reads them", "CREATE TABLE t (id INT PRIMARY KEY, Email VARCHAR(50));\n", "", "        t: {rows: 1, columns: {email: {length: 5}}}\n",
			[]string{`plan.yaml:9:39: table t has no column email (schema.sql:1 creates it with id, Email); did you mean "Email"?`}},
		{"a unique string too short", "CREATE TABLE t (code CHAR(2) NOT NULL, UNIQUE KEY (code));\n", "", "        t: {rows: 1000}\n",
			[]string{"plan.yaml:9:19: t.code is in key code (code) of t, so each of the 1000 rows needs its own value, and char(2) holds 100 values; widen the column or lower rows (schema.sql:1)"}},
		{"min starts a unique integer", "CREATE TABLE t (id TINYINT UNSIGNED PRIMARY KEY);\nCREATE TABLE u (id TINYINT UNSIGNED PRIMARY KEY);\n", "",
			"        t: {rows: 256, columns: {id: {min: 0}}}\n        u: {rows: 256}\n",
			[]string{"plan.yaml:10:19: u.id is in key PRIMARY (id) of u, so each of the 256 rows needs its own value, and tinyint unsigned holds 255 values counting from 1; widen the column or lower rows (schema.sql:2)"}},
		{"no column of a composite key wide enough", "CREATE TABLE r (code CHAR(1), region TINYINT, PRIMARY KEY (code, region));\n", "", "        r: {rows: 5000}\n",
			[]string{"plan.yaml:9:19: no column of key PRIMARY (code, region) of r holds 5000 distinct values by itself (code char(1): 10 values, region tinyint: 127 values, and together at most 1270), and generate makes one column of a key unique; widen one or lower rows (schema.sql:1)"}},
		{"min and max on a unique date bound its values", "CREATE TABLE t (d DATE NOT NULL PRIMARY KEY);\n", "", "        t: {rows: 20, columns: {d: {min: 2024-01-01, max: 2024-01-10}}}\n",
			[]string{"plan.yaml:9:19: t.d is in key PRIMARY (d) of t, so each of the 20 rows needs its own value, and date holds 10 values; widen the column or lower rows (schema.sql:1)"}},
		{"max on a foreign key", "CREATE TABLE p (id INT PRIMARY KEY);\nCREATE TABLE k (id INT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id));\n", "",
			"        p: {rows: 10}\n        k: {rows: 10, columns: {p_id: {max: 5}}}\n",
			[]string{"plan.yaml:10:45: k.p_id is a foreign key, whose values are its parent's keys, so min/max do not apply; remove them (values: can list parent keys) (schema.sql:2)"}},
		{"values on a unique column", "CREATE TABLE t (code VARCHAR(10) NOT NULL UNIQUE);\n", "", "        t: {rows: 10, columns: {code: {values: [a, b]}}}\n",
			[]string{"plan.yaml:9:48: t.code is in key code (code) of t, so each of the 10 rows needs its own value, and values lists 2; list at least 10 (each is used once) or lower rows (schema.sql:1)"}},
		{"a from_sample column the table does not have", "CREATE TABLE t (id INT PRIMARY KEY, city VARCHAR(9), zip CHAR(5));\nCREATE TABLE src (city VARCHAR(9), zip CHAR(5));\n", "",
			"        t: {rows: 1, from_sample: {table: src, columns: [city, zpi]}}\n",
			[]string{`plan.yaml:9:64: t: from_sample column zpi is not a column of t (schema.sql:1 creates it with id, city, zip); name one of its columns; did you mean "zip"?`}},
		{"a from_sample table without the column", "CREATE TABLE t (id INT PRIMARY KEY, city VARCHAR(9), zip CHAR(5));\nCREATE TABLE src (city VARCHAR(9), postcode CHAR(5));\n", "",
			"        t: {rows: 1, from_sample: {table: src, columns: [city, zip]}}\n",
			[]string{"plan.yaml:9:64: t: from_sample table src has no column zip (schema.sql:2 creates it with city, postcode); the sample's column must have the same name"}},
		{"a from_sample column with settings of its own", "CREATE TABLE t (id INT PRIMARY KEY, city VARCHAR(9), zip CHAR(5));\n", "",
			"        t: {rows: 1, from_sample: {table: prod.src, columns: [city, zip, city]}, columns: {zip: {pattern: '[0-9]{5}'}}}\n",
			[]string{"plan.yaml:9:74: t: from_sample lists column city twice; list it once",
				"plan.yaml:9:107: t.zip is drawn with the table's from_sample, and has pattern too; from_sample gives its values: remove pattern or the column from from_sample"}},
		{"a from_sample table that is not a name", "CREATE TABLE t (id INT PRIMARY KEY, city VARCHAR(9));\n", "",
			"        t: {rows: 1, from_sample: {table: a.b.c, columns: [city]}}\n",
			[]string{`plan.yaml:9:43: t: from_sample table "a.b.c" is not TABLE or DB.TABLE (names without dots); the columns are the sample's of the same names`}},
		{"a from_sample that loads", "CREATE TABLE t (id INT PRIMARY KEY, city VARCHAR(9), zip CHAR(5));\n", "",
			"        t: {rows: 1, from_sample: {table: prod.addr, columns: [city, zip]}}\n", nil},
		{"an auto-increment too narrow for a per_parent table", "CREATE TABLE p (id INT PRIMARY KEY);\nCREATE TABLE k (id SMALLINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id));\n", "",
			"        p: {rows: 2000}\n        k: {per_parent: {min: 1, max: 100}}\n",
			[]string{"plan.yaml:10:25: k.id is AUTO_INCREMENT, so generate numbers at least about 97127 rows (per_parent: the parent's rows times the mean count, less 3 standard deviations) 1, 2, 3..., and smallint unsigned holds at most 65535; widen it (MEDIUMINT UNSIGNED holds 16777215) or lower rows (schema.sql:2)"}},
		{"a zipf per_parent's mean count is lower than its middle", "CREATE TABLE p (id INT PRIMARY KEY);\nCREATE TABLE k (id SMALLINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id));\n", "",
			"        p: {rows: 2000}\n        k: {per_parent: {min: 1, max: 100, distribution: zipf}}\n", nil},
		{"enough values on a unique column", "CREATE TABLE t (code VARCHAR(10) NOT NULL UNIQUE);\n", "", "        t: {rows: 3, columns: {code: {values: [a, b, c]}}}\n", nil},
		{"values a unique column takes as one", "CREATE TABLE t (code VARCHAR(10) NOT NULL UNIQUE);\n", "", "        t: {rows: 3, columns: {code: {values: [Sales, b, 'sales ']}}}\n",
			[]string{`plan.yaml:9:47: t.code is in key code (code) of t, so each value is used once, and values lists "Sales" and "sales ", which the key takes as one; remove one (schema.sql:1)`}},
		{"too few values in a file on a unique column", "CREATE TABLE t (code VARCHAR(10) NOT NULL UNIQUE);\n", "", "        t: {rows: 10, columns: {code: {values_file: names.txt}}}\n",
			[]string{"plan.yaml:9:53: t.code is in key code (code) of t, so each of the 10 rows needs its own value, and values lists 3; list at least 10 (each is used once) or lower rows (schema.sql:1)"}},
		{"values file beside values", "CREATE TABLE t (code VARCHAR(10) NOT NULL);\n", "", "        t: {rows: 10, columns: {code: {values_file: names.txt, values: [a]}}}\n",
			[]string{"plan.yaml:9:53: t.code has both values and values_file; keep one"}},
		{"values on a foreign key", "CREATE TABLE p (id INT PRIMARY KEY);\nCREATE TABLE k (id INT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id));\n", "",
			"        p: {rows: 10}\n        k: {rows: 10, columns: {p_id: {values: [1, 2]}}}\n", nil},
		{"values on a foreign key to an auto-increment beyond its rows", "CREATE TABLE p (id INT AUTO_INCREMENT PRIMARY KEY);\nCREATE TABLE k (id INT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id));\n", "",
			"        p: {rows: 6}\n        k: {rows: 10, columns: {p_id: {values: [1, 7]}}}\n",
			[]string{`plan.yaml:10:48: k.p_id: values lists "7", which is not the id of a row of p (they are 1 to 6); list keys of its rows (schema.sql:2)`}},
		{"a foreign key that follows its parent row", rentalSchema, "",
			"        c: {rows: 10}\n        r: {per_parent: {max: 3}}\n        pay: {per_parent: {parent: r, count: 1}, columns: {c_id: {expr: parent.c_id}}}\n", nil},
		{"a foreign key that follows a column that is no key", rentalSchema, "",
			"        c: {rows: 10}\n        r: {per_parent: {max: 3}}\n        pay: {per_parent: {parent: r, count: 1}, columns: {c_id: {expr: parent.n}}}\n",
			[]string{`plan.yaml:11:73: pay.c_id: expr "parent.n": r.n is not a foreign key to c (id), so its values need not be keys of c; follow a column of r that references c (schema.sql:2)`}},
		{"a foreign key with an expression", rentalSchema, "",
			"        c: {rows: 10}\n        r: {per_parent: {max: 3}}\n        pay: {per_parent: {parent: r, count: 1}, columns: {c_id: {expr: parent.c_id + 1}}}\n",
			[]string{"plan.yaml:11:73: pay.c_id is part of a key generate builds (auto-increment, unique or foreign), which expr cannot keep; on a foreign key column expr can only be parent.COLUMN, a column of the parent row that references the same table; remove expr (schema.sql:3)"}},
		{"time and no_overlap", rentalSchema, "",
			"        c: {rows: 10}\n        r: {per_parent: {max: 3}, time: at, no_overlap: {entity: c_id, from: at, to: back}}\n        pay: {rows: 10, time: at}\n", nil},
		{"time on a column that cannot carry it", rentalSchema, "",
			"        c: {rows: 10}\n        r: {per_parent: {max: 3}, time: at, columns: {at: {distribution: zipf}}}\n        pay: {rows: 10, time: r_id}\n",
			[]string{"plan.yaml:10:74: r.at carries the table's time (time: at): rows in time order spread their times uniformly over min..max; remove distribution",
				"plan.yaml:11:31: pay: time: r_id is int, not a DATE, DATETIME or TIMESTAMP (schema.sql:3)"}},
		{"no_overlap that cannot hold", rentalSchema, "",
			"        c: {rows: 10}\n        r: {rows: 30, no_overlap: {entity: n, from: at, to: at}}\n        pay: {rows: 10, no_overlap: {entity: c_id, from: at, to: at}}\n",
			[]string{"plan.yaml:10:61: r: no_overlap from and to are both at; to is the column where an interval ends",
				"plan.yaml:10:44: r: no_overlap entity: n is not a foreign key of r; name the foreign key column of the entity whose intervals must not overlap (schema.sql:2)",
				"plan.yaml:11:46: pay: no_overlap entity: the rows of one c_id are found through the table's layout, and pay has none by c; give per_parent: {parent: c} (schema.sql:3)",
				"plan.yaml:11:66: pay: no_overlap to: at is in a key generate builds, which a cut would break; name another column (schema.sql:3)",
				"plan.yaml:11:66: pay: no_overlap from and to are both at; to is the column where an interval ends"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{"schema.sql": {Data: []byte(c.schema)}, "plan.yaml": {Data: []byte(generatePlan(c.extra, c.tables))},
				"names.txt": {Data: []byte("Sales\r\n\nResearch\nFinance\n")}}
			_, err := spec.Load("plan.yaml", spec.Options{FS: fsys, Env: testEnv, Kinds: kinds.Registry()})
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("want no error, got:\n%v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("loaded, want %q", c.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(c.want) {
				t.Errorf("got %d errors, want %d:\n%v", len(lines), len(c.want), err)
			}
			for _, w := range c.want {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, w)
				}
				if !found {
					t.Errorf("no error starting %q in:\n%v", w, err)
				}
			}
		})
	}
}
