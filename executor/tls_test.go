package executor

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
)

// tlsServer starts a sandbox that requires TLS, signed by a CA of its own (the private CA a
// provider's server has), with an ed25519 account allowed on sbtest only.
func tlsServer(t *testing.T) (*sandbox.Server, string) {
	t.Helper()
	c := sandboxtest.Start(t, sandbox.Options{Name: "tlsdsn", TLS: true, Config: []sandbox.Option{{Name: "innodb_buffer_pool_size", Value: "64M"}}})
	s := c.Primary
	if err := s.Exec(context.Background(),
		"INSTALL SONAME 'auth_ed25519'",
		"CREATE DATABASE sbtest",
		"CREATE USER u@'127.0.0.1' IDENTIFIED VIA ed25519 USING PASSWORD('s3cret-ed')",
		"GRANT ALL ON sbtest.* TO u@'127.0.0.1'"); err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(s.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	return s, string(ca)
}

func globalStatus(t *testing.T, s *sandbox.Server, name string) int {
	t.Helper()
	db, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n string
	var v int
	if err := db.QueryRow("SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

const tlsDSNPlan = `
version: 1
name: tls-dsn
targets:
  db:
    dsn: "u:s3cret-ed@tcp(127.0.0.1:%d)/sbtest"
    tls: {mode: verify-identity, ca: ca.pem%s}
setup:
  - sql: "CREATE TABLE marker (id INT)"
  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 1000}}
iteration:
  workload:
    builtin: oltp_point_select
    options: {tables: 1, table_size: 1000}
    threads: 4
    duration: 2s
  assert: ["tps > 0"]
`

// A dsn target with tls: {mode: verify-identity, ca: ca.pem} runs a builtin workload as an
// ed25519 account on a server that refuses plaintext and whose certificate a private CA
// signed: every worker logs in over TLS (Ssl_accepts), and run.json names the CA by its
// file and fingerprint and the cipher the server chose.
func TestTLSTargetWithPrivateCA(t *testing.T) {
	s, ca := tlsServer(t)
	before := globalStatus(t, s, "Ssl_accepts")
	run, out, err := runPlan(t, fmt.Sprintf(tlsDSNPlan, s.Port(), ""), map[string]string{"ca.pem": ca}, Options{})
	if err != nil || out.Status != results.StatusDone {
		t.Fatalf("run: %v, outcome %+v", err, out)
	}
	if got := globalStatus(t, s, "Ssl_accepts") - before; got < 4 {
		t.Fatalf("Ssl_accepts rose by %d during the run, want at least the 4 workers' logins", got)
	}
	if tx := col(t, run.Summary, 0, "transactions"); tx <= 0 {
		t.Fatalf("%v transactions", tx)
	}
	if len(run.Info.Targets) != 1 || run.Info.Targets[0].TLS == nil {
		t.Fatalf("run.json targets %+v: no tls", run.Info.Targets)
	}
	info := run.Info.Targets[0].TLS
	if info.Mode != "verify-identity" || info.CA == nil || info.CA.Name != "ca.pem" || len(info.CA.SHA256) != 64 || info.Cipher == "" || info.Version == "" {
		t.Fatalf("run.json tls %+v (ca %+v)", info, info.CA)
	}
}

// A certificate that does not name server_name fails the run before setup, with the x509
// reason and what to do; the setup's first step never ran.
func TestTLSWrongServerNameFailsBeforeSetup(t *testing.T) {
	s, ca := tlsServer(t)
	_, out, err := runPlan(t, fmt.Sprintf(tlsDSNPlan, s.Port(), ", server_name: db.example.com"), map[string]string{"ca.pem": ca}, Options{})
	if err == nil || out.Status == results.StatusDone {
		t.Fatalf("run with a wrong server_name: %v, outcome %+v", err, out)
	}
	t.Log(err)
	for _, want := range []string{"x509", "db.example.com", "server_name", "target db"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var marker int
	db, _ := s.Open()
	defer db.Close()
	if e := db.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sbtest' AND TABLE_NAME = 'marker'").Scan(&marker); e != nil || marker != 0 {
		t.Fatalf("setup ran before the TLS failure (marker table: %d, %v)", marker, e)
	}
}

// A sandbox with tls: on: every connection quadrant opens (workers, samplers, steps) is
// encrypted, as the server sees each connection (performance_schema's per-thread status),
// and the workers each did a TLS handshake.
func TestSandboxTLSOn(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := `
version: 1
name: tls-sandbox
targets:
  db:
    sandbox:
      tls: on
      config: {innodb_buffer_pool_size: 64M, performance_schema: ON}
setup:
  - workload: {builtin: oltp_read_write, action: prepare, options: {tables: 1, table_size: 1000}}
iteration:
  workload:
    builtin: oltp_read_write
    options: {tables: 1, table_size: 1000}
    threads: 3
    duration: 3s
  assert: ["tps > 0"]
watch:
  status: [Ssl_accepts]
  queries:
    - name: plain_conns
      sql: "SELECT COUNT(*) FROM performance_schema.status_by_thread s JOIN performance_schema.threads t USING (THREAD_ID) WHERE t.PROCESSLIST_USER = 'root' AND s.VARIABLE_NAME = 'Ssl_cipher' AND s.VARIABLE_VALUE = ''"
    - name: tls_conns
      sql: "SELECT COUNT(*) FROM performance_schema.status_by_thread s JOIN performance_schema.threads t USING (THREAD_ID) WHERE t.PROCESSLIST_USER = 'root' AND s.VARIABLE_NAME = 'Ssl_cipher' AND s.VARIABLE_VALUE <> ''"
`
	run, out, err := runPlan(t, plan, nil, Options{})
	if err != nil || out.Status != results.StatusDone {
		t.Fatalf("run: %v, outcome %+v", err, out)
	}
	ts := run.Timeseries["db"]
	most := 0.0
	for i := range ts.Rows {
		if n := col(t, ts, i, "query.plain_conns"); n != 0 {
			t.Fatalf("row %d: %v plaintext connections of root", i, n)
		}
		most = max(most, col(t, ts, i, "query.tls_conns"))
	}
	// The 3 workers and the sampler's own connection.
	if most < 4 {
		t.Fatalf("at most %v TLS connections of root in a sample, want the 3 workers and the sampler", most)
	}
	if n := col(t, run.Summary, 0, "status.Ssl_accepts"); n < 3 {
		t.Fatalf("Ssl_accepts rose by %v during the workload, want at least its 3 workers' logins", n)
	}
	if ti := run.Info.Targets[0].TLS; ti == nil || ti.Mode != "verify-identity" || ti.Cipher == "" || ti.CA == nil || ti.CA.Name != sandbox.CAFileName {
		t.Fatalf("run.json tls %+v", ti)
	}
}
