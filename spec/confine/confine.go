// Package confine keeps the files a plan reads and writes inside the directories the user
// allowed: the plan's own folder, the results folder, and what --allow-path names. A
// published folder is a stranger's input, and a path in it (absolute, with .., or through a
// symlink it ships) must not reach /etc/shadow or ~/.bashrc. Check is the rule at validate
// time, on the path as the file system resolves it; Open and Create apply it again when the
// file is opened, through os.Root, so a symlink planted after the check leads nowhere.
package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Roots are directories, absolute and with their symlinks resolved.
type Roots []string

// New resolves dirs into Roots; an empty dir is skipped, a directory that does not exist
// yet counts as what its path says.
func New(dirs ...string) Roots {
	var out Roots
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if r, err := resolve(d); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// Inside reports whether path, once resolved, is one of the roots or below one.
func (r Roots) Inside(path string) bool {
	_, _, err := r.split(path)
	return err == nil
}

// ErrOutside is what Check, Open and Create return for a path no root holds.
var ErrOutside = errors.New("outside the directories the plan may use")

// Check returns nil when path resolves inside a root, else an error wrapping ErrOutside
// that names where the path really leads.
func (r Roots) Check(path string) error {
	_, _, err := r.split(path)
	return err
}

// Resolve is where path really leads: absolute, its existing part's symlinks resolved.
func Resolve(path string) string {
	if real, err := resolve(path); err == nil {
		return real
	}
	return path
}

// split returns the root holding path and path relative to it.
func (r Roots) split(path string) (root, rel string, err error) {
	real, err := resolve(path)
	if err != nil {
		return "", "", err
	}
	for _, root := range r {
		if rel, ok := under(root, real); ok {
			return root, rel, nil
		}
	}
	if abs, _ := filepath.Abs(path); abs != real {
		return "", "", fmt.Errorf("%s leads to %s: %w", path, real, ErrOutside)
	}
	return "", "", fmt.Errorf("%s: %w", path, ErrOutside)
}

// Open opens path for reading through the root that holds it: os.Root refuses a symlink
// or .. that leaves the root, whatever changed since Check.
func (r Roots) Open(path string) (*os.File, error) {
	return r.OpenFile(path, os.O_RDONLY, 0)
}

// Create creates or truncates path for writing, as os.Create does, through its root.
func (r Roots) Create(path string) (*os.File, error) {
	return r.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
}

// OpenFile is os.OpenFile through the root that holds path.
func (r Roots) OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	root, rel, err := r.split(path)
	if err != nil {
		return nil, err
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	f, err := rt.OpenFile(rel, flag, perm)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, nil
}

// resolve makes path absolute and resolves the symlinks of the part of it that exists;
// the rest (a file a run will create) is appended as written, cleaned.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	existing, rest := abs, ""
	for {
		real, err := filepath.EvalSymlinks(existing)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
}

// under returns path relative to root when it is root or below it.
func under(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// Pending is a new file created beside the one it will replace, inside the same root:
// Commit renames it over the file, Abort removes it.
type Pending struct {
	*os.File
	root      *os.Root
	tmp, dest string
	done      bool
}

// Replace creates a temporary file exclusively beside path, through path's root, so
// neither a planted symlink nor a directory link out is followed; Commit puts it in place.
func (r Roots) Replace(path string) (*Pending, error) {
	root, rel, err := r.split(path)
	if err != nil {
		return nil, err
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		tmp := filepath.Join(filepath.Dir(rel), fmt.Sprintf(".%s.%d-%d.tmp", filepath.Base(rel), os.Getpid(), rand.Uint32()))
		f, err := rt.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return &Pending{File: f, root: rt, tmp: tmp, dest: rel}, nil
		}
		if !errors.Is(err, fs.ErrExist) || i == 10 {
			rt.Close()
			return nil, fmt.Errorf("create beside %s: %w", path, err)
		}
	}
}

// Commit closes the file and renames it over the one it replaces.
func (p *Pending) Commit() error {
	p.done = true
	defer p.root.Close()
	if err := p.File.Close(); err != nil {
		p.root.Remove(p.tmp)
		return err
	}
	return p.root.Rename(p.tmp, p.dest)
}

// Abort closes and removes the file; after Commit it does nothing.
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	p.File.Close()
	p.root.Remove(p.tmp)
	p.root.Close()
}
