package sandbox_test

import (
	"database/sql"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// A sandbox with TLS refuses plaintext over TCP, accepts a client that verifies its
// certificate with the sandbox's CA (name 127.0.0.1 included), and its replica replicates
// over TLS; the client option file reaches it with the mariadb client, verifying too.
func TestSandboxTLS(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "tls", TLS: true, Replicas: 1})
	p := c.Primary
	plain, err := sql.Open("mysql", p.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	// MariaDB 10.11 answers plaintext under require_secure_transport with 1045, access
	// denied; the same credentials over TLS get in below.
	var me *mysql.MySQLError
	if err := plain.Ping(); !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("plaintext over TCP: %v, want refused (1045)", err)
	}
	db, err := sql.Open("mysql", p.DSN("")+"?tls="+p.TLSConfigName())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var name, cipher string
	if err := db.QueryRow("SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil || cipher == "" {
		t.Fatalf("TLS connection: cipher %q, %v", cipher, err)
	}
	// A CA that did not sign the certificate is refused: the client really verifies.
	other := sandboxtest.Start(t, sandbox.Options{Name: "tls2", TLS: true})
	cfg, _ := mysql.ParseDSN(p.DSN(""))
	cfg.TLS = other.Primary.ClientTLS()
	conn, _ := mysql.NewConnector(cfg)
	if err := sql.OpenDB(conn).Ping(); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("another sandbox's CA: %v, want an x509 error", err)
	}
	if _, err := db.Exec("CREATE DATABASE r"); err != nil {
		t.Fatal(err)
	}
	r := c.Replicas[0]
	rdb, err := r.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	waitRows(t, rdb, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'r'", "1")
	rows, err := rdb.Query("SHOW SLAVE STATUS")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !rows.Next() || rows.Scan(ptrs...) != nil {
		t.Fatal("no replica status")
	}
	rows.Close()
	for i, c := range cols {
		if (c == "Master_SSL_Allowed" || c == "Master_SSL_Verify_Server_Cert") && vals[i].String != "Yes" {
			t.Fatalf("replica %s = %q, want Yes", c, vals[i].String)
		}
	}
	if _, err := exec.LookPath("mariadb"); err == nil && p.Binary().Flavor == sandbox.FlavorMariaDB {
		out, err := exec.Command("mariadb", "--defaults-extra-file="+p.ClientConfigFile(), "-N", "-e", "SHOW SESSION STATUS LIKE 'Ssl_cipher'").CombinedOutput()
		if err != nil || len(strings.Fields(string(out))) < 2 {
			t.Fatalf("mariadb with the client option file: %v: %s", err, out)
		}
	}
}
