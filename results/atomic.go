package results

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// AtomicFile is a file that replaces its destination only when committed. It is written as a
// new temporary file in the destination's directory, created exclusively under a random name
// (os.CreateTemp), so a name planted beforehand (a `report.html.tmp` symlink in a stranger's
// folder) is never opened, and the rename replaces a destination that is itself a symlink
// rather than writing through it. Readers, and a kill -9, only ever see a whole file.
type AtomicFile struct {
	*os.File
	path string
	done bool
}

// CreateAtomic starts a replacement of path, making its directory if needed. Commit or
// Abort it; Abort after Commit does nothing, so `defer f.Abort()` is safe.
func CreateAtomic(path string) (*AtomicFile, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &AtomicFile{File: f, path: path}, nil
}

// Commit flushes the file to stable storage, gives it mode 0644 (CreateTemp's 0600 would
// hide a report from the folder's other readers) and renames it over the destination.
func (a *AtomicFile) Commit() error {
	if a.done {
		return fmt.Errorf("%s: already committed or aborted", a.path)
	}
	a.done = true
	err := a.Chmod(0o644)
	if err == nil {
		err = a.Sync()
	}
	if cerr := a.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.Name())
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	syncDir(filepath.Dir(a.path))
	return nil
}

// Abort drops the temporary file; the destination is left as it was.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.Close()
	os.Remove(a.Name())
}

// syncDir makes a rename durable; a filesystem that cannot sync a directory loses nothing
// the rename has not already made visible, so its error is not the caller's.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// ReplaceFile writes path atomically with what write writes (see AtomicFile).
func ReplaceFile(path string, write func(w io.Writer) error) error {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}

// WriteFileAtomic writes data to path atomically (see AtomicFile).
func WriteFileAtomic(path string, data []byte) error {
	return ReplaceFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
