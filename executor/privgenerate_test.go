package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/executor/workload/kinds"
	"github.com/quadrant-bench/quadrant/results"
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
	schema, err := os.ReadFile("../examples/shop.sql")
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
		facts := serverFacts{flavor: c.flavor, version: "8.4.3", schema: "app"}
		for _, n := range privilegeNeeds(p, func(n string) (serverFacts, bool) { return facts, n == "db" }) {
			if !n.met(g) {
				got[n.pos.Line] = n.lacking(g)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.lacks) && (len(got) > 0 || len(c.lacks) > 0) {
			t.Errorf("%s, %q: lacks %v, want %v", c.flavor, c.grants, got, c.lacks)
		}
	}
}

// An account that may create and read shop's tables but not insert into them is refused
// before setup, each table's line naming INSERT on it, and the schema was not run; granted
// INSERT, the same plan fills the tables.
func TestGenerateLeastPrivilege(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genpriv"})
	srv := c.Primary
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := srv.Exec(ctx, "CREATE USER app@'%' IDENTIFIED BY 'apppw'", "GRANT CREATE, SELECT ON shop.* TO app@'%'"); err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile("../examples/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(generatePrivPlan, fmt.Sprintf("app:apppw@tcp(127.0.0.1:%d)/", srv.Port()))
	files := map[string]string{"shop.sql": string(schema)}
	_, out, err := runPlan(t, text, files, Options{})
	var pe *PlanError
	if !errors.As(err, &pe) {
		t.Fatalf("run error %v (outcome %+v), want a PlanError (exit 2)", err, out)
	}
	t.Log(err)
	line := 1 + strings.Count(text[:strings.Index(text, "orders:")], "\n")
	for _, want := range []string{fmt.Sprintf("plan.yaml:%d:", line), "generate orders", "needs INSERT on shop.orders", "app@%", "GRANT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q:\n%v", want, err)
		}
	}
	root, err := srv.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var n int
	if err := root.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'shop'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("shop exists after the refusal (%d, %v): the schema ran", n, err)
	}
	if err := srv.Exec(ctx, "GRANT INSERT ON shop.* TO app@'%'"); err != nil {
		t.Fatal(err)
	}
	if _, out, err := runPlan(t, text, files, Options{}); err != nil || out.Status != results.StatusDone {
		t.Fatalf("with INSERT: %v, outcome %+v", err, out)
	}
	if err := root.QueryRowContext(ctx, "SELECT COUNT(*) FROM shop.order_items").Scan(&n); err != nil || n != 200 {
		t.Fatalf("shop.order_items has %d rows (%v), want 200", n, err)
	}
}
