package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// The server's user owns the directory my.cnf is written to: a symlink it plants at the temporary
// name must not make quadrant (maybe root) write through it.
func TestWriteFileAtomicIgnoresPlantedLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	cnf := filepath.Join(dir, "my.cnf")
	if err := os.Symlink(victim, cnf+".tmp"); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(cnf, "[mysqld]\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("the planted link was followed: victim now %q", b)
	}
	if b, _ := os.ReadFile(cnf); string(b) != "[mysqld]\n" {
		t.Fatalf("my.cnf = %q", b)
	}
}
