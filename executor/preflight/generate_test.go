package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

const generatePrivPlan = `version: 1
name: genpriv
targets:
  db: {dsn: "%s"}
setup:
  - generate:
      schema: shop.sql
      tables:
        customers: {rows: 50}
        products: {rows: 10}
        orders: {rows: 100}
        order_items: {rows: 200}
iteration:
  workload:
    transactions:
      - name: count
        statements: [{sql: "SELECT COUNT(*) FROM shop.order_items"}]
    duration: 1s
`

// What a generate step needs, against recorded grants: its schema's CREATE (and REFERENCES
// for its foreign keys on MySQL 8, which checks it; MariaDB does not), SELECT and INSERT on
// each table it fills, in the database the schema file's USE names (not the DSN's).
func TestGenerateNeeds(t *testing.T) {
	dir := t.TempDir()
	schema, err := os.ReadFile("../../examples/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop.sql"), schema, 0o644); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(generatePrivPlan, "app:pw@tcp(db1:3306)/app")
	path := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := spec.Load(path, spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	lineOf := func(s string) int { return 1 + strings.Count(text[:strings.Index(text, s)], "\n") }
	cases := []struct {
		flavor, grants string
		lacks          map[int]string
	}{
		{"MariaDB", "GRANT SELECT, INSERT, CREATE ON `shop`.* TO `app`@`%`", nil},
		{"MySQL", "GRANT SELECT, INSERT, CREATE ON `shop`.* TO `app`@`%`", map[int]string{lineOf("schema:"): "REFERENCES on shop.*"}},
		{"MySQL", "GRANT SELECT, INSERT, CREATE, REFERENCES ON `shop`.* TO `app`@`%`", nil},
		{"MariaDB", "GRANT SELECT, CREATE ON `shop`.* TO `app`@`%`\nGRANT INSERT ON `shop`.`orders` TO `app`@`%`", map[int]string{
			lineOf("customers:"):   "INSERT on shop.customers",
			lineOf("products:"):    "INSERT on shop.products",
			lineOf("order_items:"): "INSERT on shop.order_items",
		}},
		// the DSN's database is not where the schema's USE puts the tables
		{"MariaDB", "GRANT ALL ON `app`.* TO `app`@`%`", map[int]string{
			lineOf("schema:"):      "CREATE on shop.*",
			lineOf("customers:"):   "SELECT on shop.customers and INSERT on shop.customers",
			lineOf("products:"):    "SELECT on shop.products and INSERT on shop.products",
			lineOf("orders:"):      "SELECT on shop.orders and INSERT on shop.orders",
			lineOf("order_items:"): "SELECT on shop.order_items and INSERT on shop.order_items",
		}},
	}
	for _, c := range cases {
		g, err := target.ParseGrants(strings.Split(c.grants, "\n"))
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]string{}
		srv := Server(target.ServerInfo{Flavor: c.flavor, Version: "8.4.3"}, "app")
		for _, n := range planNeeds(p, func(n string) (spec.AccountServer, bool) { return srv, n == "db" }) {
			if !met(n.AccountNeed, g) {
				got[n.Pos.Line] = lacking(n.AccountNeed, g)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.lacks) && (len(got) > 0 || len(c.lacks) > 0) {
			t.Errorf("%s, %q: lacks %v, want %v", c.flavor, c.grants, got, c.lacks)
		}
	}
}
