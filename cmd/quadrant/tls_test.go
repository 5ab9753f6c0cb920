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

// A server whose certificate does not name tls.server_name: `quadrant run` exits 3 (the
// run failed) with the x509 reason, and validate names a missing CA file at its line:column.
func TestRunTLSWrongNameExits3(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "clitls", TLS: true})
	dir := t.TempDir()
	ca, err := os.ReadFile(c.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), ca, 0o644); err != nil {
		t.Fatal(err)
	}
	plan := func(ca, name string) string {
		p := filepath.Join(dir, name+".yaml")
		text := fmt.Sprintf(`version: 1
name: clitls
targets:
  db:
    dsn: "root:%s@tcp(127.0.0.1:%d)/"
    tls: {mode: verify-identity, ca: %s, server_name: wrong.example}
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
report: {dir: %s}
`, c.Password(), c.Primary.Port(), ca, filepath.Join(dir, "results"))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", plan("ca.pem", "wrong")}, &stdout, &stderr); code != exitFailed {
		t.Fatalf("exit %d, want %d: %s", code, exitFailed, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "x509") || !strings.Contains(s, "wrong.example") || strings.Contains(s, c.Password()) {
		t.Fatalf("stderr does not give the x509 reason (or shows the password):\n%s", s)
	}
	stderr.Reset()
	if code := run([]string{"validate", plan("nosuch.pem", "missing")}, &stdout, &stderr); code != exitInvalid ||
		!strings.Contains(stderr.String(), "missing.yaml:6:") || !strings.Contains(stderr.String(), "nosuch.pem") {
		t.Fatalf("validate with a missing CA: exit %d: %s", code, stderr.String())
	}
}
