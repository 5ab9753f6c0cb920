package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// Per warehouse, as the specification sizes them (clause 1.2 and 4.3).
const (
	districtsPerWarehouse = 10
	customersPerDistrict  = 3000
	ordersPerDistrict     = 3000
	items                 = 100000
	// Orders from here on are undelivered: they have a new_order row (the last 900).
	firstNewOrder = 2101
)

// tables in creation order (parents first).
var tables = []struct{ name, ddl string }{
	{"warehouse", `CREATE TABLE warehouse (
  w_id INT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), w_city VARCHAR(20),
  w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2), PRIMARY KEY (w_id))`},
	{"district", `CREATE TABLE district (
  d_id INT NOT NULL, d_w_id INT NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20),
  d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INT,
  PRIMARY KEY (d_w_id, d_id))`},
	{"customer", `CREATE TABLE customer (
  c_id INT NOT NULL, c_d_id INT NOT NULL, c_w_id INT NOT NULL, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16),
  c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16),
  c_since DATETIME, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2),
  c_ytd_payment DECIMAL(12,2), c_payment_cnt INT, c_delivery_cnt INT, c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id))`},
	{"history", `CREATE TABLE history (
  h_c_id INT, h_c_d_id INT, h_c_w_id INT, h_d_id INT, h_w_id INT, h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24))`},
	{"new_order", `CREATE TABLE new_order (
  no_o_id INT NOT NULL, no_d_id INT NOT NULL, no_w_id INT NOT NULL, PRIMARY KEY (no_w_id, no_d_id, no_o_id))`},
	{"orders", `CREATE TABLE orders (
  o_id INT NOT NULL, o_d_id INT NOT NULL, o_w_id INT NOT NULL, o_c_id INT, o_entry_d DATETIME, o_carrier_id INT,
  o_ol_cnt INT, o_all_local INT, PRIMARY KEY (o_w_id, o_d_id, o_id))`},
	{"order_line", `CREATE TABLE order_line (
  ol_o_id INT NOT NULL, ol_d_id INT NOT NULL, ol_w_id INT NOT NULL, ol_number INT NOT NULL, ol_i_id INT NOT NULL,
  ol_supply_w_id INT, ol_delivery_d DATETIME, ol_quantity INT, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))`},
	{"item", `CREATE TABLE item (
  i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50), PRIMARY KEY (i_id))`},
	{"stock", `CREATE TABLE stock (
  s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24),
  s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24),
  s_dist_10 CHAR(24), s_ytd INT, s_order_cnt INT, s_remote_cnt INT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))`},
}

// indexes serve Payment and OrderStatus by last name, OrderStatus's last order of a
// customer, and the history sums of the consistency check.
var indexes = []string{
	"ALTER TABLE customer ADD INDEX idx_customer (c_w_id, c_d_id, c_last, c_first)",
	"ALTER TABLE orders ADD INDEX idx_orders (o_w_id, o_d_id, o_c_id, o_id)",
	"ALTER TABLE history ADD INDEX idx_history_c (h_c_w_id, h_c_d_id, h_c_id), ADD INDEX idx_history_d (h_w_id, h_d_id)",
}

var foreignKeys = []string{
	"ALTER TABLE district ADD CONSTRAINT fk_district_w FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id)",
	"ALTER TABLE customer ADD CONSTRAINT fk_customer_d FOREIGN KEY (c_w_id, c_d_id) REFERENCES district (d_w_id, d_id)",
	"ALTER TABLE history ADD CONSTRAINT fk_history_c FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) REFERENCES customer (c_w_id, c_d_id, c_id), " +
		"ADD CONSTRAINT fk_history_d FOREIGN KEY (h_w_id, h_d_id) REFERENCES district (d_w_id, d_id)",
	"ALTER TABLE orders ADD CONSTRAINT fk_orders_c FOREIGN KEY (o_w_id, o_d_id, o_c_id) REFERENCES customer (c_w_id, c_d_id, c_id)",
	"ALTER TABLE new_order ADD CONSTRAINT fk_new_order_o FOREIGN KEY (no_w_id, no_d_id, no_o_id) REFERENCES orders (o_w_id, o_d_id, o_id)",
	"ALTER TABLE order_line ADD CONSTRAINT fk_order_line_o FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) REFERENCES orders (o_w_id, o_d_id, o_id), " +
		"ADD CONSTRAINT fk_order_line_s FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES stock (s_w_id, s_i_id)",
	"ALTER TABLE stock ADD CONSTRAINT fk_stock_w FOREIGN KEY (s_w_id) REFERENCES warehouse (w_id), " +
		"ADD CONSTRAINT fk_stock_i FOREIGN KEY (s_i_id) REFERENCES item (i_id)",
}

