// Package fsinfo says which filesystem a path is on: its type, its device and the free
// space, as the kernel's mount table and statfs have them. A run records it for each
// sandbox's data directory, so a comparison of storage says what storage it compared.
package fsinfo

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Info is the filesystem a path is on.
type Info struct {
	Type      string // ext4, xfs, tmpfs, nfs4, ...
	Device    string // what is mounted: /dev/sda1, tmpfs, server:/export
	Mount     string // where it is mounted
	FreeBytes uint64 // available to an unprivileged user
	SizeBytes uint64
}

// Of returns the filesystem path is on.
func Of(path string) (Info, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return Info{}, err
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(real, &st); err != nil {
		return Info{}, fmt.Errorf("statfs %s: %w", real, err)
	}
	info := Info{FreeBytes: st.Bavail * uint64(st.Bsize), SizeBytes: st.Blocks * uint64(st.Bsize)}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return info, fmt.Errorf("mount table: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		mount, fstype, dev, ok := parseMountInfo(sc.Text())
		if ok && within(real, mount) && len(mount) >= len(info.Mount) {
			info.Mount, info.Type, info.Device = mount, fstype, dev // the last of equal mounts is the one on top
		}
	}
	return info, sc.Err()
}

// parseMountInfo reads one line of /proc/self/mountinfo: "36 35 98:0 /mnt1 /mnt2 rw,noatime
// master:1 - ext3 /dev/root rw,errors=continue" (proc(5)).
func parseMountInfo(line string) (mount, fstype, dev string, ok bool) {
	f := strings.Fields(line)
	if len(f) < 7 {
		return "", "", "", false
	}
	for i := 6; i+2 < len(f); i++ {
		if f[i] == "-" {
			return unescape(f[4]), f[i+1], unescape(f[i+2]), true
		}
	}
	return "", "", "", false
}

// unescape undoes the octal escapes of spaces, tabs, newlines and backslashes in the mount table.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			var c int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &c); err == nil {
				b.WriteByte(byte(c))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func within(path, mount string) bool {
	return mount == "/" || path == mount || strings.HasPrefix(path, mount+"/")
}
