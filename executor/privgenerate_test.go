package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
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
