package results

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// openOwn opens a file of a results folder for appending or rewriting in place, refusing
// one that is not the folder's own: a symlink, a hard link, a device. A folder being
// resumed (run --resume) may have come from someone else, often run as root, and writes
// through a planted log.txt -> /etc/shadow would reach past the folder. New files go
// through CreateAtomic, whose rename replaces a planted link rather than following it.
func openOwn(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		if errno, ok := err.(*os.PathError); ok && errno.Err == syscall.ELOOP {
			return nil, notOwn(path, "a symbolic link")
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, notOwn(path, "not a regular file")
	case st != nil && st.Nlink > 1:
		f.Close()
		return nil, notOwn(path, "a hard link to another file")
	}
	return f, nil
}

func notOwn(path, what string) error {
	return fmt.Errorf("%s is %s: a results folder's files must be its own; remove it, or write the results to a new folder", path, what)
}

// folderDirs are the subdirectories a run writes into.
var folderDirs = []string{TimeseriesDir, HistogramsDir, VariablesDir, SavedDir, IDsDir}

// checkOwnDirs refuses a folder whose subdirectories are symlinks: a resumed folder's
// histograms -> /etc would put the run's new files there.
func checkOwnDirs(dir string) error {
	for _, d := range folderDirs {
		fi, err := os.Lstat(filepath.Join(dir, d))
		if err == nil && !fi.IsDir() {
			return notOwn(filepath.Join(dir, d), "not a directory (a symbolic link?)")
		}
	}
	return nil
}
