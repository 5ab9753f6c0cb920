package tpcc

import (
	"database/sql/driver"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
)

// terminal is one emulated terminal: a home warehouse, a district for StockLevel, a
// connection with its statements, and its own random source.
type terminal struct {
	c          *engine.Conn
	s          stmts
	g          *rng
	k          constants
	w, d       int // home warehouse and StockLevel's district
	warehouses int
	cum        [5]int // the mix's cumulative weights
	// pacing (Next): wait times, the transaction picked, whether one ran before
	waits bool
	tx    int
	ran   bool
	timer *time.Timer
	// scratch, reused across transactions
	args  []driver.Value
	lines []orderLine
	ids   []int
}

// stmts are a terminal's statements, registered on its connection (prepared on the server
// unless with wait times, and again after a reconnect). Those whose rows are read are
// queries (PrepareQuery); the others go through the engine's wire path.
type stmts struct {
	noCustomer, noDistrict, noDistrictNext, noOrder, noNewOrder, noItems, noStock, noStockUpdate  *engine.Stmt
	noLines                                                                                       [maxLines + 1]*engine.Stmt // per line count, prepared when first used
	payWarehouse, payDistrict, payAddresses, payCustomer, payBadCredit, payGoodCredit, payHistory *engine.Stmt
	byName, osCustomer, osOrder, osLines                                                          *engine.Stmt
	dlNewOrder, dlDelete, dlOrder, dlCarrier, dlDelivered, dlAmount, dlCustomer                   *engine.Stmt
	slDistrict, slCount                                                                           *engine.Stmt
}

