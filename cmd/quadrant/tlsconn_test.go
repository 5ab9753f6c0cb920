package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], duration: 1s, threads: 1}
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

// onlyFolder is the one results folder under root/NAME.
func onlyFolder(t *testing.T, root, name string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(root, name, "*", "run.json"))
	if len(m) != 1 {
		t.Fatalf("want one results folder under %s, got %v", filepath.Join(root, name), m)
	}
	return filepath.Dir(m[0])
}

// --tls sets a target's TLS without editing the plan: a plan that verifies runs against a
// plaintext server with --tls db=disabled, and without it the refusal names --tls. A run's
// folder carries its CA (public, sha256 in run.json), so rerun --target verifies as published.
func TestTLSFlagAndRerunCarriesCA(t *testing.T) {
	secure := sandboxtest.Start(t, sandbox.Options{Name: "flagtls", TLS: true})
	plain := sandboxtest.Start(t, sandbox.Options{Name: "flagplain"})
	dir := t.TempDir()
	plan := tlsPlan(t, dir, "tlsflag", "{mode: verify-identity, ca: ca.pem}", secure.CAFile())

	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", plan, "--target", rootDSN(plain), "--out", filepath.Join(dir, "refused")}, &stdout, &stderr); code == exitOK ||
		!strings.Contains(stderr.String(), "--tls") {
		t.Fatalf("a verifying plan against a plaintext server: exit %d, want a refusal naming --tls:\n%s", code, stderr.String())
	}
	t.Logf("without --tls: %s", stderr.String())
	stderr.Reset()
	if code := run([]string{"run", plan, "--target", rootDSN(plain), "--tls", "db=disabled", "--out", filepath.Join(dir, "plain")}, &stdout, &stderr); code != exitOK {
		t.Fatalf("--tls db=disabled: exit %d:\n%s", code, stderr.String())
	}

	stderr.Reset()
	if code := run([]string{"run", plan, "--target", rootDSN(secure), "--out", filepath.Join(dir, "secure")}, &stdout, &stderr); code != exitOK {
		t.Fatalf("run against the TLS server: exit %d:\n%s", code, stderr.String())
	}
	folder := onlyFolder(t, filepath.Join(dir, "secure"), "tlsflag")
	copied, err := os.ReadFile(filepath.Join(folder, "ca.pem"))
	if err != nil {
		t.Fatalf("the folder has no copy of the CA: %v", err)
	}
	sum := sha256.Sum256(copied)
	if runJSON, _ := os.ReadFile(filepath.Join(folder, "run.json")); !strings.Contains(string(runJSON), hex.EncodeToString(sum[:])) {
		t.Fatalf("run.json does not hold the CA's sha256:\n%s", runJSON)
	}
	stderr.Reset()
	if code := run([]string{"rerun", folder, "--target", rootDSN(secure), "--out", filepath.Join(dir, "rerun")}, &stdout, &stderr); code != exitOK {
		t.Fatalf("rerun of the TLS folder: exit %d:\n%s", code, stderr.String())
	}
}
