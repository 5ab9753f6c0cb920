package results

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Pack writes the results folder dir as one gzipped tar to w, its files under one
// top-level folder named after dir: a pod's folder comes out of `kubectl exec ... quadrant
// pack DIR > shard.tgz` with no tar in the container. Its files are read through the
// folder's root (OpenIn): a symbolic link, a hard link or a device is refused (a folder
// has none of its own), so nothing outside the folder goes into the archive.
func Pack(dir string, w io.Writer) error {
	if _, err := ReadRunInfo(dir); err != nil {
		return err
	}
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	base := filepath.Base(filepath.Clean(dir))
	walk := dir // the folder the user named may be a link to it: WalkDir would not go in
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		walk = resolved
	}
	err := filepath.WalkDir(walk, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(walk, path)
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return &LinkError{Dir: dir, File: rel, What: "a symbolic link"}
		}
		if !(d.IsDir() || d.Type().IsRegular()) {
			return &LinkError{Dir: dir, File: rel, What: "not a regular file"}
		}
		var f *os.File
		if !d.IsDir() {
			if f, err = OpenIn(walk, rel); err != nil {
				return err
			}
			defer f.Close()
		}
		fi, err := d.Info()
		if f != nil {
			fi, err = f.Stat() // the file read, whose size the header gives
		}
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(filepath.Join(base, rel))
		if d.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uname, hdr.Gname, hdr.Uid, hdr.Gid = "", "", 0, 0
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		_, err = io.CopyN(tw, f, hdr.Size)
		return err
	})
	if err != nil {
		return fmt.Errorf("pack %s: %w", dir, err)
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// IsArchive reports whether path is a file (an archive from Pack) rather than a folder.
func IsArchive(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// Unpack extracts an archive written by Pack under into and returns the results folder
// it held. Entries that would land outside into, links and devices are refused.
func Unpack(archive, into string) (string, error) {
	f, err := os.Open(archive)
	if err != nil {
		return "", err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("%s: not an archive from quadrant pack: %w", archive, err)
	}
	tr := tar.NewReader(gz)
	top := ""
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", archive, err)
		}
		name := filepath.Clean(filepath.FromSlash(hdr.Name))
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%s: entry %q points outside the folder", archive, hdr.Name)
		}
		first, _, _ := strings.Cut(filepath.ToSlash(name), "/")
		if top == "" {
			top = first
		} else if first != top {
			return "", fmt.Errorf("%s: more than one folder (%s, %s): not an archive from quadrant pack", archive, top, first)
		}
		dst := filepath.Join(into, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return "", err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return "", err
			}
			out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return "", err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return "", fmt.Errorf("%s: %s: %w", archive, hdr.Name, err)
			}
			if err := out.Close(); err != nil {
				return "", err
			}
		default:
			return "", fmt.Errorf("%s: entry %q is not a file or a folder", archive, hdr.Name)
		}
	}
	if top == "" {
		return "", fmt.Errorf("%s: empty archive", archive)
	}
	dir := filepath.Join(into, top)
	if _, err := ReadRunInfo(dir); err != nil {
		return "", fmt.Errorf("%s: %w", archive, err)
	}
	return dir, nil
}
