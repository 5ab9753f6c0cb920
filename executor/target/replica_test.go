package target_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/target"
)

func openDSN(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestReadReplicaStatus(t *testing.T) {
	t.Parallel()
	c := sandboxtest.Start(t, sandbox.Options{Name: "rs", Replicas: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	primary, replica := openDSN(t, c.Primary.DSN("")), openDSN(t, c.Replicas[0].DSN(""))

	if _, ok, err := target.ReadReplicaStatus(ctx, primary); err != nil || ok {
		t.Fatalf("primary: ok=%v err=%v, want not a replica", ok, err)
	}
	st, ok, err := target.ReadReplicaStatus(ctx, replica)
	if err != nil || !ok {
		t.Fatalf("replica: ok=%v err=%v", ok, err)
	}
	if st.IORunning != "Yes" || st.SQLRunning != "Yes" {
		t.Fatalf("threads: IO=%q SQL=%q", st.IORunning, st.SQLRunning)
	}
	if st.LagSeconds == nil {
		t.Fatalf("lag is NULL on a running replica; fields %v", st.Fields)
	}
	if st.SourceLogFile == "" || st.ReadSourceLogPos == 0 || st.RelaySourceLogFile == "" || st.ExecSourceLogPos == 0 {
		t.Fatalf("positions not filled: %+v", st)
	}
	if v, ok := st.Field("Seconds_Behind_Source"); !ok || v == "" {
		t.Fatalf("Field(Seconds_Behind_Source) = %q, %v: the other spelling should be found", v, ok)
	}
	if _, err := replica.ExecContext(ctx, "STOP SLAVE SQL_THREAD"); err != nil {
		t.Fatal(err)
	}
	st, ok, err = target.ReadReplicaStatus(ctx, replica)
	if err != nil || !ok {
		t.Fatalf("replica after STOP SLAVE SQL_THREAD: ok=%v err=%v", ok, err)
	}
	if st.SQLRunning != "No" || st.LagSeconds != nil {
		t.Fatalf("after STOP SLAVE SQL_THREAD: SQL=%q lag=%v, want No and NULL", st.SQLRunning, st.LagSeconds)
	}
}
