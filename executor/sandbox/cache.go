package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// CachedTemplate is one initialised template datadir in the cache.
type CachedTemplate struct {
	Dir      string
	Size     int64     // bytes on disk
	LastUsed time.Time // when a sandbox last started from it
	Building bool      // another process holds its lock: being built right now
}

// CacheDir is where template datadirs are cached ("" options use it).
func CacheDir() string { return defaultCacheDir() }

// Templates lists the cache's templates (and unfinished builds), oldest use first.
func Templates(cacheDir string) ([]CachedTemplate, error) {
	if cacheDir == "" {
		cacheDir = defaultCacheDir()
	}
	entries, err := os.ReadDir(cacheDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("template cache %s: %w", cacheDir, err)
	}
	var out []CachedTemplate
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(cacheDir, e.Name())
		t := CachedTemplate{Dir: dir, Size: treeSize(dir)}
		base := dir
		if i := strings.Index(e.Name(), ".tmp-"); i >= 0 {
			base = filepath.Join(cacheDir, e.Name()[:i]) // an unfinished build of that template
		}
		if fi, err := os.Stat(filepath.Join(dir, templateMarker)); err == nil {
			t.LastUsed = fi.ModTime()
		} else if fi, err := os.Stat(dir); err == nil {
			t.LastUsed = fi.ModTime()
		}
		t.Building = locked(base + ".lock")
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LastUsed.Before(out[j].LastUsed) })
	return out, nil
}

// PruneTemplates removes the templates no sandbox started from for olderThan, and
// unfinished builds as old; a template whose lock another process holds (being built) is
// never removed. It returns what it removed.
func PruneTemplates(cacheDir string, olderThan time.Duration) ([]CachedTemplate, error) {
	all, err := Templates(cacheDir)
	if err != nil {
		return nil, err
	}
	cutoff := time.Now().Add(-olderThan)
	var removed []CachedTemplate
	var errs []error
	for _, t := range all {
		if t.Building || t.LastUsed.After(cutoff) {
			continue
		}
		lock := t.Dir + ".lock"
		if i := strings.Index(filepath.Base(t.Dir), ".tmp-"); i >= 0 {
			lock = filepath.Join(filepath.Dir(t.Dir), filepath.Base(t.Dir)[:i]) + ".lock"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 0)
		unlock, err := lockFile(ctx, lock)
		cancel()
		if err != nil {
			continue // taken in the meantime: in use
		}
		if err := os.RemoveAll(t.Dir); err != nil {
			errs = append(errs, err)
		} else {
			removed = append(removed, t)
		}
		unlock()
	}
	return removed, errors.Join(errs...)
}

// locked reports whether another process holds the flock on path.
func locked(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

func treeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
