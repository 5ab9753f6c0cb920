package confine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The ways out of a folder that a published one can ship: an absolute path, a .., a
// symlink to a file outside, a symlinked directory, and a symlink planted after the check.
func TestRootsKeepPathsInside(t *testing.T) {
	folder, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "shadow")
	write(t, secret, "root:secret")
	write(t, filepath.Join(folder, "load.sql"), "SELECT 1")
	must(t, os.Symlink(secret, filepath.Join(folder, "shadowlink.sql")))
	must(t, os.Symlink(outside, filepath.Join(folder, "sub")))
	must(t, os.Symlink(filepath.Join(outside, "none"), filepath.Join(folder, "dangling.qcap")))
	r := New(folder)
	for _, p := range []string{filepath.Join(folder, "load.sql"), filepath.Join(folder, "new", "out.qcap"), folder} {
		if err := r.Check(p); err != nil {
			t.Errorf("%s is inside: %v", p, err)
		}
	}
	for _, p := range []string{secret, filepath.Join(folder, "..", filepath.Base(outside), "shadow"),
		filepath.Join(folder, "shadowlink.sql"), filepath.Join(folder, "sub", "shadow"), filepath.Join(folder, "sub", "new.qcap")} {
		if err := r.Check(p); !errors.Is(err, ErrOutside) {
			t.Errorf("%s: %v, want outside", p, err)
		}
		if f, err := r.Open(p); err == nil {
			f.Close()
			t.Errorf("%s opened", p)
		}
	}
	// Passed by Check (the link leads nowhere yet), refused by Create: os.Root does not
	// follow a link out of the folder, so the file outside is never made.
	if f, err := r.Create(filepath.Join(folder, "dangling.qcap")); err == nil {
		f.Close()
		t.Fatal("created through a dangling link out of the folder")
	}
	if _, err := os.Stat(filepath.Join(outside, "none")); err == nil {
		t.Fatal("the file outside was made")
	}
	// A link swapped in after Check leads nowhere at Open.
	p := filepath.Join(folder, "load.sql")
	must(t, r.Check(p))
	must(t, os.Remove(p))
	must(t, os.Symlink(secret, p))
	if f, err := r.Open(p); err == nil {
		f.Close()
		t.Fatal("opened a link swapped in after the check")
	}
	// Allowing the directory lets it in.
	if err := New(folder, outside).Check(secret); err != nil {
		t.Fatalf("an allowed directory: %v", err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(text), 0o600))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Replace never writes through a link: one planted at the file is replaced, not followed,
// and one planted as its directory is refused (a capture's out once overwrote ~/.bashrc).
func TestReplaceFollowsNoLink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, ".bashrc")
	os.WriteFile(victim, []byte("keep\n"), 0o644)
	roots := New(dir)
	out := filepath.Join(dir, "traffic.qcap")
	os.Symlink(victim, out)
	if p, err := roots.Replace(out); err == nil {
		p.WriteString("captured $(touch x)\n")
		p.Commit()
		t.Error("Replace accepted a file that is a link out")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("the file behind the link was written: %q", b)
	}
	os.Symlink(outside, filepath.Join(dir, "sub"))
	if p, err := roots.Replace(filepath.Join(dir, "sub", "x.qcap")); err == nil {
		p.Abort()
		t.Error("Replace created a file through a directory link out")
	}
}