func (t *terminal) prepare() error {
	var err error
	reg := func(sql string, rows bool) *engine.Stmt {
		if err != nil {
			return nil
		}
		var s *engine.Stmt
		if rows {
			s, err = t.c.PrepareQuery(sql)
		} else {
			s, err = t.c.Prepare(sql)
		}
		return s
	}
	ex := func(sql string) *engine.Stmt { return reg(sql, false) }
	q := func(sql string) *engine.Stmt { return reg(sql, true) }
	t.s = stmts{
		noCustomer:     ex("SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?"),
		noDistrict:     q("SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE"),
		noDistrictNext: ex("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?"),
		noOrder:        ex("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, NOW(), ?, ?)"),
		noNewOrder:     ex("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"),
		noItems:        q(itemSQL),
		noStock:        q(stockSQL),
		noStockUpdate:  ex(stockUpdateSQL),

		payWarehouse: ex("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"),
		payDistrict:  ex("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"),
		// The warehouse's and the district's addresses in one round trip.
		payAddresses: q("SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_name " +
			"FROM warehouse, district WHERE w_id = ? AND d_w_id = w_id AND d_id = ?"),
		payCustomer:   q("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE"),
		payBadCredit:  ex("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = LEFT(CONCAT(?, c_data), 500) WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
		payGoodCredit: ex("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
		payHistory:    ex("INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, NOW(), ?, ?)"),

		byName:     q("SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"),
		osCustomer: ex("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
		osOrder:    q("SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1"),
		osLines:    ex("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"),

		dlNewOrder:  q("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE"),
		dlDelete:    ex("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?"),
		dlOrder:     q("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"),
		dlCarrier:   ex("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"),
		dlDelivered: ex("UPDATE order_line SET ol_delivery_d = NOW() WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"),
		dlAmount:    q("SELECT COALESCE(SUM(ol_amount), 0) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"),
		dlCustomer:  ex("UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),

		slDistrict: q("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"),
		slCount:    ex("SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?"),
	}
	return err
}

// with is args in the terminal's scratch slice, valid until the next call.
func (t *terminal) with(args ...driver.Value) []driver.Value {
	t.args = append(t.args[:0], args...)
	return t.args
}

// errNoRow is a query that found nothing where the data must have a row.
type errNoRow struct{ sql string }

func (e errNoRow) Error() string {
	return fmt.Sprintf("no row for %q: the tpcc data is incomplete; run action: cleanup and action: prepare again", e.sql)
}

type orderLine struct {
	item, supply, qty int
	price             float64
	dist              string
	quantity          int64
}

func (t *terminal) customerID() int { return t.g.nurand(1023, t.k.cID, 1, customersPerDistrict) }

// other is a warehouse other than w (w itself when there is only one).
func (t *terminal) other(w int) int {
	if t.warehouses == 1 {
		return w
	}
	o := t.g.between(1, t.warehouses-1)
	if o >= w {
		o++
	}
	return o
}

func placeholders(n int, one string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(one)
	}
	return b.String()
}

// newOrder is clause 2.4: 5-15 lines, 1% of them from a remote warehouse, 1% of the
// transactions rolled back by an item id that does not exist.
func (t *terminal) newOrder() error {
	g, c := t.g, t.c
	w, d, cid := t.w, g.between(1, districtsPerWarehouse), t.customerID()
	n, allLocal := t.orderLines()
	if err := c.Begin(); err != nil {
		return err
	}
	oid, err := t.newOrderHeader(w, d, cid, n, allLocal)
	if err != nil {
		return err
	}
	found, err := t.newOrderItems(n)
	if err != nil {
		return err
	}
	if found < n {
		// The unused item: the specification's rollback, after the work so far; a
		// completed transaction for the loop, counted as a rollback.
		if err := c.Rollback(); err != nil {
			return err
		}
		return engine.ErrRollback
	}
	if err := t.newOrderStock(w, d, n); err != nil {
		return err
	}
	t.args = t.args[:0]
	for i, l := range t.lines {
		amount := float64(l.qty) * l.price
		t.args = append(t.args, oid, int64(d), int64(w), int64(i+1), int64(l.item), int64(l.supply), int64(l.qty),
			strconv.FormatFloat(amount, 'f', 2, 64), l.dist)
	}
	if err := c.Exec(t.s.noLines[n], t.args); err != nil {
		return err
	}
	return c.Commit()
}

// orderLines draws a NewOrder's 5 to 15 lines into t.lines, distinct items sorted by
// supplying warehouse and item (the order the stock rows are locked in), the last one an
// unused item in 1% of orders (the specification's rollback); allLocal is 0 when a line is
// supplied by another warehouse.
func (t *terminal) orderLines() (n, allLocal int) {
	g, w := t.g, t.w
	n = g.between(5, 15)
	rollback := g.between(1, 100) == 1
	t.lines = t.lines[:0]
	allLocal = 1
	for i := range n {
		l := orderLine{supply: w, qty: g.between(1, 10)}
		// Distinct items: the stock rows of one order are locked and updated once each.
		for {
			l.item = g.nurand(8191, t.k.olIID, 1, items)
			if !slices.ContainsFunc(t.lines, func(o orderLine) bool { return o.item == l.item }) {
				break
			}
		}
		if rollback && i == n-1 {
			l.item = items + 1
		}
		if t.warehouses > 1 && g.between(1, 100) == 1 {
			l.supply = t.other(w)
			allLocal = 0
		}
		t.lines = append(t.lines, l)
	}
	slices.SortFunc(t.lines, func(a, b orderLine) int {
		if a.supply != b.supply {
			return a.supply - b.supply
		}
		return a.item - b.item
	})
	return n, allLocal
}

// newOrderHeader reads the customer, takes the district's next order id and inserts the
// order and its new_order row; it returns the order id.
func (t *terminal) newOrderHeader(w, d, cid, n, allLocal int) (int64, error) {
	c := t.c
	if err := c.Exec(t.s.noCustomer, t.with(int64(w), int64(d), int64(cid))); err != nil {
		return 0, err
	}
	var oid int64
	if err := c.Query(t.s.noDistrict, t.with(int64(w), int64(d)),
		func(r []driver.Value) error { oid = asInt(r[0]); return nil }); err != nil {
		return 0, err
	}
	if err := c.Exec(t.s.noDistrictNext, t.with(int64(w), int64(d))); err != nil {
		return 0, err
	}
	if err := c.Exec(t.s.noOrder, t.with(oid, int64(d), int64(w), int64(cid), int64(n), int64(allLocal))); err != nil {
		return 0, err
	}
	if err := c.Exec(t.s.noNewOrder, t.with(oid, int64(d), int64(w))); err != nil {
		return 0, err
	}
	if t.s.noLines[n] == nil {
		s, err := c.Prepare("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES " +
			placeholders(n, "(?,?,?,?,?,?,?,?,?)"))
		if err != nil {
			return 0, err
		}
		t.s.noLines[n] = s
	}
	return oid, nil
}

// newOrderItems reads the lines' item prices; found is how many items exist (fewer than n:
// the rollback's unused item).
func (t *terminal) newOrderItems(n int) (found int, err error) {
	// The item and stock lookups always take 15 keys, the last one repeated: one statement
	// each instead of one per line count keeps the server's prepared statements few.
	t.args = t.args[:0]
	for i := range maxLines {
		t.args = append(t.args, int64(t.lines[min(i, n-1)].item))
	}
	err = t.c.Query(t.s.noItems, t.args, func(r []driver.Value) error {
		id := int(asInt(r[0]))
		for i := range t.lines {
			if t.lines[i].item == id {
				t.lines[i].price = asFloat(r[1])
			}
		}
		found++
		return nil
	})
	return found, err
}

// newOrderStock reads the lines' stock rows (locking them) and updates them all in one
// statement.
func (t *terminal) newOrderStock(w, d, n int) error {
	c := t.c
	t.args = append(t.args[:0], int64(d))
	for i := range maxLines {
		l := t.lines[min(i, n-1)]
		t.args = append(t.args, int64(l.supply), int64(l.item))
	}
	if err := c.Query(t.s.noStock, t.args, func(r []driver.Value) error {
		id, sw := int(asInt(r[0])), int(asInt(r[1]))
		for i := range t.lines {
			if t.lines[i].item == id && t.lines[i].supply == sw {
				t.lines[i].quantity = asInt(r[2])
				t.lines[i].dist = asString(r[3])
			}
		}
		return nil
	}); err != nil {
		return err
	}
	// One UPDATE for all the order's stock rows: the items of an order are distinct, so the
	// item id picks each row's new values.
	t.args = t.args[:0]
	for _, part := range [3]int{0, 1, 2} {
		for i := range maxLines {
			l := t.lines[min(i, n-1)]
			var v int64
			switch part {
			case 0:
				v = l.quantity - int64(l.qty)
				if v < 10 {
					v += 91
				}
			case 1:
				v = int64(l.qty)
			case 2:
				if l.supply != w {
					v = 1
				}
			}
			t.args = append(t.args, int64(l.item), v)
		}
	}
	for i := range maxLines {
		l := t.lines[min(i, n-1)]
		t.args = append(t.args, int64(l.supply), int64(l.item))
	}
	return c.Exec(t.s.noStockUpdate, t.args)
}

// maxLines is the most lines an order has.
const maxLines = 15

var (
	itemSQL        = "SELECT i_id, i_price FROM item WHERE i_id IN (" + placeholders(maxLines, "?") + ")"
	stockUpdateSQL = "UPDATE stock SET s_quantity = CASE s_i_id" + strings.Repeat(" WHEN ? THEN ?", maxLines) + " END, " +
		"s_ytd = s_ytd + CASE s_i_id" + strings.Repeat(" WHEN ? THEN ?", maxLines) + " END, s_order_cnt = s_order_cnt + 1, " +
		"s_remote_cnt = s_remote_cnt + CASE s_i_id" + strings.Repeat(" WHEN ? THEN ?", maxLines) + " END " +
		"WHERE (s_w_id, s_i_id) IN (" + placeholders(maxLines, "(?,?)") + ")"
	stockSQL = "SELECT s_i_id, s_w_id, s_quantity, ELT(?, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, " +
		"s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10) FROM stock WHERE (s_w_id, s_i_id) IN (" + placeholders(maxLines, "(?,?)") + ") FOR UPDATE"
)

// customerByName is clause 2.5.2.2's pick: the customers of that last name sorted by
// first name, the one at position ceil(n/2).
func (t *terminal) customerByName(w, d int, last string) (int64, error) {
	ids := t.ids[:0]
	err := t.c.Query(t.s.byName, t.with(int64(w), int64(d), last),
		func(r []driver.Value) error { ids = append(ids, int(asInt(r[0]))); return nil })
	t.ids = ids
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, errNoRow{"customer " + last}
	}
	return int64(ids[(len(ids)-1)/2]), nil
}

// payment is clause 2.5: 85% for a customer of the home warehouse, 60% by last name.
func (t *terminal) payment() error {
	g, c := t.g, t.c
	w, d := t.w, g.between(1, districtsPerWarehouse)
	cw, cd := w, d
	if t.warehouses > 1 && g.between(1, 100) > 85 {
		cw, cd = t.other(w), g.between(1, districtsPerWarehouse)
	}
	amount := g.cents(1, 5000)
	byName := g.between(1, 100) <= 60
	last := ""
	cid := int64(0)
	if byName {
		last = lastName(g.nurand(255, t.k.cLast, 0, 999))
	} else {
		cid = int64(t.customerID())
	}
	amt := strconv.FormatFloat(amount, 'f', 2, 64)
	if err := c.Begin(); err != nil {
		return err
	}
	if err := c.Exec(t.s.payWarehouse, t.with(amt, int64(w))); err != nil {
		return err
	}
	if err := c.Exec(t.s.payDistrict, t.with(amt, int64(w), int64(d))); err != nil {
		return err
	}
	var wName, dName string
	if err := c.Query(t.s.payAddresses, t.with(int64(w), int64(d)),
		func(r []driver.Value) error { wName, dName = asString(r[5]), asString(r[11]); return nil }); err != nil {
		return err
	}
	if byName {
		var err error
		if cid, err = t.customerByName(cw, cd, last); err != nil {
			return err
		}
	}
	credit := ""
	if err := c.Query(t.s.payCustomer, t.with(int64(cw), int64(cd), cid),
		func(r []driver.Value) error { credit = asString(r[9]); return nil }); err != nil {
		return err
	}
	if credit == "BC" {
		// Bad credit: the payment's details go in front of C_DATA, kept to 500 characters.
		info := strconv.FormatInt(cid, 10) + " " + strconv.Itoa(cd) + " " + strconv.Itoa(cw) + " " + strconv.Itoa(d) + " " + strconv.Itoa(w) + " " + amt + " | "
		if err := c.Exec(t.s.payBadCredit, t.with(amt, amt, info, int64(cw), int64(cd), cid)); err != nil {
			return err
		}
	} else if err := c.Exec(t.s.payGoodCredit, t.with(amt, amt, int64(cw), int64(cd), cid)); err != nil {
		return err
	}
	hData := wName + "    " + dName
	if err := c.Exec(t.s.payHistory, t.with(int64(cd), int64(cw), cid, int64(d), int64(w), amt, hData)); err != nil {
		return err
	}
	return c.Commit()
}

// orderStatus is clause 2.6: a customer's last order and its lines, 60% by last name.
func (t *terminal) orderStatus() error {
	g, c := t.g, t.c
	w, d := t.w, g.between(1, districtsPerWarehouse)
	if err := c.Begin(); err != nil {
		return err
	}
	var cid int64
	if g.between(1, 100) <= 60 {
		var err error
		if cid, err = t.customerByName(w, d, lastName(g.nurand(255, t.k.cLast, 0, 999))); err != nil {
			return err
		}
	} else {
		cid = int64(t.customerID())
	}
	if err := c.Exec(t.s.osCustomer, t.with(int64(w), int64(d), cid)); err != nil {
		return err
	}
	oid := int64(-1)
	if err := c.Query(t.s.osOrder, t.with(int64(w), int64(d), cid),
		func(r []driver.Value) error { oid = asInt(r[0]); return nil }); err != nil {
		return err
	}
	if oid >= 0 {
		if err := c.Exec(t.s.osLines, t.with(int64(w), int64(d), oid)); err != nil {
			return err
		}
	}
	return c.Commit()
}

// delivery is clause 2.7, run as one transaction over the warehouse's ten districts: the
// oldest undelivered order of each gets a carrier, its lines a date, its customer the amount.
func (t *terminal) delivery() error {
	g, c := t.g, t.c
	w := t.w
	carrier := int64(g.between(1, 10))
	if err := c.Begin(); err != nil {
		return err
	}
	for d := int64(1); d <= districtsPerWarehouse; d++ {
		oid := int64(-1)
		if err := c.Query(t.s.dlNewOrder, t.with(int64(w), d),
			func(r []driver.Value) error { oid = asInt(r[0]); return nil }); err != nil {
			return err
		}
		if oid < 0 {
			continue // no undelivered order in this district: skipped, as the specification allows
		}
		if err := c.Exec(t.s.dlDelete, t.with(int64(w), d, oid)); err != nil {
			return err
		}
		var cid int64
		if err := c.Query(t.s.dlOrder, t.with(int64(w), d, oid),
			func(r []driver.Value) error { cid = asInt(r[0]); return nil }); err != nil {
			return err
		}
		if err := c.Exec(t.s.dlCarrier, t.with(carrier, int64(w), d, oid)); err != nil {
			return err
		}
		if err := c.Exec(t.s.dlDelivered, t.with(int64(w), d, oid)); err != nil {
			return err
		}
		var amount driver.Value = "0"
		if err := c.Query(t.s.dlAmount, t.with(int64(w), d, oid),
			func(r []driver.Value) error { amount = asString(r[0]); return nil }); err != nil {
			return err
		}
		if err := c.Exec(t.s.dlCustomer, t.with(amount, int64(w), d, cid)); err != nil {
			return err
		}
	}
	return c.Commit()
}

// stockLevel is clause 2.8: the distinct items of the district's last 20 orders whose
// stock is below a threshold; read-only, one statement after the district's next order id.
func (t *terminal) stockLevel() error {
	g, c := t.g, t.c
	threshold := int64(g.between(10, 20))
	var next int64
	if err := c.Query(t.s.slDistrict, t.with(int64(t.w), int64(t.d)),
		func(r []driver.Value) error { next = asInt(r[0]); return nil }); err != nil {
		return err
	}
	return c.Exec(t.s.slCount, t.with(int64(t.w), int64(t.d), next, next-20, int64(t.w), threshold))
}

// asInt reads an integer column: int64 from the binary protocol, text otherwise.
func asInt(v driver.Value) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case []byte:
		n, _ := strconv.ParseInt(string(x), 10, 64)
		return n
	case float64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

// asFloat reads a DECIMAL or floating column.
func asFloat(v driver.Value) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int64:
		return float64(x)
	case []byte:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return 0
}

// asString reads a text or DECIMAL column.
func asString(v driver.Value) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
