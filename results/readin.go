package results

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Reading a results folder, confined to it. A folder is input from a stranger
// (docs/security.md): a published plan.yaml -> ~/.ssh/id_rsa would otherwise be read
// and copied into report.html, the compare output, an export or a merged folder, which
// users publish in turn. Every file a reader takes from a folder is opened here:
//
//   - through the folder's os.Root, so no path (.., an absolute link) leaves it;
//   - refusing every symbolic link on the way, even one that stays inside: the writer
//     never makes one (CreateAtomic renames, openOwn uses O_NOFOLLOW), so a link is
//     something planted, and refusing all of them is simpler to trust than judging each;
//   - refusing a regular file with more than one name (a hard link): its other name may
//     be outside the folder, and nothing about the path says so. The writer never makes
//     one either; a folder copied with cp -al or deduplicated by a backup tool is refused
//     too, and is read again once copied plainly;
//   - refusing anything not a file or a directory (a FIFO would block the reader).
//
// The checks look at each name before opening it and compare the open file with what
// they saw, so a name swapped in between is refused too.

// LinkError is a file of a results folder that is not the folder's own; its content is
// never read.
type LinkError struct {
	Dir  string // the folder
	File string // the file, relative to the folder
	What string // what it is: "a symbolic link", ...
}

func (e *LinkError) Error() string {
	why := "which may lead out of the folder"
	if strings.HasPrefix(e.What, "not ") {
		why = "which quadrant never writes"
	}
	return fmt.Sprintf("results folder %s: %s is %s, %s: it is not read. "+
		"A results folder holds its own files only: replace %s with a copy of the file itself, or remove it",
		Printable(e.Dir), Printable(e.File), e.What, why, Printable(e.File))
}

// OpenIn opens the file rel of the results folder dir for reading, refusing (LinkError) a
// symbolic link, a hard link or anything that is not a regular file. A file that does not
// exist is an error that errors.Is(err, fs.ErrNotExist).
func OpenIn(dir, rel string) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close() // the file opened through it stays open
	rel = filepath.Clean(rel)
	seen, err := lstatIn(root, dir, rel)
	if err != nil {
		return nil, err
	}
	if !seen.Mode().IsRegular() {
		return nil, &LinkError{Dir: dir, File: rel, What: "not a regular file"}
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !os.SameFile(seen, fi) {
		err = &LinkError{Dir: dir, File: rel, What: "a file replaced while it was opened"}
	} else if err == nil && links(fi) > 1 {
		err = &LinkError{Dir: dir, File: rel, What: hardLink(fi)}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFileIn reads the whole file rel of the results folder dir (OpenIn's rules).
func ReadFileIn(dir, rel string) ([]byte, error) {
	f, err := OpenIn(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadDirIn lists the directory rel ("." for the folder itself) of the results folder dir,
// refusing one that is a symbolic link. Its entries are listed, not followed: a reader
// opens each through OpenIn.
func ReadDirIn(dir, rel string) ([]fs.DirEntry, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	rel = filepath.Clean(rel)
	if rel != "." {
		fi, err := lstatIn(root, dir, rel)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, &LinkError{Dir: dir, File: rel, What: "not a directory"}
		}
	}
	d, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// StatIn is the file rel of the results folder dir as OpenIn would find it: a symbolic
// link or a hard link is a LinkError, a missing file fs.ErrNotExist.
func StatIn(dir, rel string) (fs.FileInfo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return lstatIn(root, dir, filepath.Clean(rel))
}

// lstatIn looks at each name of rel in turn, refusing a symbolic link anywhere on the way
// (os.Root would follow one that stays inside) and a regular file of several names.
func lstatIn(root *os.Root, dir, rel string) (fs.FileInfo, error) {
	parts := strings.Split(rel, string(filepath.Separator))
	var fi fs.FileInfo
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		var err error
		if fi, err = root.Lstat(p); err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &LinkError{Dir: dir, File: p, What: "a symbolic link"}
		}
	}
	if fi.Mode().IsRegular() && links(fi) > 1 {
		return nil, &LinkError{Dir: dir, File: rel, What: hardLink(fi)}
	}
	return fi, nil
}

// links is how many names the file has (1 where the system does not say).
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

func hardLink(fi fs.FileInfo) string {
	return fmt.Sprintf("a hard link (one file with %d names, the others possibly outside the folder)", links(fi))
}

// CheckFolder refuses (LinkError) a results folder that holds a symbolic link, a hard link
// or anything that is not a file or a directory, anywhere in it. Load and Open start with
// it, so a reader refuses such a folder whichever files it goes on to read (a report skips
// a histogram it cannot read, which would leave a planted one unsaid); and the readers
// that do not read through OpenIn need it: a rerun's plan.yaml and the data files it names
// are read by the plan loader (spec), which knows nothing of results folders. A file that
// goes while it looks (a running run's temporary file, renamed) is no matter.
func CheckFolder(dir string) error {
	start := dir // the folder the user named may be a link to it: WalkDir would not go in
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		start = resolved
	}
	return filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path != start {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(start, path)
		if err != nil || rel == "." {
			return err
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			return &LinkError{Dir: dir, File: rel, What: "a symbolic link"}
		case d.IsDir():
			return nil
		case !t.IsRegular():
			return &LinkError{Dir: dir, File: rel, What: "not a regular file"}
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if links(fi) > 1 {
			return &LinkError{Dir: dir, File: rel, What: hardLink(fi)}
		}
		return nil
	})
}
