package sandbox_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// waitRows polls the replica until the row written on the primary arrived (replication is asynchronous:
// how long it takes is not the point, only that it arrives).
func waitRows(t *testing.T, db *sql.DB, q, want string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var got sql.NullString
	for time.Now().Before(deadline) {
		if err := db.QueryRow(q).Scan(&got); err == nil && got.String == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("replica: %s = %q, want %q", q, got.String, want)
}

func TestAsyncReplicaReceivesWrites(t *testing.T) {
	t.Parallel()
	c := sandboxtest.Start(t, sandbox.Options{Name: "async", Replicas: 2})
	if len(c.Replicas) != 2 || c.Replicas[0].Name() != "async_replica1" || c.Replicas[1].Name() != "async_replica2" {
		t.Fatalf("replicas: %v", c.Servers())
	}
	p := open(t, c.Primary)
	for _, q := range []string{"CREATE DATABASE r", "CREATE TABLE r.t (id INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO r.t VALUES (1, 'one'), (2, 'two')"} {
		if _, err := p.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	ids := map[string]bool{queryString(t, p, "SELECT @@server_id"): true}
	for _, r := range c.Replicas {
		db := open(t, r)
		waitRows(t, db, "SELECT GROUP_CONCAT(v ORDER BY id) FROM r.t", "one,two")
		ids[queryString(t, db, "SELECT @@server_id")] = true
	}
	if len(ids) != 3 {
		t.Fatalf("server_id not distinct: %v", ids)
	}
}

func TestSemisyncMasterStatusOn(t *testing.T) {
	t.Parallel()
	c := sandboxtest.Start(t, sandbox.Options{Name: "semi", Replicas: 1, Replication: "semisync"})
	p := open(t, c.Primary)
	if _, err := p.Exec("CREATE DATABASE s"); err != nil {
		t.Fatal(err)
	}
	status := func(name string) string {
		var n, v string
		if err := p.QueryRow("SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	if got := status("Rpl_semi_sync_master_status"); got != "ON" {
		t.Fatalf("Rpl_semi_sync_master_status = %s, want ON", got)
	}
	if got := status("Rpl_semi_sync_master_clients"); got != "1" {
		t.Fatalf("Rpl_semi_sync_master_clients = %s, want 1", got)
	}
	if got := status("Rpl_semi_sync_master_yes_tx"); got == "0" {
		t.Fatalf("Rpl_semi_sync_master_yes_tx = 0 after a write: the commit was not acknowledged semi-synchronously")
	}
	waitRows(t, open(t, c.Replicas[0]), "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name='s'", "1")
}

// After the primary restarts with a changed config, Restart returns with the replica reconnected and
// semi-sync acknowledging again, and writes keep flowing; a restarted replica resumes on its own.
func TestReplicationSurvivesRestarts(t *testing.T) {
	t.Parallel()
	c := sandboxtest.Start(t, sandbox.Options{Name: "rr", Replicas: 1, Replication: "semisync"})
	if err := c.Primary.Restart(ctx(t), []sandbox.Option{{Name: "innodb_flush_method", Value: "O_DIRECT"}}); err != nil {
		t.Fatal(err)
	}
	p := open(t, c.Primary)
	var name, clients string
	if err := p.QueryRow("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'").Scan(&name, &clients); err != nil {
		t.Fatal(err)
	}
	if clients != "1" {
		t.Fatalf("after the primary's restart Rpl_semi_sync_master_clients = %s, want 1", clients)
	}
	if _, err := p.Exec("CREATE DATABASE after_primary_restart"); err != nil {
		t.Fatal(err)
	}
	r := open(t, c.Replicas[0])
	waitRows(t, r, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name='after_primary_restart'", "1")

	if err := c.Replicas[0].Restart(ctx(t), []sandbox.Option{{Name: "max_connections", Value: "50"}}); err != nil {
		t.Fatal(err)
	}
	if got := queryString(t, r, "SELECT @@server_id"); got != "2" {
		t.Fatalf("replica server_id after restart = %s, want 2 (the sandbox's own setting must survive a config change)", got)
	}
	if _, err := p.Exec("CREATE DATABASE after_replica_restart"); err != nil {
		t.Fatal(err)
	}
	waitRows(t, r, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name='after_replica_restart'", "1")
}
