package results

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A folder packed and unpacked comes back file for file.
func TestPackUnpack(t *testing.T) {
	src := filepath.Join(t.TempDir(), "shard-1")
	w, err := Create(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRunInfo(&RunInfo{Tool: "quadrant", Plan: "p", Status: StatusDone}); err != nil {
		t.Fatal(err)
	}
	if err := w.WritePlan([]byte("version: 1\n")); err != nil {
		t.Fatal(err)
	}
	w.Logf("hello")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(src, HistogramsDir, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, HistogramsDir, "db", "iteration-0001.hlog"), []byte("#x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Pack(src, &buf); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "shard.tgz")
	if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if !IsArchive(archive) || IsArchive(src) {
		t.Fatal("IsArchive mixes files and folders")
	}
	dir, err := Unpack(archive, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"run.json", PlanFile, LogFile, filepath.Join(HistogramsDir, "db", "iteration-0001.hlog")} {
		a, err1 := os.ReadFile(filepath.Join(src, f))
		b, err2 := os.ReadFile(filepath.Join(dir, f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs after pack and unpack (%v, %v)", f, err1, err2)
		}
	}
	if err := Pack(t.TempDir(), &buf); err == nil {
		t.Error("packing a folder without run.json worked")
	}
}
