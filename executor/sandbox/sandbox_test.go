package sandbox_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return c
}

func open(t *testing.T, s *sandbox.Server) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryString(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var v sql.NullString
	if err := db.QueryRow(q).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v.String
}

func TestSingleUpDown(t *testing.T) {
	t.Parallel()
	dir := sandboxtest.Dir(t)
	c := sandboxtest.Start(t, sandbox.Options{Name: "single", Dir: dir})
	s := c.Primary
	if s.Name() != "single" || s.Host() != "127.0.0.1" || s.Port() == 0 {
		t.Fatalf("name/host/port: %q %q %d", s.Name(), s.Host(), s.Port())
	}
	db := open(t, s)
	if got := queryString(t, db, "SELECT 1+1"); got != "2" {
		t.Fatalf("SELECT 1+1 = %q", got)
	}
	if got := queryString(t, db, "SELECT @@port"); got != itoa(s.Port()) || !strings.Contains(s.DSN(""), "127.0.0.1:"+got+")") {
		t.Fatalf("@@port %s does not match DSN %s", got, s.RedactedDSN(""))
	}
	pid := s.Pid()
	if err := c.Stop(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Dir()); !os.IsNotExist(err) {
		t.Fatalf("cluster dir %s still exists after Stop (err %v)", c.Dir(), err)
	}
	if _, err := os.Stat(filepath.Join("/proc", itoa(pid))); err == nil {
		t.Fatalf("server pid %d still exists after Stop", pid)
	}
}
