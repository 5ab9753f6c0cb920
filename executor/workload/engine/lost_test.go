package engine

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// Lost(Code(err)) over the errors the driver really returns: a server's answer, whatever its
// number, is never a lost server; a refused or broken connection is.
func TestLostOnlyWithoutAnAnswer(t *testing.T) {
	// A real refused connect: a port nothing listens on (the listener is closed first).
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	db, err := sql.Open("mysql", fmt.Sprintf("u:p@tcp(%s)/?timeout=2s", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	refused := db.PingContext(context.Background())
	if refused == nil {
		t.Fatalf("a connect to %s (closed) succeeded", addr)
	}
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, c := range []struct {
		err  error
		lost bool
	}{
		{&mysql.MySQLError{Number: 1049, Message: "Unknown database 'QC_hit:'"}, false},
		{fmt.Errorf("session 16: USE: %w", &mysql.MySQLError{Number: 1049}), false},
		{&mysql.MySQLError{Number: 1146}, false},
		{&mysql.MySQLError{Number: 1045}, false},
		{&mysql.MySQLError{Number: 1053}, false},
		{&mysql.MySQLError{Number: 1927}, false},
		{&mysql.MySQLError{Number: 1213}, false},
		{errors.New("replay: no such session"), false},
		{refused, true},
		{driver.ErrBadConn, true},
		{mysql.ErrInvalidConn, true},
		{io.ErrUnexpectedEOF, true},
		{fmt.Errorf("query: %w", timeout), true},
	} {
		if got := Lost(Code(c.err)); got != c.lost {
			t.Errorf("%v (code %d): lost %v, want %v", c.err, Code(c.err), got, c.lost)
		}
	}
}
