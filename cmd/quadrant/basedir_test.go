package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 34: reading a plan ran its code. A folder ships an executable sbin/mariadbd and a plan
// whose sandbox has basedir: "."; validate and explain asked that binary for its version and
// options (as root, often). Neither may run anything of a plan: the binary must never run
// (its marker file never appears), and each says once that the option names went unchecked.
func TestValidateAndExplainNeverRunABasedirBinary(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	if err := os.MkdirAll(filepath.Join(dir, "sbin"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ntouch " + marker + "\necho 'mariadbd  Ver 10.11.19-MariaDB for debian-linux-gnu on x86_64'\n"
	if err := os.WriteFile(filepath.Join(dir, "sbin", "mariadbd"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte(`version: 1
name: basedir
targets:
  db:
    sandbox:
      basedir: "."
      config: {max_connections: 50}
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // as the victim does, in the folder: basedir "." is the folder then
	for _, cmd := range []string{"validate", "explain"} {
		code, out, errOut := runCLI(cmd, "plan.yaml")
		if code != exitOK {
			t.Errorf("%s: exit %d\n%s%s", cmd, code, out, errOut)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s ran the plan's sbin/mariadbd", cmd)
		}
		if strings.Count(errOut, "option names not checked") != 1 || !strings.Contains(errOut, "plan.yaml:6:16: sandbox db") {
			t.Errorf("%s: want one note at the basedir's line, stderr:\n%s", cmd, errOut)
		}
	}
}
