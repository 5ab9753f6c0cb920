package sandbox_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

func TestRestartAppliesNonDynamicSettings(t *testing.T) {
	t.Parallel()
	c := sandboxtest.Start(t, sandbox.Options{Name: "restart"})
	s := c.Primary
	db := open(t, s)
	if got := queryString(t, db, "SELECT @@log_bin"); got != "0" {
		t.Fatalf("@@log_bin before = %s, want 0", got)
	}
	port, pid := s.Port(), s.Pid()

	cfg := []sandbox.Option{{Name: "log_bin", Bare: true}, {Name: "innodb_flush_method", Value: "O_DIRECT"}}
	if err := s.Restart(ctx(t), cfg); err != nil {
		t.Fatal(err)
	}
	if s.Pid() == pid {
		t.Fatalf("pid %d unchanged: the server was not restarted", pid)
	}
	if s.Port() != port {
		t.Fatalf("port changed from %d to %d across a restart", port, s.Port())
	}
	if got := queryString(t, db, "SELECT @@log_bin"); got != "1" {
		t.Fatalf("@@log_bin after restart = %s, want 1", got)
	}
	if got := queryString(t, db, "SELECT @@innodb_flush_method"); got != "O_DIRECT" {
		t.Fatalf("@@innodb_flush_method = %s, want O_DIRECT", got)
	}

	// Same effective config, other order and spelling: no restart.
	pid = s.Pid()
	same := []sandbox.Option{{Name: "innodb-flush-method", Value: "O_DIRECT"}, {Name: "log-bin", Bare: true}}
	if err := s.Restart(ctx(t), same); err != nil {
		t.Fatal(err)
	}
	if s.Pid() != pid {
		t.Fatalf("restart with an unchanged config restarted the server (pid %d -> %d)", pid, s.Pid())
	}

	// Back to the defaults.
	if err := s.Restart(ctx(t), nil); err != nil {
		t.Fatal(err)
	}
	if got := queryString(t, db, "SELECT @@log_bin"); got != "0" {
		t.Fatalf("@@log_bin after removing it = %s, want 0", got)
	}
}

func TestBadOptionFailsWithLogLine(t *testing.T) {
	sandboxtest.SkipShort(t)
	t.Parallel()
	_, err := sandbox.Start(ctx(t), sandbox.Options{Name: "bad", Dir: sandboxtest.Dir(t), Logf: t.Logf,
		Config: []sandbox.Option{{Name: "foo", Value: "1"}}})
	if err == nil {
		t.Fatal("a server with unknown option foo started")
	}
	if !strings.Contains(err.Error(), "[ERROR]") || !strings.Contains(err.Error(), "unknown variable 'foo=1'") {
		t.Fatalf("error does not quote the server's log line: %v", err)
	}
}

func TestRestartWithBadOptionKeepsServerUsable(t *testing.T) {
	t.Parallel()
	c := sandboxtest.Start(t, sandbox.Options{Name: "badrestart", Config: []sandbox.Option{{Name: "max_connections", Value: "77"}}})
	err := c.Primary.Restart(ctx(t), []sandbox.Option{{Name: "innodb_no_such_thing", Value: "3"}})
	if err == nil || !strings.Contains(err.Error(), "unknown variable 'innodb_no_such_thing=3'") {
		t.Fatalf("restart with a bad option: %v", err)
	}
	if got := queryString(t, open(t, c.Primary), "SELECT @@max_connections"); got != "77" {
		t.Fatalf("after the failed restart @@max_connections = %s, want the previous config's 77", got)
	}
}

func TestKillAndRestart(t *testing.T) {
	t.Parallel()
	c := sandboxtest.Start(t, sandbox.Options{Name: "kill"})
	s := c.Primary
	if _, err := open(t, s).Exec("CREATE DATABASE k"); err != nil {
		t.Fatal(err)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if s.Running() {
		t.Fatal("running after Kill")
	}
	if err := s.Restart(ctx(t), s.Config()); err != nil { // a stopped server starts even with the same config
		t.Fatal(err)
	}
	if got := queryString(t, open(t, s), "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name='k'"); got != "1" {
		t.Fatalf("database k lost across kill+restart")
	}
}

func TestManagedOptionRejected(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MariaDB server binary (skipped under -short)")
	}
	t.Parallel()
	_, err := sandbox.Start(ctx(t), sandbox.Options{Name: "managed", Dir: sandboxtest.Dir(t), Config: []sandbox.Option{{Name: "port", Value: "3306"}}})
	if err == nil || !strings.Contains(err.Error(), `"port"`) {
		t.Fatalf("config with port: %v", err)
	}
}

func TestNoServerBinaryNamesPackage(t *testing.T) {
	t.Parallel()
	_, err := sandbox.Start(ctx(t), sandbox.Options{Name: "nobin", Dir: sandboxtest.Dir(t), Basedir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "mariadb-server") {
		t.Fatalf("empty basedir: %v", err)
	}
	// Here /usr/sbin/mysqld is MariaDB's: asking for MySQL must say so and name MySQL's package.
	_, err = sandbox.FindServer(ctx(t), "mysql", "")
	if err != nil && !strings.Contains(err.Error(), "mysql-server") {
		t.Fatalf("flavor mysql: %v", err)
	}
}

func TestStartTimeoutShowsLogAndLeavesNothing(t *testing.T) {
	sandboxtest.SkipShort(t)
	t.Parallel()
	dir := sandboxtest.Dir(t)
	_, err := sandbox.Start(ctx(t), sandbox.Options{Name: "slow", Dir: dir, StartTimeout: time.Nanosecond})
	if err == nil || !strings.Contains(err.Error(), "not answering") || !strings.Contains(err.Error(), "error log") {
		t.Fatalf("start with a 1ns timeout: %v", err)
	}
	if p := processesMentioning(dir); len(p) > 0 {
		t.Fatalf("server processes left after a failed start: %v", p)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Fatalf("%s not cleaned after a failed start: %v", dir, entries)
	}
}
