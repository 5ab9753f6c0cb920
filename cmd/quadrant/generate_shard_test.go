package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results"
)

// TestShardsGenerate: a generate step in a run of 2 shards (quadrant run --shard K/2) is
// split: the leader runs the schema, each shard fills its half of every table's rows, and
// the tables are exactly those of an unsharded run of the same plan (CHECKSUM TABLE).
func TestShardsGenerate(t *testing.T) {
	dsn, db, _ := shardServer(t)
	plan := writePlan(t, fmt.Sprintf(`
version: 1
name: shardgen
targets:
  db: {dsn: "%s"}
setup:
  - generate:
      schema: %s
      seed: 5
      threads: 2
      tables:
        customers: {rows: 300}
        products: {rows: 50}
        orders: {rows: 1001, columns: {customer_id: {distribution: zipf}}}
        order_items: {rows: 2500}
iteration:
  workload:
    transactions:
      - name: count
        statements: [{sql: "SELECT COUNT(*) FROM shop.orders"}]
    threads: 2
    duration: 1s
`, dsn, "shop.sql"))
	copyFile(t, "../../examples/shop.sql", filepath.Join(filepath.Dir(plan), "shop.sql")) // a plan's files live in its folder
	sums := func() string {
		t.Helper()
		var out []string
		for _, tn := range []string{"customers", "products", "orders", "order_items"} {
			var name, sum string
			if err := db.QueryRow("CHECKSUM TABLE shop."+tn).Scan(&name, &sum); err != nil {
				t.Fatal(err)
			}
			out = append(out, tn+"="+sum)
		}
		return strings.Join(out, " ")
	}
	root, _ := runShards(t, plan, "shardgen", "g1", 2, 5*time.Minute)
	var orders int
	if err := db.QueryRow("SELECT COUNT(*) FROM shop.orders").Scan(&orders); err != nil || orders != 1001 {
		t.Fatalf("shop.orders has %d rows (%v), want 1001", orders, err)
	}
	log, _ := os.ReadFile(filepath.Join(root, "shardgen", "g1", "shard-1", results.LogFile))
	if !strings.Contains(string(log), "shard 1/2 filled rows 501..1001 of shop.orders") {
		t.Errorf("shard 1 did not fill the second half of orders:\n%s", log)
	}
	sharded := sums()
	if _, err := db.Exec("DROP DATABASE shop"); err != nil {
		t.Fatal(err)
	}
	if p := start(t, nil, "run", plan, "--out", t.TempDir()); p.wait(t, 5*time.Minute) != 0 {
		t.Fatalf("unsharded run:\n%s", p.out.String())
	}
	if whole := sums(); whole != sharded {
		t.Errorf("2 shards gave other rows than one run:\n%s\n%s", sharded, whole)
	}
}
