// Package tpcc is `workload: {builtin: tpcc}`: a TPC-C-like workload (not an audited TPC-C
// result). Prepare loads the specification's nine tables, Run drives terminals through the
// five transactions, Check verifies the consistency conditions of clause 3.3.2.
package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is `workload: {builtin: tpcc}`, a kind of its own beside the OLTP scripts: its own
// options, a consistency check, terminals that pace themselves.
var Kind = workload.Kind{
	Spec: spec.Kind{
		Name: kindName, Key: "builtin", Values: []string{kindName},
		Doc: "builtin: tpcc is a TPC-C-like order entry workload (docs/tpcc.md): its transactions " +
			"(tx.NAME.*) are " + strings.Join(Transactions, ", ") + "; action: check verifies the specification's consistency conditions.",
		Body:    func() any { return new(string) },
		Options: func() any { return new(spec.Settings) },
		OptionsDoc: "builtin tpcc: warehouses, wait_times, weight_new_order/payment/order_status/delivery/stock_level, " +
			"secondary_indexes, foreign_keys, load_batch (see docs/tpcc.md).",
		Actions:       []string{"prepare", "cleanup", "check"},
		Spreads:       true,
		NoRate:        "its terminals pace themselves; use options: {wait_times: true} for the specification's keying and think times",
		SplitsPrepare: true,
		Check:         func(c *spec.Check, w *spec.Workload) { c.Add(validate(w)) },
		CheckPlan:     ValidateLoaded,
		Describe: func(w *spec.Workload) string {
			s := "builtin tpcc " + w.Action
			if o := workload.Options(w); len(o) > 0 {
				s += fmt.Sprintf(" (%s)", o)
			}
			return s
		},
		TxNames: func(*spec.Workload) []string { return Transactions },
		Privileges: func(w *spec.Workload) ([]string, string) {
			switch w.Action {
			case "prepare": // tables, the load, then ALTER TABLE for indexes (and foreign keys when asked)
				privs := []string{"CREATE", "INSERT", "ALTER"}
				if v, ok := workload.Options(w).Lookup("foreign_keys"); ok && v == true {
					privs = append(privs, "REFERENCES")
				}
				return privs, "tpcc"
			case "cleanup":
				return []string{"DROP"}, "tpcc"
			case "check":
				return []string{"SELECT"}, "tpcc"
			}
			return []string{"SELECT", "INSERT", "UPDATE", "DELETE"}, "tpcc"
		},
	},
	New:     newTPCC,
	Metrics: Metrics,
}

// kindName is the kind's name and builtin:'s value.
const kindName = "tpcc"

// Transactions are the five transactions' names, as tx.NAME.* columns have them.
var Transactions = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// TerminalsPerWarehouse is the specification's number of terminals per warehouse: with
// wait times, each terminal is a connection.
const TerminalsPerWarehouse = 10

// Transaction indexes, in the order of Transactions.
const (
	txNewOrder = iota
	txPayment
	txOrderStatus
	txDelivery
	txStockLevel
)

// Params are the tpcc options.
type Params struct {
	Warehouses int
	// WaitTimes adds the specification's keying and think times around each transaction.
	WaitTimes bool
	// Weights of NewOrder, Payment, OrderStatus, Delivery, StockLevel.
	Weights [5]int
	// Prepare: secondary indexes (customer by last name, orders by customer) and foreign keys.
	Indexes     bool
	ForeignKeys bool
	// LoadBatch is the rows of one multi-row INSERT at prepare.
	LoadBatch int
}

var weightOptions = [5]string{"weight_new_order", "weight_payment", "weight_order_status", "weight_delivery", "weight_stock_level"}

// DefaultParams are the specification's mix on one warehouse.
func DefaultParams() Params {
	return Params{Warehouses: 1, Weights: [5]int{45, 43, 4, 4, 4}, Indexes: true, LoadBatch: 1000}
}

// ParseParams reads the plan's options.
func ParseParams(opts map[string]string) (Params, error) {
	p := DefaultParams()
	known := map[string]bool{}
	for _, n := range KnownOptions() {
		known[n] = true
	}
	var bad []string
	for name := range opts {
		if !known[name] {
			bad = append(bad, name)
		}
	}
	if len(bad) > 0 {
		return p, fmt.Errorf("unknown tpcc option(s) %s; known: warehouses, wait_times, secondary_indexes, foreign_keys, load_batch, %s",
			strings.Join(bad, ", "), strings.Join(weightOptions[:], ", "))
	}
	var err error
	num := func(name string, dst *int, lo int) {
		v, ok := opts[name]
		if !ok || err != nil {
			return
		}
		n, e := strconv.Atoi(v)
		if e != nil || n < lo {
			err = fmt.Errorf("option %s: want a whole number >= %d, got %q", name, lo, v)
			return
		}
		*dst = n
	}
	flag := func(name string, dst *bool) {
		v, ok := opts[name]
		if !ok || err != nil {
			return
		}
		switch strings.ToLower(v) {
		case "on", "true", "1", "yes":
			*dst = true
		case "off", "false", "0", "no":
			*dst = false
		default:
			err = fmt.Errorf("option %s: want true or false, got %q", name, v)
		}
	}
	num("warehouses", &p.Warehouses, 1)
	num("load_batch", &p.LoadBatch, 1)
	for i, n := range weightOptions {
		num(n, &p.Weights[i], 0)
	}
	flag("wait_times", &p.WaitTimes)
	flag("secondary_indexes", &p.Indexes)
	flag("foreign_keys", &p.ForeignKeys)
	if err != nil {
		return p, err
	}
	sum := 0
	for _, w := range p.Weights {
		sum += w
	}
	if sum == 0 {
		return p, fmt.Errorf("the five weight_* options are all 0; give at least one transaction a weight")
	}
	return p, nil
}

