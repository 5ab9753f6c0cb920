package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"strconv"

	"github.com/go-sql-driver/mysql"
)

// conn is a terminal's connection at the driver level: the transactions read values from
// their result sets (engine.Conn keeps only the last row), and database/sql's pool, context
// watcher and Scan would cost client CPU on every statement.
type conn struct {
	connector driver.Connector
	dc        driver.Conn
	ex        driver.Execer  //nolint:staticcheck // the context-free path avoids the driver's cancel watcher
	q         driver.Queryer //nolint:staticcheck
	stmts     map[string]driver.Stmt
	// prepared: server-side prepared statements; otherwise text statements the driver
	// interpolates (cfg.InterpolateParams), which cost the server nothing between uses.
	prepared bool
	row      []driver.Value
	// statements counts what the current transaction sent, sysbench's way.
	reads, writes, other int64
}

func dial(ctx context.Context, cfg *mysql.Config) (*conn, error) {
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	c := &conn{connector: connector, prepared: !cfg.InterpolateParams}
	return c, c.open(ctx)
}

func (c *conn) open(ctx context.Context) error {
	dc, err := c.connector.Connect(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	c.dc = dc
	c.ex = dc.(driver.Execer) //nolint:staticcheck
	c.q = dc.(driver.Queryer) //nolint:staticcheck
	c.stmts = map[string]driver.Stmt{}
	return nil
}

func (c *conn) reconnect(ctx context.Context) error {
	c.close()
	return c.open(ctx)
}

func (c *conn) close() {
	if c.dc == nil {
		return
	}
	for _, s := range c.stmts {
		_ = s.Close()
	}
	_ = c.dc.Close()
	c.dc = nil
}

// stmt prepares sql on first use; statements live as long as the connection.
func (c *conn) stmt(sql string) (driver.Stmt, error) {
	if s, ok := c.stmts[sql]; ok {
		return s, nil
	}
	s, err := c.dc.Prepare(sql)
	if err != nil {
		return nil, err
	}
	c.stmts[sql] = s
	return s, nil
}

// exec runs a text statement (BEGIN, COMMIT, DDL).
func (c *conn) exec(sql string) error {
	res, err := c.ex.Exec(sql, nil)
	if err != nil {
		return err
	}
	c.count(res)
	return nil
}

// execArgs runs a prepared statement that returns no rows; it returns the rows affected.
func (c *conn) execArgs(sql string, args ...driver.Value) (int64, error) {
	var res driver.Result
	var err error
	if c.prepared {
		var s driver.Stmt
		if s, err = c.stmt(sql); err != nil {
			return 0, err
		}
		res, err = s.Exec(args) //nolint:staticcheck
	} else {
		res, err = c.ex.Exec(sql, args)
	}
	if err != nil {
		return 0, err
	}
	c.count(res)
	n, _ := res.RowsAffected()
	return n, nil
}

func (c *conn) count(res driver.Result) {
	if n, _ := res.RowsAffected(); n > 0 {
		c.writes++
	} else {
		c.other++
	}
}

// query runs a prepared statement and calls each for every row; the row is reused.
func (c *conn) query(sql string, each func(row []driver.Value) error, args ...driver.Value) error {
	var rows driver.Rows
	var err error
	if c.prepared {
		var s driver.Stmt
		if s, err = c.stmt(sql); err != nil {
			return err
		}
		rows, err = s.Query(args) //nolint:staticcheck
	} else {
		rows, err = c.q.Query(sql, args)
	}
	if err != nil {
		return err
	}
	c.reads++
	return c.drain(rows, each)
}

func (c *conn) drain(rows driver.Rows, each func(row []driver.Value) error) error {
	n := len(rows.Columns())
	if cap(c.row) < n {
		c.row = make([]driver.Value, n)
	}
	row := c.row[:n]
	for {
		if err := rows.Next(row); err != nil {
			if err == io.EOF {
				return rows.Close()
			}
			_ = rows.Close()
			return err
		}
		if each != nil {
			if err := each(row); err != nil {
				_ = rows.Close()
				return err
			}
		}
	}
}

// errNoRow is a query that found nothing where the data must have a row.
type errNoRow struct{ sql string }

func (e errNoRow) Error() string {
	return fmt.Sprintf("no row for %q: the tpcc data is incomplete; run action: cleanup and action: prepare again", e.sql)
}

// queryRow returns a copy of the first row of a text or prepared query.
func (c *conn) queryRow(sql string, args ...driver.Value) ([]driver.Value, error) {
	var out []driver.Value
	each := func(row []driver.Value) error {
		if out == nil {
			out = make([]driver.Value, len(row))
			for i, v := range row {
				if b, ok := v.([]byte); ok {
					v = append([]byte(nil), b...)
				}
				out[i] = v
			}
		}
		return nil
	}
	var err error
	if len(args) == 0 {
		var rows driver.Rows
		rows, err = c.q.Query(sql, nil)
		if err == nil {
			c.reads++
			err = c.drain(rows, each)
		}
	} else {
		err = c.query(sql, each, args...)
	}
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, errNoRow{sql}
	}
	return out, nil
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
