package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// prune removes templates unused for long enough and unfinished builds, never one another
// process is building.
func TestPruneTemplates(t *testing.T) {
	cache := t.TempDir()
	old := time.Now().Add(-40 * 24 * time.Hour)
	mk := func(name string, marker bool, used time.Time) string {
		dir := filepath.Join(cache, name)
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "data", "ibdata1"), make([]byte, 4096), 0o644)
		path := dir
		if marker {
			path = filepath.Join(dir, templateMarker)
			os.WriteFile(path, []byte(templateFormat), 0o644)
		}
		os.Chtimes(path, used, used)
		return dir
	}
	unused := mk("mariadb-10.11-aaaa", true, old)
	recent := mk("mariadb-10.11-bbbb", true, time.Now())
	building := mk("mariadb-11.4-cccc", true, old)
	leftover := mk("mariadb-10.11-aaaa.tmp-123", false, old)
	unlock, err := lockFile(context.Background(), building+".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()

	ts, err := Templates(cache)
	if err != nil || len(ts) != 4 {
		t.Fatalf("templates %+v, %v", ts, err)
	}
	for _, x := range ts {
		if x.Size < 4096 || (x.Dir == building) != x.Building {
			t.Errorf("%+v", x)
		}
	}
	removed, err := PruneTemplates(cache, 30*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	gone := map[string]bool{}
	for _, x := range removed {
		gone[x.Dir] = true
	}
	if !gone[unused] || !gone[leftover] || gone[recent] || gone[building] || len(removed) != 2 {
		t.Fatalf("removed %v", gone)
	}
	for _, d := range []string{recent, building} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s is gone: %v", d, err)
		}
	}
}
