package executor

import (
	"testing"

	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A hot row (one row every transaction updates) written through every node of a Galera
// cluster loses certification (error 1213; MariaDB 10.11 words it as a deadlock): the cell
// with nodes: all counts cert failures, in cert_failures, in its nodes' own columns and in
// errors, and its nodes' transactions add up to the cell's; the same load on node 1 alone
// waits on InnoDB's row lock instead and counts none, and has the same node.NAME.* columns,
// node 1 with every transaction. The axis gives nodes: its value; the plan's assertion on
// the nodes' columns holds in both cells.
func TestGaleraSpreadCertFailures(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("galera-spread", "{galera: 3}", `setup:
  - sql: "CREATE DATABASE bench; CREATE TABLE bench.t (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO bench.t VALUES (1, 0)"
matrix:
  writers: [one, all]
iteration:
  workload:
    nodes: ${{ matrix.writers }}
    threads: 6
    events: 600
    transactions:
      - name: hot
        statements:
          - {sql: "BEGIN"}
          - {sql: "UPDATE bench.t SET v = v + 1 WHERE id = 1"}
          - {sql: "COMMIT"}
  assert:
    - "node.db.transactions + node.db_node2.transactions + node.db_node3.transactions == transactions"
`), nil, Options{})
	requireDone(t, run, out, err, 2)
	seen := map[string]bool{}
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, "target") != "db" {
			continue
		}
		writers := run.Summary.Value(i, "writers")
		seen[writers] = true
		certs, errs := col(t, run.Summary, i, "cert_failures"), col(t, run.Summary, i, "errors")
		t.Logf("writers=%s: %v transactions, %v errors, %v cert failures", writers, col(t, run.Summary, i, "transactions"), errs, certs)
		switch writers {
		case "one":
			if certs != 0 || errs != 0 {
				t.Errorf("one node: %v cert failures, %v errors; want 0 (InnoDB's row lock queues the writers)", certs, errs)
			}
			n1, n2, n3 := col(t, run.Summary, i, "node.db.transactions"), col(t, run.Summary, i, "node.db_node2.transactions"), col(t, run.Summary, i, "node.db_node3.transactions")
			if tx := col(t, run.Summary, i, "transactions"); n1 != tx || n2 != 0 || n3 != 0 {
				t.Errorf("one node: transactions per node db %v, db_node2 %v, db_node3 %v; want all %v on db", n1, n2, n3, tx)
			}
		case "all":
			if certs == 0 || certs > errs {
				t.Errorf("every node: %v cert failures of %v errors; want some, counted among the errors", certs, errs)
			}
			var sumTx, sumCert float64
			for _, node := range []string{"db", "db_node2", "db_node3"} {
				sumTx += col(t, run.Summary, i, "node."+node+".transactions")
				sumCert += col(t, run.Summary, i, "node."+node+".cert_failures")
			}
			if tx := col(t, run.Summary, i, "transactions"); sumTx != tx || sumCert != certs {
				t.Errorf("every node: the nodes' transactions %v and cert failures %v, want the cell's %v and %v", sumTx, sumCert, tx, certs)
			}
		}
	}
	if !seen["one"] || !seen["all"] {
		t.Fatalf("summary rows of db for writers %v, want one and all", seen)
	}
	// The time series has them per interval, in db's rows: a rate of each node's.
	ts := run.Timeseries["db"]
	if ts == nil || ts.Col("cert_failures") < 0 || ts.Col("node.db_node3.cert_failures") < 0 {
		t.Fatalf("db's time series lacks cert_failures or node.db_node3.cert_failures")
	}
	var rate float64
	for i := range ts.Rows {
		if v, ok := ts.Float(i, "cert_failures"); ok {
			rate += v
		}
	}
	if rate == 0 {
		t.Errorf("db's time series has no cert failure in any interval")
	}
}

// An OLTP builtin spread over two of the nodes by a list: its threads connect to db_node2
// and db_node3 only (node 1 none), and read_write's transactions commit there: the nodes'
// own wsrep_local_commits say so, and the node.NAME.transactions columns.
func TestGaleraSpreadBuiltin(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("galera-spread-builtin", "{galera: 3}", `setup:
  - workload: {builtin: oltp_read_write, action: prepare, options: {tables: 1, table_size: 100}}
iteration:
  workload:
    builtin: oltp_read_write
    options: {tables: 1, table_size: 100}
    nodes: [db_node2, db_node3]
    threads: 4
    events: 80
watch:
  status: [wsrep_local_commits]
  counters: [wsrep_local_commits]
`), nil, Options{})
	requireDone(t, run, out, err, 1)
	// Where the transactions committed, as each node counts its own (not those it applied).
	commits := map[string]float64{}
	for i := range run.Summary.Rows {
		commits[run.Summary.Value(i, "target")] = col(t, run.Summary, i, "status.wsrep_local_commits")
	}
	if commits["db"] != 0 || commits["db_node2"] == 0 || commits["db_node3"] == 0 {
		t.Errorf("local commits per node %v; want none on db, some on db_node2 and db_node3", commits)
	}
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, "target") != "db" {
			continue
		}
		n1, n2, n3 := col(t, run.Summary, i, "node.db.transactions"), col(t, run.Summary, i, "node.db_node2.transactions"), col(t, run.Summary, i, "node.db_node3.transactions")
		t.Logf("transactions per node: db %v, db_node2 %v, db_node3 %v; cert failures %v", n1, n2, n3, col(t, run.Summary, i, "cert_failures"))
		if n1 != 0 || n2 == 0 || n3 == 0 || n2+n3 != col(t, run.Summary, i, "transactions") {
			t.Errorf("transactions per node: db %v, db_node2 %v, db_node3 %v; want none on db and the rest on the two", n1, n2, n3)
		}
		return
	}
	t.Fatal("no summary row of db")
}
