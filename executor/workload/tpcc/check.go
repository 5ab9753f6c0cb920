package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"
)

// condition is one consistency condition of clause 3.3.2: its query returns the keys of
// up to a few rows that break it, nothing when it holds.
type condition struct {
	clause, rule, keys, sql string
}

// delivered is the amount of each customer's delivered order lines.
const delivered = `(SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) s FROM orders JOIN order_line
  ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id)`

// Conditions are the twelve of clause 3.3.2, in order.
var conditions = []condition{
	{"3.3.2.1", "W_YTD = sum(D_YTD)", "w_id",
		`SELECT w.w_id FROM warehouse w LEFT JOIN (SELECT d_w_id, SUM(d_ytd) s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
  WHERE w.w_ytd <> COALESCE(d.s, 0) LIMIT 3`},
	{"3.3.2.2", "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", "w_id, d_id",
		`SELECT d.d_w_id, d.d_id FROM district d
  LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) m FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
  LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) m FROM new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
  WHERE d.d_next_o_id - 1 <> COALESCE(o.m, 0) OR (n.m IS NOT NULL AND d.d_next_o_id - 1 <> n.m) LIMIT 3`},
	{"3.3.2.3", "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER, per district", "w_id, d_id",
		`SELECT no_w_id, no_d_id FROM new_order GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*) LIMIT 3`},
	{"3.3.2.4", "sum(O_OL_CNT) = rows in ORDER-LINE, per district", "w_id, d_id",
		`SELECT o.o_w_id, o.o_d_id FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) s FROM orders GROUP BY o_w_id, o_d_id) o
  LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) n FROM order_line GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
  WHERE o.s <> COALESCE(l.n, 0) LIMIT 3`},
	{"3.3.2.5", "O_CARRIER_ID is null exactly when the order has a NEW-ORDER row", "w_id, d_id, o_id",
		`SELECT o_w_id, o_d_id, o_id FROM orders LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
  WHERE (o_carrier_id IS NULL) <> (no_o_id IS NOT NULL) LIMIT 3`},
	{"3.3.2.6", "O_OL_CNT = the order's rows in ORDER-LINE", "w_id, d_id, o_id",
		`SELECT o.o_w_id, o.o_d_id, o.o_id FROM orders o
  LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
  ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id WHERE o.o_ol_cnt <> COALESCE(l.n, 0) LIMIT 3`},
	{"3.3.2.7", "OL_DELIVERY_D is null exactly when its order's O_CARRIER_ID is", "w_id, d_id, o_id, ol_number",
		`SELECT ol_w_id, ol_d_id, ol_o_id, ol_number FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
  WHERE (ol_delivery_d IS NULL) <> (o_carrier_id IS NULL) LIMIT 3`},
	{"3.3.2.8", "W_YTD = sum(H_AMOUNT)", "w_id",
		`SELECT w.w_id FROM warehouse w LEFT JOIN (SELECT h_w_id, SUM(h_amount) s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
  WHERE w.w_ytd <> COALESCE(h.s, 0) LIMIT 3`},
	{"3.3.2.9", "D_YTD = sum(H_AMOUNT), per district", "w_id, d_id",
		`SELECT d.d_w_id, d.d_id FROM district d
  LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) s FROM history GROUP BY h_w_id, h_d_id) h ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
  WHERE d.d_ytd <> COALESCE(h.s, 0) LIMIT 3`},
	{"3.3.2.10", "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT), per customer", "w_id, d_id, c_id",
		`SELECT c.c_w_id, c.c_d_id, c.c_id FROM customer c
  LEFT JOIN ` + delivered + ` ol ON ol.o_w_id = c.c_w_id AND ol.o_d_id = c.c_d_id AND ol.o_c_id = c.c_id
  LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) s FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
  ON h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id
  WHERE c.c_balance <> COALESCE(ol.s, 0) - COALESCE(h.s, 0) LIMIT 3`},
	// The specification states it for the initial population, where no customer has had a
	// delivery; the 2100 orders delivered at load plus every delivery since keep it true.
	{"3.3.2.11", "rows in ORDER - rows in NEW-ORDER = 2100 + sum(C_DELIVERY_CNT), per district", "w_id, d_id",
		`SELECT d.d_w_id, d.d_id FROM district d
  LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) n FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
  LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) n FROM new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
  LEFT JOIN (SELECT c_w_id, c_d_id, SUM(c_delivery_cnt) n FROM customer GROUP BY c_w_id, c_d_id) c ON c.c_w_id = d.d_w_id AND c.c_d_id = d.d_id
  WHERE COALESCE(o.n, 0) - COALESCE(n.n, 0) <> 2100 + COALESCE(c.n, 0) LIMIT 3`},
	{"3.3.2.12", "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT), per customer", "w_id, d_id, c_id",
		`SELECT c.c_w_id, c.c_d_id, c.c_id FROM customer c
  LEFT JOIN ` + delivered + ` ol ON ol.o_w_id = c.c_w_id AND ol.o_d_id = c.c_d_id AND ol.o_c_id = c.c_id
  WHERE c.c_balance + c.c_ytd_payment <> COALESCE(ol.s, 0) LIMIT 3`},
}

// check runs every condition and names each broken one with a few of the rows that break it.
func check(ctx context.Context, t *tpcc) error {
	c, err := t.admin(ctx, time.Hour, 1)
	if err != nil {
		return fmt.Errorf("tpcc check: %w", err)
	}
	defer c.Close()
	start := time.Now()
	var broken []string
	for _, cond := range conditions {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("tpcc check: %w", err)
		}
		var at []string
		err := c.QueryTextRows(cond.sql, func(r []driver.Value) error {
			vals := make([]string, len(r))
			for i, v := range r {
				vals[i] = asString(v)
			}
			at = append(at, "("+strings.Join(vals, ", ")+")")
			return nil
		})
		if err != nil {
			return fmt.Errorf("tpcc check: condition %s: %w (did you run action: prepare?)", cond.clause, err)
		}
		if len(at) > 0 {
			broken = append(broken, fmt.Sprintf("%s %s is broken at (%s) %s", cond.clause, cond.rule, cond.keys, strings.Join(at, " ")))
		}
	}
	if len(broken) > 0 {
		return fmt.Errorf("tpcc check: %d of %d consistency conditions broken:\n  %s", len(broken), len(conditions), strings.Join(broken, "\n  "))
	}
	t.env.Logf("tpcc check: the %d consistency conditions of clause 3.3.2 hold (%s)", len(conditions), time.Since(start).Round(time.Millisecond))
	return nil
}
