package target_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/target"
)

const secret = "s3cr:et@pw"

func TestDSNRedaction(t *testing.T) {
	t.Parallel()
	raw := "bench:" + secret + "@tcp(127.0.0.1:3306)/sbtest?timeout=5s"
	d, err := target.ParseDSN(raw)
	if err != nil {
		t.Fatal(err)
	}
	if d.Config().Passwd != secret {
		t.Fatalf("password not parsed: %q", d.Config().Passwd)
	}
	tg, err := target.NewDSN("primary", raw, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{d.String(), fmt.Sprint(d), fmt.Sprintf("%+v", d), fmt.Sprintf("%#v", d),
		tg.Redacted(), fmt.Sprint(tg), fmt.Sprintf("%+v", tg), fmt.Sprintf("%#v", tg)} {
		if strings.Contains(s, "s3cr") || !strings.Contains(s, "***") {
			t.Fatalf("printed form leaks or lacks the mask: %s", s)
		}
	}
	if tg.Host() != "127.0.0.1" || tg.Port() != 3306 || tg.Kind() != target.KindDSN {
		t.Fatalf("host/port/kind: %s %d %s", tg.Host(), tg.Port(), tg.Kind())
	}
	_, err = target.ParseDSN("bench:" + secret + "@tcp(127.0.0.1:3306")
	if err == nil || strings.Contains(err.Error(), "s3cr") {
		t.Fatalf("bad DSN error leaks the password or is missing: %v", err)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ version, comment, flavor, numeric string }{
		{"10.11.19-MariaDB-0+deb12u1-log", "Debian 12", "MariaDB", "10.11.19"},
		{"8.0.36", "MySQL Community Server - GPL", "MySQL", "8.0.36"},
		{"8.0.35-27", "Percona Server (GPL), Release '27', Revision '2f8eeab2'", "Percona", "8.0.35"},
		{"5.5.5-10.6.12-MariaDB", "mariadb.org binary distribution", "MariaDB", "10.6.12"},
	} {
		f, n := target.Classify(c.version, c.comment)
		if f != c.flavor || n != c.numeric {
			t.Errorf("classify(%q, %q) = %s %s, want %s %s", c.version, c.comment, f, n, c.flavor, c.numeric)
		}
	}
}

func TestTargetsAgainstSandbox(t *testing.T) {
	t.Parallel()
	c := sandboxtest.Start(t, sandbox.Options{Name: "tgt"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb := target.Targets(c)[0]
	db, err := sb.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	info, err := target.Probe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if info.Flavor != "MariaDB" || !strings.HasPrefix(c.Primary.Binary().Version, info.Version) {
		t.Fatalf("probe: %+v, binary %s", info, c.Primary.Binary().Version)
	}
	// The sandbox's password reaches the driver, never a printed form of the target.
	if pw := c.Password(); len(pw) < 16 || sb.Config().Passwd != pw {
		t.Fatalf("sandbox target config carries password %q, the cluster has %q", sb.Config().Passwd, pw)
	}
	for _, s := range []string{sb.Redacted(), fmt.Sprint(sb), fmt.Sprintf("%+v", sb), fmt.Sprintf("%#v", sb)} {
		if strings.Contains(s, c.Password()) || !strings.Contains(s, "root:***@tcp(127.0.0.1:") {
			t.Fatalf("printed form of a sandbox target leaks the password or lacks the mask: %s", s)
		}
	}
	vars, err := target.Variables(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if vars["port"] != fmt.Sprint(sb.Port()) || vars["innodb_buffer_pool_size"] == "" {
		t.Fatalf("variables: port=%q innodb_buffer_pool_size=%q", vars["port"], vars["innodb_buffer_pool_size"])
	}
	if h := target.DetectHosting(vars); h.Provider != target.SelfHosted {
		t.Fatalf("a local sandbox is %s (%s), want self-hosted", h.Provider, h.Evidence)
	}

	// A DSN target with a password, aimed at the same server.
	if _, err := db.ExecContext(ctx, "CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY '"+secret+"'"); err != nil {
		t.Fatal(err)
	}
	dsn := fmt.Sprintf("bench:%s@tcp(127.0.0.1:%d)/", secret, sb.Port())
	tg, err := target.NewDSN("primary", dsn, "true")
	if err != nil {
		t.Fatal(err)
	}
	ddb, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ddb.Close()
	if err := tg.Restart(ctx, nil); err != nil {
		t.Fatalf("restart with command `true`: %v", err)
	}
	// The options to apply reach the restart command, which owns the server's my.cnf.
	got := filepath.Join(t.TempDir(), "cnf")
	withCnf, _ := target.NewDSN("primary", dsn, `printf '%s' "$QUADRANT_MY_CNF" > `+got+`; test "$QUADRANT_CONFIG_INNODB_FLUSH_METHOD" = O_DIRECT`)
	if err := withCnf.Restart(ctx, []sandbox.Option{{Name: "log_bin", Bare: true}, {Name: "innodb_flush_method", Value: "O_DIRECT"}}); err != nil {
		t.Fatalf("restart with a config: %v", err)
	}
	if cnf, _ := os.ReadFile(got); string(cnf) != "[mysqld]\nlog_bin\ninnodb_flush_method = O_DIRECT\n" {
		t.Fatalf("the restart command got QUADRANT_MY_CNF %q", cnf)
	}
	bad, _ := target.NewDSN("primary", dsn, "echo boom >&2; exit 3")
	if err := bad.Restart(ctx, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("failing restart command: %v", err)
	}
	slow, _ := target.NewDSN("primary", dsn, "sleep 30")
	slow.RestartTimeout = 200 * time.Millisecond
	if err := slow.Restart(ctx, nil); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("restart command past its timeout: %v", err)
	}
	wrong, _ := target.NewDSN("primary", fmt.Sprintf("bench:wrong@tcp(127.0.0.1:%d)/", sb.Port()), "")
	if _, err := wrong.Open(ctx); err == nil || !strings.Contains(err.Error(), "1045") || strings.Contains(err.Error(), "wrong@") {
		t.Fatalf("wrong password: %v", err)
	}

	// The sandbox target restarts through the sandbox.
	pid := c.Primary.Pid()
	if err := sb.Restart(ctx, []sandbox.Option{{Name: "max_connections", Value: "55"}}); err != nil {
		t.Fatal(err)
	}
	if c.Primary.Pid() == pid {
		t.Fatal("sandbox target restart did not restart")
	}
}