// itemChunks splits the item table into jobs that load beside the warehouses.
const itemChunks = 10

// prepare creates the tables and loads them: the item table in chunks and each warehouse
// as one job, `threads` jobs at a time; indexes and foreign keys come after the load,
// which is faster than keeping them up to date row by row.
func prepare(ctx context.Context, t *tpcc, logf func(string)) error {
	log := func(format string, args ...any) {
		if logf != nil {
			logf(fmt.Sprintf(format, args...))
		}
	}
	threads := t.threads()
	cfg := engine.DialConfig(t.env.Server, true, 24*time.Hour, threads)
	db := cfg.DBName
	nodb := cfg.Clone()
	nodb.DBName = ""
	c, err := engine.Dial(ctx, nodb, false)
	if err != nil {
		return fmt.Errorf("tpcc prepare: %w", err)
	}
	defer c.Close()
	if err := exec(c, "CREATE DATABASE IF NOT EXISTS `"+db+"`"); err != nil {
		return fmt.Errorf("tpcc prepare: create database %s: %w", db, err)
	}
	if err := exec(c, "USE `"+db+"`"); err != nil {
		return fmt.Errorf("tpcc prepare: %w", err)
	}
	// Sharded (quadrant run --shard), the leader creates the tables and loads the items,
	// every shard loads its warehouses, and the leader adds the indexes once all are in.
	sh := t.env.Shard
	meet := func(point string) error {
		if !sh.Sharded() || t.env.Meet == nil {
			return nil
		}
		if err := t.env.Meet(ctx, point); err != nil {
			return fmt.Errorf("tpcc prepare: %w", err)
		}
		return nil
	}
	if sh.Leader() {
		if err := createTables(c, db); err != nil {
			return err
		}
	}
	if err := meet("tpcc tables"); err != nil {
		return err
	}
	jobs, owned := loadJobs(t.p.Warehouses, sh)
	start := time.Now()
	retry := &engine.LoadRetry{Log: logf}
	var loadedWh atomic.Int64
	loaded := func(w int) {
		n := loadedWh.Add(1)
		log("tpcc prepare: warehouse %d loaded (%d of %d, %s)", w, n, owned, time.Since(start).Round(time.Second))
	}
	err = loadAll(ctx, cfg, jobs, min(threads, cap(jobs)), t.p.LoadBatch, retry, loaded)
	log("tpcc prepare: %d batch(es) sent again after a deadlock or lock wait timeout", retry.Retries())
	if err != nil {
		return fmt.Errorf("tpcc prepare: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tpcc prepare: %w", err)
	}
	if err := meet("tpcc loaded"); err != nil {
		return err
	}
	if !sh.Leader() {
		log("tpcc prepare: shard %s loaded its %d warehouse(s) in %s", sh, owned, time.Since(start).Round(time.Second))
		return nil
	}
	if err := addKeys(c, t.p); err != nil {
		return err
	}
	log("tpcc prepare: %d warehouse(s) and %d items in %s", t.p.Warehouses, items, time.Since(start).Round(time.Second))
	return nil
}

// createTables creates the tables (without their secondary indexes and foreign keys).
func createTables(c *engine.Conn, db string) error {
	for _, tb := range tables {
		if err := exec(c, tb.ddl); err != nil {
			if engine.Code(err) == 1050 {
				return fmt.Errorf("tpcc prepare: table %s already exists in %s; run action: cleanup first (or drop the database)", tb.name, db)
			}
			return fmt.Errorf("tpcc prepare: create table %s: %w", tb.name, err)
		}
	}
	return nil
}

