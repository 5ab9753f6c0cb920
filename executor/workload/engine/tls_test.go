package engine_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
)

// Over TLS the engine speaks its own protocol through the driver's tls.Conn, as on a plain
// socket: prepared statements, a pipelined BEGIN, rows skipped, the connection id from the
// handshake; and the server sees each connection encrypted.
func TestWireOverTLS(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "wiretls", TLS: true})
	s := c.Primary
	if err := s.Exec(context.Background(), "CREATE DATABASE w", "CREATE TABLE w.t (id INT PRIMARY KEY, v INT)", "INSERT INTO w.t VALUES (1, 0), (2, 0), (3, 0)"); err != nil {
		t.Fatal(err)
	}
	base, err := mysql.ParseDSN(s.DSN("w") + "?tls=" + s.TLSConfigName())
	if err != nil {
		t.Fatal(err)
	}
	// A blocking socket (a P per worker) and the netpoller's (many workers).
	for _, threads := range []int{1, 1000} {
		cfg := engine.DialConfig(base, true, time.Minute, threads)
		conn, err := engine.Dial(context.Background(), cfg, true)
		if err != nil {
			t.Fatal(err)
		}
		if p := conn.Path(); p != "wire+tls" {
			t.Fatalf("threads %d: path %q, want wire+tls", threads, p)
		}
		sel, err := conn.Prepare("SELECT v FROM t WHERE id BETWEEN ? AND ?")
		if err != nil {
			t.Fatal(err)
		}
		upd, err := conn.Prepare("UPDATE t SET v = v + 1 WHERE id = ?")
		if err != nil {
			t.Fatal(err)
		}
		conn.T = engine.Tally{}
		for range 50 {
			if err := conn.Begin(); err != nil {
				t.Fatal(err)
			}
			if err := conn.Exec(sel, []driver.Value{int64(1), int64(3)}); err != nil {
				t.Fatal(err)
			}
			if err := conn.Exec(upd, []driver.Value{int64(2)}); err != nil {
				t.Fatal(err)
			}
			if err := conn.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if conn.T.Reads != 50 || conn.T.Writes != 50 {
			t.Fatalf("threads %d: tally %+v, want 50 reads and 50 writes", threads, conn.T)
		}
		// The id from the handshake, read before TLS began, is the session's; and the
		// session is encrypted, as the server says.
		var id int64
		var cipher string
		if err := conn.QueryTextRows("SELECT CONNECTION_ID(), VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'SSL_CIPHER'", func(r []driver.Value) error {
			id, _ = r[0].(int64)
			cipher = string(r[1].([]byte))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if id == 0 || uint32(id) != conn.ID() {
			t.Errorf("threads %d: Conn.ID() = %d, CONNECTION_ID() = %d", threads, conn.ID(), id)
		}
		if cipher == "" {
			t.Errorf("threads %d: the server sees no TLS cipher on the connection", threads)
		}
		conn.Close()
	}
	db, err := sql.Open("mysql", s.DSN("w")+"?tls="+s.TLSConfigName())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("SELECT v FROM t WHERE id = 2").Scan(&v); err != nil || v != 100 {
		t.Fatalf("v = %d (%v), want 100: the wire path's updates committed", v, err)
	}
}
