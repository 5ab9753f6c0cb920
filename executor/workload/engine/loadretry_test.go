package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
)

// A batch is sent again after 1213 and 1205 (rolled back first), each retry logged and
// counted; another error is returned at once; ten in a row fail naming the batch and count.
func TestLoadRetry(t *testing.T) {
	deadlock := &mysql.MySQLError{Number: 1213, Message: "Deadlock found when trying to get lock; try restarting transaction"}
	timeout := &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded; try restarting transaction"}
	var logged []string
	r := &engine.LoadRetry{Log: func(msg string) { logged = append(logged, msg) }}
	fails := []error{deadlock, timeout}
	sent, rolledBack := 0, 0
	send := func() error {
		sent++
		if len(fails) > 0 {
			err := fails[0]
			fails = fails[1:]
			return err
		}
		return nil
	}
	rollback := func() error { rolledBack++; return nil }
	if err := r.Batch(context.Background(), "item rows 1 to 1000", send, rollback); err != nil {
		t.Fatalf("batch after a deadlock and a lock wait timeout: %v", err)
	}
	if sent != 3 || rolledBack != 2 || r.Retries() != 2 || len(logged) != 2 {
		t.Errorf("sent %d, rolled back %d, retries %d, logged %q: want 3, 2, 2 and two lines", sent, rolledBack, r.Retries(), logged)
	}
	if len(logged) == 2 && (!strings.Contains(logged[0], "item rows 1 to 1000: deadlock (1213)") || !strings.Contains(logged[1], "lock wait timeout (1205)")) {
		t.Errorf("retries logged as %q", logged)
	}

	other := &mysql.MySQLError{Number: 1062, Message: "Duplicate entry"}
	sent = 0
	if err := r.Batch(context.Background(), "x", func() error { sent++; return other }, nil); !errors.Is(err, other) || sent != 1 {
		t.Errorf("1062: sent %d times, error %v; want once and the error as it is", sent, err)
	}

	sent = 0
	err := r.Batch(context.Background(), "stock of warehouse 3, rows 1001 to 2000", func() error { sent++; return deadlock }, nil)
	if sent != engine.LoadAttempts || err == nil || !errors.Is(err, deadlock) ||
		!strings.Contains(err.Error(), "stock of warehouse 3, rows 1001 to 2000: deadlock (1213) 10 times in a row") {
		t.Errorf("always deadlocked: sent %d times, error %v", sent, err)
	}
	if r.Retries() != 2+engine.LoadAttempts-1 {
		t.Errorf("retries counted %d, want %d", r.Retries(), 2+engine.LoadAttempts-1)
	}
}
