package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// TestCaptureConvertAndTrim: --in converts a server's slow log into a capture file, filtered
// by user and schema; a capture from a newer format version is refused (exit 2) naming it.
func TestCaptureConvertAndTrim(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.qcap")
	var stdout, stderr bytes.Buffer
	in := "../../executor/traffic/testdata/mariadb-slow.log"
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

// TestCaptureServer: quadrant capture --target records what other connections run on a
// sandbox for the duration, leaves out its own statements, and puts the slow log settings back.
func TestCaptureServer(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "capcli"})
	db, err := c.Primary.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	settings := func() string {
		var s string
		if err := db.QueryRow("SELECT CONCAT_WS(' ', @@GLOBAL.log_output, @@GLOBAL.slow_query_log, @@GLOBAL.long_query_time)").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := settings()
	// New connections all along the capture: the slow log records those opened after it started.
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			other, err := sql.Open("mysql", c.Primary.DSN(""))
			if err == nil {
				other.Exec("SELECT 42 FROM DUAL")
				other.Close()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	out := filepath.Join(t.TempDir(), "t.qcap")
	var stdout, stderr bytes.Buffer
	code := run([]string{"capture", "--target", "db=" + c.Primary.DSN(""), "--duration", "2s", "--method", "slow_log", "--out", out}, &stdout, &stderr)
	close(done)
	wg.Wait()
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := settings(); got != before {
		t.Errorf("settings after the capture %q, before %q", got, before)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"text":"SELECT 42 FROM DUAL"`); n == 0 || strings.Contains(string(data), "slow_query_log") {
		t.Errorf("capture has %d SELECT 42 (want some) or the capture's own statements:\n%.2000s", n, data)
	}
	if !strings.HasPrefix(string(data), `{"qcap":1,`) || strings.Contains(stderr.String(), c.Primary.Password()) {
		t.Errorf("header %.80q; stderr %q", data, stderr.String())
	}
}

// TestCaptureSkipMalformed: a malformed record stops --in with file:line (exit 2), and
// --skip-malformed converts the rest, reporting it.
func TestCaptureSkipMalformed(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "slow.log")
	log := "# User@Host: app[app] @ localhost []  Id: 8\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 1  Rows_examined: 1\nSET timestamp=1700000000;\nSELECT 1;\n" +
		"# User@Host: app[app] @ localhost []  Id: 8\n# Query_time: x  Lock_time: 0 Rows_sent: 1  Rows_examined: 1\nSELECT 2;\n" +
		"# User@Host: app[app] @ localhost []  Id: 9\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 1  Rows_examined: 1\nSET timestamp=1700000001;\nSELECT 3;\n"
	if err := os.WriteFile(in, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "t.qcap")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"capture", "--in", in, "--out", out}, &stdout, &stderr); code != exitInvalid || !strings.Contains(stderr.String(), in+":6:") {
		t.Errorf("malformed: exit %d, %q", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed conversion left its file")
	}
	stderr.Reset()
	if code := run([]string{"capture", "--in", in, "--out", out, "--skip-malformed"}, &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "2 statements from 2 sessions") || !strings.Contains(stderr.String(), in+":6:") {
		t.Errorf("skip: exit %d, %q, %q", code, stdout.String(), stderr.String())
	}
}
