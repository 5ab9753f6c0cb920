package engine

import (
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// Which errors count as a certification failure: a 1213 worded by a Galera build that
// says so, anywhere; any 1213 on a server that certifies (MariaDB's own wording is a
// deadlock's); never another error, nor a deadlock on a server without Galera.
func TestCertFailure(t *testing.T) {
	wsrep := &mysql.MySQLError{Number: 1213, SQLState: [5]byte{'4', '0', '0', '0', '1'}, Message: "WSREP detected deadlock/conflict and aborted the transaction. Try restarting the transaction"}
	deadlock := &mysql.MySQLError{Number: 1213, SQLState: [5]byte{'4', '0', '0', '0', '1'}, Message: "Deadlock found when trying to get lock; try restarting transaction"}
	timeout := &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded; try restarting transaction"}
	for _, c := range []struct {
		err       error
		certifies bool
		want      bool
	}{
		{wsrep, false, true},
		{fmt.Errorf("worker 1: %w", wsrep), false, true},
		{deadlock, false, false},
		{deadlock, true, true},
		{timeout, true, false},
		{fmt.Errorf("lost"), true, false},
	} {
		if got := CertFailure(c.err, c.certifies); got != c.want {
			t.Errorf("CertFailure(%v, certifies %v) = %v, want %v", c.err, c.certifies, got, c.want)
		}
	}
}