// loadJobs queues this process's jobs, closed: the item chunks (negative, the leader's)
// and the warehouses the shard owns, how many of those.
func loadJobs(warehouses int, sh shard.Shard) (chan int, int) {
	jobs := make(chan int, itemChunks+warehouses)
	for i := range itemChunks {
		if sh.Leader() {
			jobs <- -i - 1 // negative: an item chunk
		}
	}
	owned := 0
	for w := 1; w <= warehouses; w++ {
		if sh.Owns(w) {
			jobs <- w
			owned++
		}
	}
	close(jobs)
	return jobs, owned
}

// loadAll runs the jobs on loaders connections, each with its own connection; a batch
// that deadlocks or times out on a lock is sent again (retry), and the first failure stops
// the others at their next job. loaded is called after each warehouse.
func loadAll(ctx context.Context, cfg *mysql.Config, jobs <-chan int, loaders, batch int, retry *engine.LoadRetry, loaded func(w int)) error {
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		errs   []error
		failed atomic.Bool
	)
	for i := range loaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := runLoader(ctx, cfg, i, batch, jobs, &failed, retry, loaded); err != nil {
				failed.Store(true)
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runLoader is loader i: it takes jobs until there are none, one has failed (failed) or
// ctx is done.
func runLoader(ctx context.Context, cfg *mysql.Config, i, batch int, jobs <-chan int, failed *atomic.Bool, retry *engine.LoadRetry, loaded func(w int)) error {
	lc, err := engine.Dial(ctx, cfg, false)
	if err != nil {
		return fmt.Errorf("loader %d: %w", i+1, err)
	}
	defer lc.Close()
	// The tables have no secondary index and no foreign key while they load, so neither
	// check costs anything; and with both off, MariaDB (10.6 on) takes a table lock for the
	// first INSERT into an empty table (its bulk insert), on which loaders starting the same
	// table at once deadlock each other. Both checks stay on.
	g := newRng(uint64(time.Now().UnixNano()) + uint64(i)*7919)
	l := &loader{ctx: ctx, c: lc, g: g, batch: batch, retry: retry}
	for job := range jobs {
		if failed.Load() || ctx.Err() != nil {
			return nil
		}
		if job < 0 {
			chunk := -job - 1
			if err := l.items(chunk*items/itemChunks+1, (chunk+1)*items/itemChunks); err != nil {
				return fmt.Errorf("load items: %w", err)
			}
			continue
		}
		if err := l.warehouse(job); err != nil {
			return fmt.Errorf("load warehouse %d: %w", job, err)
		}
		loaded(job)
	}
	return nil
}

// addKeys adds the secondary indexes and foreign keys the plan asks for, after the load.
func addKeys(c *engine.Conn, p Params) error {
	if p.Indexes {
		for _, ddl := range indexes {
			if err := exec(c, ddl); err != nil {
				return fmt.Errorf("tpcc prepare: %s: %w", ddl, err)
			}
		}
	}
	if p.ForeignKeys {
		// The loader wrote consistent data: no need to have InnoDB scan it again.
		if err := exec(c, "SET SESSION foreign_key_checks = 0"); err != nil {
			return fmt.Errorf("tpcc prepare: %w", err)
		}
		for _, ddl := range foreignKeys {
			if err := exec(c, ddl); err != nil {
				return fmt.Errorf("tpcc prepare: %s: %w", ddl, err)
			}
		}
	}
	return nil
}

// loader writes rows as multi-row INSERTs of up to batch rows, each sent again after a
// deadlock or lock wait timeout (retry).
type loader struct {
	ctx   context.Context
	c     *engine.Conn
	g     *rng
	batch int
	retry *engine.LoadRetry
	buf   []byte
	rows  int
	head  string
	what  string // the rows begin started, for messages: "stock of warehouse 3"
	sent  int    // rows of what sent before this batch
}

func (l *loader) begin(head, what string) {
	l.head, l.buf, l.rows, l.what, l.sent = head, append(l.buf[:0], head...), 0, what, 0
}

// row starts a row's values; the caller appends them and calls end.
func (l *loader) row() {
	if l.rows > 0 {
		l.buf = append(l.buf, ',')
	}
	l.buf = append(l.buf, '(')
}

func (l *loader) end() error {
	l.buf = append(l.buf, ')')
	l.rows++
	if l.rows >= l.batch {
		return l.flush()
	}
	return nil
}

func (l *loader) flush() error {
	if l.rows == 0 {
		return nil
	}
	what := fmt.Sprintf("%s, rows %d to %d", l.what, l.sent+1, l.sent+l.rows)
	stmt := string(l.buf)
	// Alone in autocommit, a batch that failed left nothing behind; the ROLLBACK only
	// makes sure of it.
	err := l.retry.Batch(l.ctx, what, func() error { return exec(l.c, stmt) }, l.c.Rollback)
	l.sent += l.rows
	l.buf, l.rows = append(l.buf[:0], l.head...), 0
	return err
}

func (l *loader) int(n int) {
	l.buf = strconv.AppendInt(l.buf, int64(n), 10)
	l.buf = append(l.buf, ',')
}
func (l *loader) dec(f float64, prec int) {
	l.buf = strconv.AppendFloat(l.buf, f, 'f', prec, 64)
	l.buf = append(l.buf, ',')
}

// str appends a quoted value: the loader's strings are letters and digits only.
func (l *loader) str(s string) { l.buf = append(append(append(l.buf, '\''), s...), '\'', ',') }
func (l *loader) raw(s string) { l.buf = append(append(l.buf, s...), ',') }

// last drops the trailing comma of the row's last value.
func (l *loader) last() { l.buf = l.buf[:len(l.buf)-1] }

func (l *loader) items(from, to int) error {
	g := l.g
	l.begin("INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) VALUES ", fmt.Sprintf("item %d to %d", from, to))
	for i := from; i <= to; i++ {
		l.row()
		l.int(i)
		l.int(g.between(1, 10000))
		l.str(g.astring(14, 24))
		l.dec(g.cents(1, 100), 2)
		l.str(g.data())
		l.last()
		if err := l.end(); err != nil {
			return err
		}
	}
	return l.flush()
}

func (l *loader) address() {
	g := l.g
	l.str(g.astring(10, 20))
	l.str(g.astring(10, 20))
	l.str(g.astring(10, 20))
	l.str(g.astring(2, 2))
	l.str(g.zip())
}

func (l *loader) warehouse(w int) error {
	g := l.g
	l.begin("INSERT INTO warehouse VALUES ", "warehouse of warehouse "+strconv.Itoa(w))
	l.row()
	l.int(w)
	l.str(g.astring(6, 10))
	l.address()
	l.dec(float64(g.between(0, 2000))/10000, 4)
	l.raw("300000.00")
	l.last()
	if err := l.end(); err != nil {
		return err
	}
	if err := l.flush(); err != nil {
		return err
	}
	l.begin("INSERT INTO district VALUES ", "district of warehouse "+strconv.Itoa(w))
	for d := 1; d <= districtsPerWarehouse; d++ {
		l.row()
		l.int(d)
		l.int(w)
		l.str(g.astring(6, 10))
		l.address()
		l.dec(float64(g.between(0, 2000))/10000, 4)
		l.raw("30000.00")
		l.int(ordersPerDistrict + 1)
		l.last()
		if err := l.end(); err != nil {
			return err
		}
	}
	if err := l.flush(); err != nil {
		return err
	}
	if err := l.stock(w); err != nil {
		return err
	}
	for d := 1; d <= districtsPerWarehouse; d++ {
		if err := l.customers(w, d); err != nil {
			return err
		}
		if err := l.orders(w, d); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) stock(w int) error {
	g := l.g
	l.begin("INSERT INTO stock VALUES ", "stock of warehouse "+strconv.Itoa(w))
	for i := 1; i <= items; i++ {
		l.row()
		l.int(i)
		l.int(w)
		l.int(g.between(10, 100))
		for range 10 {
			l.str(g.astring(24, 24))
		}
		l.raw("0,0,0")
		l.str(g.data())
		l.last()
		if err := l.end(); err != nil {
			return err
		}
	}
	return l.flush()
}

func (l *loader) customers(w, d int) error {
	g := l.g
	l.begin("INSERT INTO customer VALUES ", fmt.Sprintf("customer of warehouse %d district %d", w, d))
	for c := 1; c <= customersPerDistrict; c++ {
		l.row()
		l.int(c)
		l.int(d)
		l.int(w)
		l.str(g.astring(8, 16))
		l.raw("'OE'")
		// The first 1000 customers cover every last name once; the rest are NURand's.
		if c <= 1000 {
			l.str(lastName(c - 1))
		} else {
			l.str(lastName(g.nurand(255, loadCLast, 0, 999)))
		}
		l.address()
		l.str(g.nstring(16))
		l.raw("NOW()")
		if g.between(1, 10) == 1 {
			l.raw("'BC'")
		} else {
			l.raw("'GC'")
		}
		l.raw("50000.00")
		l.dec(float64(g.between(0, 5000))/10000, 4)
		l.raw("-10.00,10.00,1,0")
		l.str(g.astring(300, 500))
		l.last()
		if err := l.end(); err != nil {
			return err
		}
	}
	if err := l.flush(); err != nil {
		return err
	}
	l.begin("INSERT INTO history VALUES ", fmt.Sprintf("history of warehouse %d district %d", w, d))
	for c := 1; c <= customersPerDistrict; c++ {
		l.row()
		l.int(c)
		l.int(d)
		l.int(w)
		l.int(d)
		l.int(w)
		l.raw("NOW(),10.00")
		l.str(g.astring(12, 24))
		l.last()
		if err := l.end(); err != nil {
			return err
		}
	}
	return l.flush()
}

func (l *loader) orders(w, d int) error {
	g := l.g
	// O_C_ID is a random permutation of the customers (clause 4.3.3.1).
	perm := make([]int, customersPerDistrict)
	for i := range perm {
		perm[i] = i + 1
	}
	g.r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	counts := make([]int, ordersPerDistrict+1)
	l.begin("INSERT INTO orders VALUES ", fmt.Sprintf("orders of warehouse %d district %d", w, d))
	for o := 1; o <= ordersPerDistrict; o++ {
		counts[o] = g.between(5, 15)
		l.row()
		l.int(o)
		l.int(d)
		l.int(w)
		l.int(perm[o-1])
		l.raw("NOW()")
		if o < firstNewOrder {
			l.int(g.between(1, 10))
		} else {
			l.raw("NULL")
		}
		l.int(counts[o])
		l.raw("1")
		l.last()
		if err := l.end(); err != nil {
			return err
		}
	}
	if err := l.flush(); err != nil {
		return err
	}
	l.begin("INSERT INTO order_line VALUES ", fmt.Sprintf("order_line of warehouse %d district %d", w, d))
	for o := 1; o <= ordersPerDistrict; o++ {
		for n := 1; n <= counts[o]; n++ {
			l.row()
			l.int(o)
			l.int(d)
			l.int(w)
			l.int(n)
			l.int(g.between(1, items))
			l.int(w)
			if o < firstNewOrder {
				l.raw("NOW(),5,0.00")
			} else {
				l.raw("NULL,5")
				l.dec(g.cents(0.01, 9999.99), 2)
			}
			l.str(g.astring(24, 24))
			l.last()
			if err := l.end(); err != nil {
				return err
			}
		}
	}
	if err := l.flush(); err != nil {
		return err
	}
	l.begin("INSERT INTO new_order VALUES ", fmt.Sprintf("new_order of warehouse %d district %d", w, d))
	for o := firstNewOrder; o <= ordersPerDistrict; o++ {
		l.row()
		l.int(o)
		l.int(d)
		l.int(w)
		l.last()
		if err := l.end(); err != nil {
			return err
		}
	}
	return l.flush()
}
