package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// tlsPlan writes dir/NAME.yaml, a plan whose target db has the given tls: (and a CA
// copied next to it from ca, when ca is not ""), pointed at a server of its own that
// --target replaces.
func tlsPlan(t *testing.T, dir, name, tls, caFile string) string {
	t.Helper()
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ca.pem"), pem, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, name+".yaml")
	text := fmt.Sprintf(`version: 1
name: %s
targets:
  db:
    dsn: "root@tcp(192.0.2.1:3306)/"
    tls: %s
iteration:
  workload: {builtin: oltp_point_select, duration: 1s, threads: 1, options: {tables: 1, table_size: 100}}
report: {dir: %s}
`, name, tls, filepath.Join(dir, "results"))
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func rootDSN(c *sandbox.Cluster) string {
	return fmt.Sprintf("db=root:%s@tcp(127.0.0.1:%d)/", c.Password(), c.Primary.Port())
}

// explain --target connects as run does: with the plan's tls: (its CA verifies a TLS-only
// server, so the privileges are read), and never in clear where run would refuse to.
func TestExplainTargetUsesPlanTLS(t *testing.T) {
	secure := sandboxtest.Start(t, sandbox.Options{Name: "explaintls", TLS: true})
	plain := sandboxtest.Start(t, sandbox.Options{Name: "explainplain"})
	dir := t.TempDir()
	verify := tlsPlan(t, dir, "verify", "{mode: verify-identity, ca: ca.pem}", secure.CAFile())
	disabled := tlsPlan(t, dir, "disabled", "{mode: disabled}", "")

	explain := func(plan string, c *sandbox.Cluster) (string, string) {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"explain", plan, "--target", rootDSN(c)}, &stdout, &stderr); code != exitOK {
			t.Fatalf("explain exit %d: %s", code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	out, errs := explain(verify, secure)
	if !strings.Contains(out, "Privileges on db (as ") || strings.Contains(errs, "Access denied") {
		t.Fatalf("explain on a TLS-only server with the plan's CA did not read the privileges:\nstdout:\n%s\nstderr:\n%s", out, errs)
	}
	// The plan's verifying tls: holds against a plaintext server: refused, no login in clear.
	out, errs = explain(verify, plain)
	if strings.Contains(out, "Privileges on db") || !strings.Contains(errs, "privileges of target db not checked") ||
		!strings.Contains(errs, "TLS requested but server does not support TLS") {
		t.Fatalf("explain logged in over plaintext where run refuses:\nstdout:\n%s\nstderr:\n%s", out, errs)
	}
	// tls: disabled is dropped by --target (a folder may not turn the user's TLS off): the DSN
	// alone decides, plaintext, which the TLS-only server refuses before any privilege is read.
	out, errs = explain(disabled, secure)
	t.Logf("tls disabled against a TLS-only server: %s", errs)
	if strings.Contains(out, "Privileges on db") || !strings.Contains(errs, "privileges of target db not checked") ||
		!strings.Contains(errs, "require_secure_transport") {
		t.Fatalf("explain with tls disabled on a TLS-only server:\nstdout:\n%s\nstderr:\n%s", out, errs)
	}
}