// KnownOptions are the option names tpcc takes.
func KnownOptions() []string {
	return append([]string{"warehouses", "wait_times", "secondary_indexes", "foreign_keys", "load_batch"}, weightOptions[:]...)
}

func validate(w *spec.Workload) spec.Errors {
	errs, rest := workload.CheckOptionNames(w, "builtin tpcc", KnownOptions())
	p, err := ParseParams(workload.Settings(rest))
	if err != nil {
		return append(errs, &spec.Error{Pos: w.Src.At("options"), Msg: err.Error()})
	}
	if p.WaitTimes && w.Runs() && w.Threads < TerminalsPerWarehouse*p.Warehouses {
		errs = append(errs, &spec.Error{Pos: w.Src.At("threads"), Msg: fmt.Sprintf(
			"wait_times needs %d terminals (connections) per warehouse: threads: %d for %d warehouse(s), not %d; or drop wait_times",
			TerminalsPerWarehouse, TerminalsPerWarehouse*p.Warehouses, p.Warehouses, w.Threads)})
	}
	return errs
}

// tpcc is the workload bound to its options and server.
type tpcc struct {
	w   *spec.Workload
	p   Params
	env workload.Env
}

func newTPCC(w *spec.Workload, env workload.Env) (workload.Workload, error) {
	p, err := ParseParams(workload.Settings(workload.Options(w)))
	if err != nil {
		return nil, err
	}
	if env.Server.DBName == "" {
		c := env.Server.Clone()
		c.DBName = "tpcc"
		env.Server = c
	}
	return &tpcc{w: w, p: p, env: env}, nil
}

func (t *tpcc) threads() int { return max(t.w.Threads, 1) }

// admin opens a plain connection for DDL, loading and checks: long statements, no short timeout.
func (t *tpcc) admin(ctx context.Context, timeout time.Duration, threads int) (*engine.Conn, error) {
	return engine.Dial(ctx, engine.DialConfig(t.env.Server, true, timeout, threads), false)
}

// exec runs a text statement (DDL, a load's INSERT).
func exec(c *engine.Conn, sql string) error {
	_, err := c.ExecText(sql, false, nil)
	return err
}

func (t *tpcc) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	threads := t.env.Shard.Workers(t.threads())
	if err := t.loaded(ctx); err != nil {
		return nil, err
	}
	// With wait times, terminals are many and mostly idle: text statements keep the server
	// from holding each terminal's prepared statements (max_prepared_stmt_count).
	dc := engine.DialConfig(t.env.Server, !t.p.WaitTimes, t.env.Timeout(), threads)
	return t.runTerminals(ctx, dc, threads, onInterval)
}

// loaded refuses a run over more warehouses than prepare loaded, before any terminal starts.
func (t *tpcc) loaded(ctx context.Context) error {
	c, err := t.admin(ctx, t.env.Timeout(), 1)
	if err != nil {
		return fmt.Errorf("tpcc: %w", err)
	}
	defer c.Close()
	n := 0
	err = c.QueryTextRows("SELECT COUNT(*) FROM warehouse", func(row []driver.Value) error { n = int(asInt(row[0])); return nil })
	if err != nil {
		return fmt.Errorf("tpcc: reading the warehouse table of %s: %w (did you run action: prepare?)", t.env.Server.DBName, err)
	}
	if n < t.p.Warehouses {
		return fmt.Errorf("tpcc: the run asks for %d warehouses but %s holds %d; prepare with warehouses: %d or more, or run with warehouses: %d",
			t.p.Warehouses, t.env.Server.DBName, n, t.p.Warehouses, n)
	}
	return nil
}

func (t *tpcc) Prepare(ctx context.Context) error {
	return prepare(ctx, t, t.env.Log)
}

func (t *tpcc) Cleanup(ctx context.Context) error {
	c, err := t.admin(ctx, time.Hour, 1)
	if err != nil {
		return fmt.Errorf("tpcc cleanup: %w", err)
	}
	defer c.Close()
	// Children first, for the foreign keys.
	for _, tbl := range []string{"order_line", "new_order", "history", "orders", "stock", "customer", "district", "item", "warehouse"} {
		if err := exec(c, "DROP TABLE IF EXISTS "+tbl); err != nil {
			return fmt.Errorf("tpcc cleanup: drop %s: %w", tbl, err)
		}
	}
	return nil
}

func (t *tpcc) Check(ctx context.Context) error {
	return check(ctx, t)
}
