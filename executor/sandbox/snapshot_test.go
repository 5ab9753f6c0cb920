package sandbox_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

func checksum(t *testing.T, db *sql.DB) string {
	t.Helper()
	var table string
	var sum sql.NullString
	if err := db.QueryRow("CHECKSUM TABLE snap.t").Scan(&table, &sum); err != nil {
		t.Fatalf("CHECKSUM TABLE: %v", err)
	}
	return sum.String
}

// Restore puts back the primary's and the replica's data as Snapshot copied them, after
// writes and a move to other storage, and the replica then replicates from where it was:
// a row inserted after the restore reaches it (a replica whose position did not match the
// primary's data would stop on a duplicate key or a missing row).
func TestSnapshotRestoreKeepsTheClusterConsistent(t *testing.T) {
	t.Parallel()
	to := sandboxtest.Dir(t) // made first, removed last: the servers stop before it goes
	c := sandboxtest.Start(t, sandbox.Options{Name: "snap", Replicas: 1})
	p, r := c.Primary, c.Replicas[0]
	db, rdb := open(t, p), open(t, r)
	for _, q := range []string{
		"CREATE DATABASE snap",
		"CREATE TABLE snap.t (id INT PRIMARY KEY, v INT)",
		"INSERT INTO snap.t VALUES (1, 1), (2, 2), (3, 3)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	want := checksum(t, db)
	cp, err := c.Snapshot(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if cp.Bytes <= 0 || cp.Files == 0 || (cp.Method != sandbox.MethodReflink && cp.Method != sandbox.MethodCopy) {
		t.Fatalf("snapshot %+v", cp)
	}
	if got := checksum(t, rdb); got != want {
		t.Fatalf("the replica's copy was taken before it caught up: checksum %s, primary's %s", got, want)
	}
	for _, q := range []string{"UPDATE snap.t SET v = v + 10", "INSERT INTO snap.t VALUES (4, 4)", "DELETE FROM snap.t WHERE id = 1"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	changed := checksum(t, db)
	if changed == want {
		t.Fatal("the writes did not change the checksum: the test could not tell a restore")
	}
	waitFor(t, func() bool { return checksumOr(rdb) == changed })

	if err := c.Move(ctx(t), to); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Restore(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if got := checksum(t, db); got != want {
		t.Fatalf("primary after the restore: checksum %s, want %s as at the snapshot", got, want)
	}
	if got := checksum(t, rdb); got != want {
		t.Fatalf("replica after the restore: checksum %s, want %s as at the snapshot", got, want)
	}
	if _, err := db.Exec("INSERT INTO snap.t VALUES (5, 5)"); err != nil {
		t.Fatal(err)
	}
	after := checksum(t, db)
	waitFor(t, func() bool { return checksumOr(rdb) == after })
	for _, s := range c.Servers() {
		for _, left := range []string{"data.restored", "data.old"} {
			if _, err := os.Stat(filepath.Join(s.Dir(), left)); err == nil {
				t.Errorf("%s left %s behind", s.Name(), left)
			}
		}
	}
}

func checksumOr(db *sql.DB) string {
	var table string
	var sum sql.NullString
	if db.QueryRow("CHECKSUM TABLE snap.t").Scan(&table, &sum) != nil {
		return ""
	}
	return sum.String
}
