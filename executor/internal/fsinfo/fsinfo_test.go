package fsinfo

import (
	"os"
	"testing"
)

func TestParseMountInfo(t *testing.T) {
	mount, fstype, dev, ok := parseMountInfo(`36 35 98:0 /mnt1 /mnt\040two rw,noatime master:1 - ext3 /dev/root rw,errors=continue`)
	if !ok || mount != "/mnt two" || fstype != "ext3" || dev != "/dev/root" {
		t.Fatalf("got %q %q %q %v", mount, fstype, dev, ok)
	}
	if _, _, _, ok := parseMountInfo("garbage"); ok {
		t.Fatal("a short line parsed")
	}
}

// /dev/shm is a tmpfs on every Linux this runs on: the real mount table must say so.
func TestOfDevShm(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "fsinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	info, err := Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.Type != "tmpfs" || info.Mount != "/dev/shm" || info.SizeBytes == 0 {
		t.Fatalf("Of(%s) = %+v, want tmpfs mounted on /dev/shm", dir, info)
	}
}
