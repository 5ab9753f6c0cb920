package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// A move takes the data along, keeps the ports and the password, leaves nothing behind, and
// a replica replicates again afterwards.
func TestMoveKeepsDataPortsAndReplication(t *testing.T) {
	t.Parallel()
	c := sandboxtest.Start(t, sandbox.Options{Name: "move", Replicas: 1})
	from, to := c.Parent(), sandboxtest.Dir(t)
	p, r := c.Primary, c.Replicas[0]
	ports := []int{p.Port(), r.Port()}
	db := open(t, p)
	if _, err := db.Exec("CREATE DATABASE moved"); err != nil {
		t.Fatal(err)
	}
	if err := c.Move(ctx(t), to); err != nil {
		t.Fatal(err)
	}
	if c.Parent() != to || !strings.HasPrefix(p.Dir(), to+"/") || !strings.HasPrefix(r.Dir(), to+"/") {
		t.Fatalf("after the move: cluster in %s, servers in %s and %s; want under %s", c.Dir(), p.Dir(), r.Dir(), to)
	}
	if p.Port() != ports[0] || r.Port() != ports[1] {
		t.Fatalf("ports %d, %d after the move, were %v", p.Port(), r.Port(), ports)
	}
	if left, _ := filepath.Glob(filepath.Join(from, "quadrant-move-*")); len(left) != 0 {
		t.Fatalf("the move left %v behind", left)
	}
	if _, err := os.Stat(filepath.Join(p.Dir(), "data", "moved")); err != nil {
		t.Fatalf("the database created before the move is not in the new datadir: %v", err)
	}
	if got := queryString(t, db, "SELECT @@datadir"); !strings.HasPrefix(got, to+"/") {
		t.Fatalf("the server runs on %s", got)
	}
	if _, err := db.Exec("CREATE TABLE moved.t (id int primary key)"); err != nil {
		t.Fatal(err)
	}
	rdb := open(t, r)
	waitFor(t, func() bool {
		var n int
		return rdb.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'moved' AND table_name = 't'").Scan(&n) == nil && n == 1
	})
}

// waitFor polls cond for up to a minute: replication applies the table when it does.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("the replica did not apply the primary's change after the move")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
