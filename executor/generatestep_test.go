package executor

import (
	"os"
	"strings"
	"testing"
)

// TestGenerateStepThenWorkload runs examples/generate-shop.yaml, made small: its generate:
// step fills the shop schema (a wait: step checks the row counts, that no order item lacks
// its order, and that the products' pattern: columns reached the rows) and its weighted mix runs on the rows with no error.
func TestGenerateStepThenWorkload(t *testing.T) {
	plan, err := os.ReadFile("../examples/generate-shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile("../examples/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	text := string(plan)
	for old, small := range map[string]string{
		"customers: 20000": "customers: 300", "products: 2000": "products: 50", "orders: 100000": "orders: 1000",
		"rows: 250000": "rows: 2500", "duration: 30s": "duration: 2s",
		"iteration:\n": `  - wait:
      sql: "SELECT (SELECT COUNT(*) FROM shop.customers) AS c, (SELECT COUNT(*) FROM shop.order_items) AS i,
        (SELECT COUNT(*) FROM shop.order_items i LEFT JOIN shop.orders o ON o.id = i.order_id WHERE o.id IS NULL) AS orphans,
        (SELECT COUNT(*) FROM shop.products WHERE sku NOT REGEXP '^[A-Z]{3}-[0-9]{8}$' OR title NOT REGEXP '^[a-z]+ [a-z]+$') AS unpatterned"
      until: "row.c == 300 && row.i == 2500 && row.orphans == 0 && row.unpatterned == 0"
      interval: 100ms
      timeout: 2s
iteration:
  assert: ["tps > 0", "errors == 0"]
`,
	} {
		if !strings.Contains(text, old) {
			t.Fatalf("examples/generate-shop.yaml has no %q any more; update this test", old)
		}
		text = strings.Replace(text, old, small, 1)
	}
	text = strings.Replace(text, "  assert: [\"tps > 0\"]\n", "", 1)
	run, out, err := runPlan(t, text, map[string]string{"shop.sql": string(schema)}, Options{})
	requireDone(t, run, out, err, 1)
}
