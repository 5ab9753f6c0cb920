package tpcc_test

import (
	"context"
	"database/sql"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/tpcc"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

func tpccWorkload(action string, threads int, opts spec.Settings) *spec.Workload {
	name := "tpcc"
	w := spec.WithDefaults(&spec.Workload{Kind: &tpcc.Kind.Spec, Body: &name, Options: &opts, Action: action,
		Threads: threads, Duration: 3 * time.Second, Src: spec.Source{Pos: spec.Pos{File: "t.yaml", Line: 1, Col: 1}}})
	return w
}

func do(t *testing.T, env workload.Env, w *spec.Workload) (*measure.Total, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	return kinds.Do(ctx, w, env, nil)
}

// One warehouse is loaded, run, checked; then one district's next order id is broken and
// the check names condition 3.3.2.2.
func TestPrepareRunCheckAndCorruption(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "tpcc", Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "256M"},
		{Name: "innodb_flush_log_at_trx_commit", Value: "2"},
	}})
	cfg, err := mysql.ParseDSN(c.Primary.DSN("tpcc"))
	if err != nil {
		t.Fatal(err)
	}
	env := workload.Env{Server: cfg, Log: func(msg string) { t.Log(msg) }}
	one := spec.Settings{{Name: "warehouses", Value: 1}}
	if _, err := do(t, env, tpccWorkload("prepare", 4, one)); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	if _, err := do(t, env, tpccWorkload("check", 1, one)); err != nil {
		t.Fatalf("check after prepare: %v", err)
	}

	tot, err := do(t, env, tpccWorkload("run", 4, one))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if tot.Errors != 0 {
		t.Logf("errors (retried): %v", tot.ErrorsByCode)
	}
	fixed, family := measure.TotalValues(tot)
	vals := map[string]float64{}
	for _, v := range append(fixed, family...) {
		vals[v.Name] = v.Value
	}
	if !(vals["tpmC"] > 0) || !(vals["tpmTotal"] >= vals["tpmC"]) {
		t.Errorf("tpmC %v tpmTotal %v, want tpmC > 0 and tpmTotal >= tpmC", vals["tpmC"], vals["tpmTotal"])
	}
	if !math.IsNaN(vals["efficiency"]) {
		t.Errorf("efficiency %v without wait times, want NaN (an empty cell)", vals["efficiency"])
	}
	for _, name := range tpcc.Transactions {
		if vals["tx."+name+".count"] <= 0 {
			t.Errorf("no %s transaction ran: %v", name, vals)
		}
		for _, p := range []string{"p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"} {
			if v := vals["tx."+name+"."+p]; math.IsNaN(v) || v <= 0 {
				t.Errorf("tx.%s.%s = %v, want a latency", name, p, v)
			}
		}
	}
	no, rb := vals["tx.new_order.count"], vals["tx.new_order.rollbacks"]
	if rb != vals["rollbacks"] || rb > no/10 {
		t.Errorf("rollbacks %v of %v NewOrders (all: %v), want about 1%% and only NewOrder's", rb, no, vals["rollbacks"])
	}
	t.Logf("tpmC %.0f, tpmTotal %.0f, NewOrders %v, rolled back %v", vals["tpmC"], vals["tpmTotal"], no, rb)

	// With wait times: ten mostly idle terminals on text statements; the shortest keying
	// time is 2 s, so a 4 s run completes a few transactions.
	wt := tpccWorkload("run", 10, spec.Settings{{Name: "warehouses", Value: 1}, {Name: "wait_times", Value: true}})
	wt.Duration = 4 * time.Second
	tot, err = do(t, env, wt)
	if err != nil {
		t.Fatalf("run with wait times: %v", err)
	}
	fixed, _ = measure.TotalValues(tot)
	for _, v := range fixed {
		vals[v.Name] = v.Value
	}
	if !(vals["tpmTotal"] > 0) || math.IsNaN(vals["efficiency"]) || vals["efficiency"] < 0 {
		t.Errorf("with wait times: tpmTotal %v efficiency %v, want transactions and an efficiency", vals["tpmTotal"], vals["efficiency"])
	}
	t.Logf("with wait times: %d transactions, tpmC %.1f, efficiency %.1f%%", tot.Events, vals["tpmC"], vals["efficiency"])

	if _, err := do(t, env, tpccWorkload("check", 1, one)); err != nil {
		t.Fatalf("check after the runs: %v", err)
	}

	// More warehouses than loaded: a clear error before any terminal starts.
	_, err = do(t, env, tpccWorkload("run", 2, spec.Settings{{Name: "warehouses", Value: 3}}))
	if err == nil || !strings.Contains(err.Error(), "asks for 3 warehouses but tpcc holds 1") {
		t.Errorf("run over 3 warehouses of 1: %v", err)
	}

	db, err := sql.Open("mysql", c.Primary.DSN("tpcc"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Stock is not among the twelve conditions: every order line since the load counted once.
	var lines, qty, orderCnt, ytd int64
	if err := db.QueryRow("SELECT COUNT(*), COALESCE(SUM(ol_quantity), 0) FROM order_line WHERE ol_o_id > 3000").Scan(&lines, &qty); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT SUM(s_order_cnt), SUM(s_ytd) FROM stock").Scan(&orderCnt, &ytd); err != nil {
		t.Fatal(err)
	}
	if lines == 0 || orderCnt != lines || ytd != qty {
		t.Errorf("stock counted %d order lines and %d items; the order lines since the load are %d with %d items", orderCnt, ytd, lines, qty)
	}

	if _, err := db.Exec("UPDATE district SET d_next_o_id = d_next_o_id + 5 WHERE d_w_id = 1 AND d_id = 3"); err != nil {
		t.Fatal(err)
	}
	_, err = do(t, env, tpccWorkload("check", 1, one))
	if err == nil || !strings.Contains(err.Error(), "3.3.2.2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) is broken at (w_id, d_id) (1, 3)") {
		t.Fatalf("check after breaking district 3's next order id: %v", err)
	}
	if strings.Contains(err.Error(), "3.3.2.1 ") || strings.Contains(err.Error(), "3.3.2.10") {
		t.Errorf("check names conditions that hold: %v", err)
	}
	t.Log(err)

	if _, err := do(t, env, tpccWorkload("cleanup", 1, one)); err != nil {
		t.Fatalf("cleanup: %v", err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'tpcc'").Scan(&n); err != nil || n != 0 {
		t.Errorf("after cleanup %d tables left (%v)", n, err)
	}
}

func TestValidate(t *testing.T) {
	w := tpccWorkload("run", 8, spec.Settings{{Name: "warehouses", Value: 2}, {Name: "wait_times", Value: true}})
	errs := spec.CheckWorkload(w, ".", nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "threads: 20 for 2 warehouse(s), not 8") {
		t.Errorf("wait_times with 8 threads over 2 warehouses: %v", errs)
	}
	w = tpccWorkload("run", 8, spec.Settings{{Name: "warehoses", Value: 2}})
	if errs := spec.CheckWorkload(w, ".", nil); len(errs) != 1 || !strings.Contains(errs[0].Error(), `unknown option "warehoses" for builtin tpcc; did you mean "warehouses"?`) {
		t.Errorf("misspelt option: %v", errs)
	}
}
