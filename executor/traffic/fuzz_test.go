package traffic

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// maxFuzzInput bounds what a fuzz target reads, so the fuzzer's memory stays bounded; the
// readers stream, so a longer input exercises nothing a shorter one does not.
const maxFuzzInput = 64 << 10

// seedLogs adds the first 2 KB of each captured log matching pattern: whole logs make every
// new input slow to minimise, and their first records hold every kind of line.
func seedLogs(f *testing.F, pattern string) {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds for %s: %v", pattern, err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 2048)])
	}
}

// readFuzz reads b as format, skipping malformed records, and checks what every reader
// promises: no panic, no loop, no malformed record let through, each statement's line inside the file and its text no longer than the file.
func readFuzz(t *testing.T, dir string, b []byte, format string) []*Statement {
	t.Helper()
	p := filepath.Join(dir, "in")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tf, err := Open(p, Options{Format: format, SkipMalformed: true})
	if err != nil {
		return nil
	}
	defer tf.Close()
	lines := bytes.Count(b, []byte("\n")) + 1
	var out []*Statement
	for {
		s, err := tf.Next()
		if err != nil {
			var le *LineError
			if errors.As(err, &le) {
				t.Fatalf("%s: malformed record not skipped: %v", format, err)
			}
			// Other errors may stop a read: a plain SQL file's unterminated quote (auto
			// detects the format of any bytes) has no record to skip.
			return out
		}
		if s.Line < 1 || s.Line > lines || len(s.Text) > len(b) {
			t.Fatalf("%s: statement at line %d of %d, %d bytes of text from %d", format, s.Line, lines, len(s.Text), len(b))
		}
		if out = append(out, s); len(out) > len(b)+1 {
			t.Fatalf("%s: more statements than bytes", format)
		}
	}
}

// fuzzFormat is the body of a reader's fuzz target: the bytes read as format and as
// detected (auto), whatever format that detects.
func fuzzFormat(f *testing.F, format string) {
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			t.Skip("input over 64 KiB")
		}
		watchdog := time.AfterFunc(20*time.Second, func() { panic("hang reading " + format) })
		defer watchdog.Stop()
		readFuzz(t, dir, b, format)
		readFuzz(t, dir, b, "auto")
	})
}

// FuzzSlowLog: any bytes read as a slow query log (MySQL, MariaDB, Percona).
func FuzzSlowLog(f *testing.F) {
	seedLogs(f, "testdata/*-slow.log")
	f.Add([]byte("# Time: 2024-01-02T10:00:00.123456Z\n# User@Host: a[a] @ h []  Id: 8\n# Query_time: x\nSELECT 1;\n"))
	fuzzFormat(f, SlowLog)
}

// FuzzGeneralLog: any bytes read as a general query log.
func FuzzGeneralLog(f *testing.F) {
	seedLogs(f, "testdata/*-general.log")
	f.Add([]byte("241126 10:00:00\t    5 Connect\tu@localhost on db\n\t\t    5 Query\tSELECT 1\n5 Quit\n"))
	fuzzFormat(f, General)
}

// FuzzQCap: any bytes read as a capture file; and what is read, written again and read back,
// gives the same statements: the writer keeps everything the reader accepts.
func FuzzQCap(f *testing.F) {
	f.Add([]byte(`{"qcap":1}` + "\n{\"session\":1}\n{"))
	f.Add([]byte(`{"qcap":1,"timed":true,"source":"slow_log"}` + "\n" +
		`{"session":7,"start_us":1700000000123456,"duration_us":15,"schema":"db","user":"u","rows_sent":1,"rows_examined":2,"error":0,"text":"SELECT 'a\"b'"}` + "\n" +
		`{"session":8,"text":"SELECT 1\n-- x"}` + "\n"))
	f.Add([]byte(`{"qcap":2}` + "\n"))
	f.Add([]byte(`{"qcap":1}` + "\n" + `{"session":1,"duration_us":-5,"rows_sent":-3,"error":-2,"text":"x"}` + "\n" +
		`{"session":2,"duration_us":9223372036854775807,"start_us":-62135596800000000,"text":"y"}` + "\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			t.Skip("input over 64 KiB")
		}
		sts := readFuzz(t, dir, b, QCap)
		if sts == nil {
			return
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, QCapHeader{Timed: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sts {
			if err := w.Write(s); err != nil {
				t.Fatalf("write %+v: %v", s, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		again := readFuzz(t, dir, buf.Bytes(), QCap)
		if len(again) != len(sts) {
			t.Fatalf("%d statements read, %d after writing them again", len(sts), len(again))
		}
		for i, s := range sts {
			a := *again[i]
			a.Line = s.Line
			if a != *s && !(a.Start.Equal(s.Start) && sameBut(a, *s)) {
				t.Fatalf("statement %d read as\n%+v\nwritten and read again as\n%+v", i, *s, a)
			}
		}
	})
}

// sameBut says whether a and b are equal but for their Start, which Equal compares.
func sameBut(a, b Statement) bool {
	a.Start, b.Start = time.Time{}, time.Time{}
	return a == b
}
