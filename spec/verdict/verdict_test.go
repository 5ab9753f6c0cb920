package verdict

import (
	"math"
	"reflect"
	"testing"

	"github.com/quadrant-bench/quadrant/spec"
)

// testKinds stand in for the executor's kinds, which spec's tests cannot import: a
// workload kind on quadrant's loop with transactions, timed statements and a metric of its
// own, and a step kind that records an iteration metric.
func testKinds(t *testing.T) *spec.Kinds {
	t.Helper()
	ks, err := spec.NewKinds(&spec.Kind{
		Name: "shop", Key: "shop", Body: func() any { return new(string) }, Loop: true, Spreads: true,
		TxNames:    func(*spec.Workload) []string { return []string{"pay"} },
		Statements: func(*spec.Workload) ([]string, bool) { return []string{"point_select"}, true },
		Metrics:    []spec.OwnMetric{{Name: "baskets", Unit: "1"}},
	})
	if err == nil {
		ks, err = ks.WithSteps(&spec.StepKind{Key: "note", Body: func() any { return new(string) },
			RecordAs: func(s *spec.Step) string { return *spec.StepBody[*string](s) }})
	}
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

const plan = `
version: 1
name: verdict
targets:
  db: {dsn: "u@tcp(127.0.0.1:3306)/"}
watch:
  status: [Com_select]
iteration:
  workload: {shop: x, duration: 1s, connect: per_transaction}
  after: [{note: lag_s}]
  assert:
    - "tps > 0"
    - "stmt.point_select.p99_ms < 5"
    - "connect_p99_ms < 2"
    - "tx.pay.count > 0"
    - "status.com_select > 0"
    - "lag_s < 1"
    - "baskets > 0"
`

// holds is a summary row on which every assertion of plan holds, by column name as
// summary.csv has them.
func holds() map[string]float64 {
	return map[string]float64{
		"tps": 100, "stmt.point_select.p99_ms": 3, "stmt.point_select.count": 500, "connect_p99_ms": 1.5,
		"connect_ms": 1, "tx.pay.count": 400, "status.Com_select": 520, "lag_s": 0.2, "baskets": 7,
	}
}

func TestFailedJudgesEveryNameAnAssertionMayUse(t *testing.T) {
	p, err := spec.LoadBytes("plan.yaml", []byte(plan), spec.Options{Kinds: testKinds(t)})
	if err != nil {
		t.Fatal(err)
	}
	it := &p.Iterations[0]
	if got := Failed(p, it, holds()); got != nil {
		t.Fatalf("all hold, got %q", got)
	}
	cases := []struct {
		name string
		edit func(map[string]float64)
		want []string
	}{
		{"a statement class and connect over their limits", func(r map[string]float64) {
			r["stmt.point_select.p99_ms"], r["connect_p99_ms"] = 7.25, 4
		}, []string{"stmt.point_select.p99_ms < 5 (stmt.point_select.p99_ms=7.25)", "connect_p99_ms < 2 (connect_p99_ms=4)"}},
		// The merged folder's bug: a name its evaluator did not know passed or erred.
		// An empty cell is NaN, and an assertion on it fails saying so.
		{"empty cells", func(r map[string]float64) {
			delete(r, "stmt.point_select.p99_ms")
			r["connect_p99_ms"] = math.NaN()
			delete(r, "lag_s")
		}, []string{"stmt.point_select.p99_ms < 5 (stmt.point_select.p99_ms=NaN)", "connect_p99_ms < 2 (connect_p99_ms=NaN)", "lag_s < 1 (lag_s=NaN)"}},
		{"a transaction, the kind's own metric, tps", func(r map[string]float64) {
			r["tx.pay.count"], r["baskets"], r["tps"] = 0, 0, 0
		}, []string{"tps > 0 (tps=0)", "tx.pay.count > 0 (tx.pay.count=0)", "baskets > 0 (baskets=0)"}},
		// status is a map: a missing column would read as 0, so it is said instead.
		{"no status column", func(r map[string]float64) { delete(r, "status.Com_select") },
			[]string{"status.com_select > 0: no value for status.com_select (not a watched column of this target)"}},
		{"status in the server's spelling", func(r map[string]float64) { r["status.Com_select"] = 0 },
			[]string{"status.com_select > 0 (status.com_select=0)"}},
	}
	for _, c := range cases {
		row := holds()
		c.edit(row)
		if got := Failed(p, it, row); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// A workload spread over a Galera sandbox's nodes has node.NAME.SUFFIX, read from the row's
// node.NAME.SUFFIX columns; an empty one is NaN and fails.
func TestFailedJudgesTheNodesOfASpread(t *testing.T) {
	const spread = `
version: 1
name: verdict
targets:
  db: {sandbox: {galera: 3}}
iteration:
  workload: {shop: x, duration: 1s, nodes: all}
  assert: ["node.db_node2.cert_failures == 0", "node.db.transactions > 0"]
`
	p, err := spec.LoadBytes("plan.yaml", []byte(spread), spec.Options{Kinds: testKinds(t)})
	if err != nil {
		t.Fatal(err)
	}
	it := &p.Iterations[0]
	row := map[string]float64{"node.db.transactions": 10, "node.db_node2.cert_failures": 0, "node.db_node3.cert_failures": 9}
	if got := Failed(p, it, row); got != nil {
		t.Fatalf("all hold, got %q", got)
	}
	row["node.db_node2.cert_failures"] = 3
	delete(row, "node.db.transactions")
	want := []string{"node.db_node2.cert_failures == 0 (node.db_node2.cert_failures=3)", "node.db.transactions > 0 (node.db.transactions=NaN)"}
	if got := Failed(p, it, row); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestSeenNamesOnlyTheMetricsAnAssertionUses(t *testing.T) {
	env := map[string]any{"tps": 12.5, "p99_ms": 3.0, "p999_ms": 9.0, "status": map[string]float64{"Com_select": 7, "Com_insert": 1}}
	if got := seen("p99_ms < 2 && status.Com_select > 10", env); got != " (p99_ms=3, status.Com_select=7)" {
		t.Fatalf("seen = %q", got)
	}
}
