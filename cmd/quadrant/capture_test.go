package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureConvertAndTrim: --in converts a server's slow log into a capture file, filtered
// by user and schema; a capture from a newer format version is refused (exit 2) naming it.
func TestCaptureConvertAndTrim(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.qcap")
	var stdout, stderr bytes.Buffer
	in := "../../executor/workload/replay/traffic/testdata/mariadb-slow.log"
	if code := run([]string{"capture", "--in", in, "--out", out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "39 statements from 3 sessions") {
		t.Errorf("stdout %q", stdout.String())
	}
	stdout.Reset()
	trimmed := filepath.Join(dir, "trim.qcap")
	if code := run([]string{"capture", "--in", out, "--out", trimmed, "--schema", "nosuch"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "0 statements from 0 sessions") {
		t.Errorf("filtered by schema: %q", stdout.String())
	}
	newer := filepath.Join(dir, "newer.qcap")
	if err := os.WriteFile(newer, []byte(`{"qcap":2,"timed":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"capture", "--in", newer, "--out", trimmed}, &stdout, &stderr); code != exitInvalid || !strings.Contains(stderr.String(), "version 2") {
		t.Errorf("newer version: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"capture", "--duration", "1s", "--out", trimmed}, &stdout, &stderr); code != exitInvalid {
		t.Errorf("no --target nor --in: exit %d, %q", code, stderr.String())
	}
}
