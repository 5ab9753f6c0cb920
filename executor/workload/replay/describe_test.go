package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explain and log.txt describe a workload by its kind's Describe: a .qcap replayed with
// timing: none (the default) is a session replay, one connection per captured session, and
// explain counts its sessions; a SQL file is the file over its connections.
func TestDescribeSaysWhatTheFileIs(t *testing.T) {
	dir := t.TempDir()
	qcap := filepath.Join(dir, "traffic.qcap")
	sqlFile := filepath.Join(dir, "dump.sql")
	capture := `{"qcap":1,"created":"2026-12-01T10:00:00Z","timed":true}
{"session":7,"start_us":1764583200000000,"text":"SELECT 1"}
{"session":8,"start_us":1764583200001000,"text":"SELECT 2"}
{"session":7,"start_us":1764583200002000,"text":"SELECT 3"}
`
	if err := os.WriteFile(qcap, []byte(capture), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sqlFile, []byte("SELECT 1;\nSELECT 2;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := Workload(qcap, Replay{})
	got := w.String()
	if !strings.Contains(got, "(quadrant capture) one connection per captured session, timing none") || strings.Contains(got, "connection(s)") {
		t.Errorf("a .qcap with timing: none is described as %q", got)
	}
	lines := Kind.Spec.Explain(w)
	if last := lines[len(lines)-1]; last != "quadrant capture: 3 statement(s) in 2 session(s), replayed on a connection each" {
		t.Errorf("explain of a .qcap ends with %q", last)
	}
	if got := Workload(sqlFile, Replay{Connections: 2}).String(); got != "replay "+sqlFile+" over 2 connection(s)" {
		t.Errorf("a SQL file is described as %q", got)
	}
	// A file a capture: step of the plan writes is not there yet: a capture.
	if got := Workload(filepath.Join(dir, "later.qcap"), Replay{}).String(); !strings.Contains(got, "one connection per captured session") {
		t.Errorf("a capture not written yet is described as %q", got)
	}
}
