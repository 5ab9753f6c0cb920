package generate

import (
	"encoding/hex"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/internal/rowset"
)

func fixture(t *testing.T, path string) *rowset.Set {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := rowset.ReadFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// draws makes n values of smp for c, unquoted ("NULL" for NULL).
func draws(t *testing.T, smp *sample, c *column, n int) []string {
	t.Helper()
	g, err := smp.gen(c)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, n)
	for i := range n {
		r := newStream(11, int64(i))
		out[i] = strings.Trim(string(g(nil, int64(i), &r)), "'")
	}
	return out
}

// share is the fraction of vals for which ok holds.
func share(vals []string, ok func(string) bool) float64 {
	n := 0
	for _, v := range vals {
		if ok(v) {
			n++
		}
	}
	return float64(n) / float64(len(vals))
}

func is(want string) func(string) bool { return func(v string) bool { return v == want } }

func below(x float64) func(string) bool {
	return func(v string) bool { f, err := strconv.ParseFloat(v, 64); return err == nil && f < x }
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	t.Logf("%s: %.3f (want %.3f ± %.3f)", what, got, want, tol)
	if math.Abs(got-want) > tol {
		t.Errorf("%s is %.3f, want %.3f ± %.3f", what, got, want, tol)
	}
}

var (
	statusCol = &column{name: "status", dataType: "varchar", columnType: "varchar(10)", charLen: 10, nullable: true}
	amountCol = &column{name: "amount", dataType: "decimal", columnType: "decimal(8,2)", precision: 8, scale: 2}
	dateCol   = &column{name: "d", dataType: "date", columnType: "date"}
)

func TestMySQLHistograms(t *testing.T) {
	s := fixture(t, "testdata/column_statistics.mysql-8.0.tsv")
	idx, err := s.Need("COLUMN_STATISTICS", "COLUMN_NAME", "HISTOGRAM")
	if err != nil {
		t.Fatal(err)
	}
	const n = 40000
	for _, row := range s.Rows {
		col, js := row[idx[0]].String, row[idx[1]].String
		smp, err := parseMySQLHistogram([]byte(js), []string{"a", "b", "c"})
		if err != nil {
			t.Fatalf("%s: %v", col, err)
		}
		switch col {
		case "id":
			v := draws(t, smp, &column{name: "id", dataType: "int", columnType: "int(11)"}, n)
			for _, x := range []string{"1", "2", "3"} {
				near(t, "id "+x, share(v, is(x)), 1.0/3, 0.02)
			}
		case "status":
			v := draws(t, smp, statusCol, n)
			near(t, "status NULL", share(v, is("NULL")), 0.1, 0.01)
			near(t, "status paid", share(v, is("paid")), 0.81, 0.02)
			near(t, "status new", share(v, is("new")), 0.045, 0.01)
			notNull := draws(t, smp, &column{name: "status", dataType: "varchar", columnType: "varchar(10)", charLen: 10}, n)
			near(t, "status NULL in a NOT NULL column", share(notNull, is("NULL")), 0, 0)
			near(t, "status paid in a NOT NULL column", share(notNull, is("paid")), 0.9, 0.02)
		case "amount":
			v := draws(t, smp, amountCol, n)
			near(t, "amount < 25", share(v, below(25)), 0.25, 0.02)
			near(t, "amount < 50", share(v, below(50)), 0.5, 0.02)
			near(t, "amount outside 0..99.90", share(v, func(x string) bool { return !below(99.905)(x) || below(0)(x) }), 0, 0)
		case "placed":
			v := draws(t, smp, dateCol, n)
			near(t, "placed before April", share(v, func(x string) bool { return x < "2024-04-01" }), 0.5, 0.02)
			near(t, "placed outside 2024", share(v, func(x string) bool { return x < "2024-01-01" || x > "2024-12-31" }), 0, 0)
		case "kind":
			v := draws(t, smp, &column{name: "kind", dataType: "enum", columnType: "enum('a','b','c')", members: []string{"a", "b", "c"}}, n)
			near(t, "kind a", share(v, is("a")), 0.1, 0.02)
			near(t, "kind c", share(v, is("c")), 0.6, 0.02)
		default:
			t.Errorf("fixture row %s not checked", col)
		}
	}
	for js, want := range map[string]string{
		`{"buckets": [[1, 0.5], [2, 1]], "data-type": "set", "histogram-type": "singleton"}`:     "SET histograms hold bit masks",
		`{"buckets": [[7, 1]], "data-type": "enum", "histogram-type": "singleton"}`:              "enum value 7 is not a member's number (1 to 3)",
		`{"buckets": [[1, 2, 1]], "data-type": "int", "histogram-type": "equi-height"}`:          "bucket 1 has 3 fields, a equi-height bucket 4",
		`{"buckets": [], "data-type": "int", "histogram-type": "singleton", "null-values": 1.0}`: "no buckets",
		`{"buckets": [[1, 1]], "histogram-type": "compressed"}`:                                  `unknown histogram-type "compressed"`,
	} {
		if _, err := parseMySQLHistogram([]byte(js), []string{"a", "b", "c"}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", js, err, want)
		}
	}
}

// TestMariaDBHistograms reads mysql.column_stats rows recorded from a MariaDB 10.11 sandbox;
// TestFromSample reads them live.
func TestMariaDBHistograms(t *testing.T) {
	s := fixture(t, "testdata/column_stats.mariadb-10.11.tsv")
	idx, err := s.Need("column_stats", "table_name", "column_name", "min_value", "max_value", "nulls_ratio", "hist_type", "histogram_hex")
	if err != nil {
		t.Fatal(err)
	}
	const n = 40000
	for _, row := range s.Rows {
		table, col, histType := row[idx[0]].String, row[idx[1]].String, row[idx[5]].String
		hist, err := hex.DecodeString(row[idx[6]].String)
		if err != nil {
			t.Fatal(err)
		}
		dataType := map[string]string{"status": "varchar", "amount": "decimal", "d": "date"}[col]
		smp, err := parseMariaDBHistogram(histType, hist, row[idx[2]].String, row[idx[3]].String, dataType)
		what := histType + " " + col
		if histType != "JSON_HB" && col != "amount" {
			// positions, not values: only numbers are read back
			if err == nil || !strings.Contains(err.Error(), "SET SESSION histogram_type = JSON_HB") {
				t.Errorf("%s: %v, want an error pointing at JSON_HB", what, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s (%s): %v", what, table, err)
		}
		smp.nulls, _ = strconv.ParseFloat(row[idx[4]].String, 64)
		switch col {
		case "status":
			v := draws(t, smp, statusCol, n)
			near(t, what+" NULL", share(v, is("NULL")), 0.02, 0.005)
			near(t, what+" paid", share(v, is("paid")), 0.9*0.98, 0.02)
			near(t, what+" new", share(v, is("new")), 0.05*0.98, 0.01)
		case "amount":
			v := draws(t, smp, amountCol, n)
			near(t, what+" < 25", share(v, below(25)), 0.25, 0.03)
			near(t, what+" < 50", share(v, below(50)), 0.5, 0.03)
			near(t, what+" outside 0..99.90", share(v, func(x string) bool { return !below(99.905)(x) || below(0)(x) }), 0, 0)
		case "d":
			v := draws(t, smp, dateCol, n)
			near(t, what+" before April", share(v, func(x string) bool { return x < "2024-04-01" }), 91.0/300, 0.03)
		}
	}
}
