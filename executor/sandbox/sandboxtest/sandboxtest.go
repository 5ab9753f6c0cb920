// Package sandboxtest gives tests a real MariaDB/MySQL server through the sandbox package.
package sandboxtest

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// Dir is a directory for a test's sandboxes, removed when the test ends. Unlike t.TempDir(), whose
// parent is private to the user running the tests, the server's OS user can reach it when the
// tests run as root (the servers then run as the mysql user): it is made here, so opening it
// (mode 0711: enter, not list) is this helper's own business.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := sandbox.TempDir("quadrant-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// SkipShort skips the test under `go test -short`, which runs on a machine without a database
// server. Start calls it, so a test that starts its sandboxes with Start needs no guard of its own;
// only a test that gets a server another way (a plan's sandbox: run by the executor or the CLI,
// or Start called from other goroutines, where t.Skip may not be called) calls it first.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a MariaDB sandbox (skipped under -short)")
	}
}

// Start starts a sandbox cluster for the test and stops it in t.Cleanup; under -short it skips
// the test (SkipShort). When no server binary is installed it fails (never skips: `make test`
// installs one) with a message naming the Debian package.
// Options.Dir defaults to Dir(t); Options.Logf to t.Logf.
func Start(t testing.TB, o sandbox.Options) *sandbox.Cluster {
	t.Helper()
	SkipShort(t)
	if o.Dir == "" {
		o.Dir = Dir(t)
	}
	if o.Name == "" {
		o.Name = "t"
	}
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := sandbox.Start(ctx, o)
	if errors.Is(err, sandbox.ErrNoServer) {
		t.Fatalf("this test needs a real database server: %v", err)
	}
	if err != nil {
		t.Fatalf("start sandbox: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := c.Stop(ctx); err != nil {
			t.Errorf("stop sandbox %s: %v", o.Name, err)
		}
	})
	return c
}

// DB opens a handle on dsn, closed when the test ends. Without a pool to share, conns bounds
// its connections (0: the driver's default): a test that reads session state wants 1.
func DB(t testing.TB, dsn string, conns int) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if conns > 0 {
		db.SetMaxOpenConns(conns)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
