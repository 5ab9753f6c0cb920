package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTakenPortIsReplaced(t *testing.T) {
	skipShort(t)
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	calls := 0
	pick := func() (int, error) {
		calls++
		if calls == 1 {
			return taken, nil
		}
		return freePort()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{Name: "port", Dir: reachableDir(t), Logf: t.Logf, pickPort: pick})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop(context.Background())
	if calls < 2 || c.Primary.Port() == taken {
		t.Fatalf("port %d was taken, server got %d after %d picks", taken, c.Primary.Port(), calls)
	}
}

// Two sandboxes starting at once with an empty template cache: one initialises, the other waits for it,
// and the cache ends with exactly one complete template and no half-made directories.
func TestConcurrentTemplateCreation(t *testing.T) {
	skipShort(t)
	t.Parallel()
	cache := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	errs := make(chan error, 2)
	for i := range 2 {
		go func() {
			c, err := Start(ctx, Options{Name: fmt.Sprintf("tmpl%d", i), Dir: reachableDir(t), CacheDir: cache, Logf: t.Logf})
			if err == nil {
				err = c.Stop(ctx)
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(cache)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) != 1 || !isTemplate(filepath.Join(cache, dirs[0])) {
		t.Fatalf("cache holds %v, want one complete template", dirs)
	}
}

// skipShort is sandboxtest.SkipShort for this package's own tests (which cannot import sandboxtest).
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a MariaDB sandbox (skipped under -short)")
	}
}

// reachableDir is sandboxtest.Dir for this package's own tests (which cannot import sandboxtest).
func reachableDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "quadrant-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	return dir
}
