package sqltext

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

type fuzzStmt struct {
	text string
	line int
}

// splitAll reads every statement from r, and the error that stopped it (nil at io.EOF).
func splitAll(r io.Reader) ([]fuzzStmt, error) {
	sp := NewSplitter(r)
	var out []fuzzStmt
	for {
		b, line, err := sp.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, fuzzStmt{string(b), line})
	}
}

// FuzzSplit: any text splits into statements or an error, never a panic or a loop, and
//   - it splits the same read a byte at a time (the splitter peeks across reads);
//   - each statement is trimmed and not empty, its line inside the text and not before the
//     previous statement's;
//   - the statements hold nothing the text does not: their non-blank bytes, in order, are a
//     subsequence of the text's (comments are dropped, never invented);
//   - they cover the text: joined with ";\n" they split again into themselves (unless the
//     text changes the delimiter, which joining would undo).
func FuzzSplit(f *testing.F) {
	for _, pattern := range []string{"../../examples/*.sql", "../../examples/data/*.sql", "../ddl/testdata/*.sql"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(b[:min(len(b), 2048)]))
		}
	}
	f.Add("SELECT 1--1;\n/*!40101 SET x='a;*/b' */;\nDELIMITER //\nCREATE TRIGGER t BEGIN SELECT 1; END //\nDELIMITER ;\nSELECT 'it''s\\';'; -- c;\n# h;\nSELECT `a;b`")
	f.Add("SELECT 'unterminated;\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 64<<10 {
			t.Skip("input over 64 KiB")
		}
		watchdog := time.AfterFunc(20*time.Second, func() { panic("hang splitting") })
		defer watchdog.Stop()
		got, err := splitAll(strings.NewReader(text))
		bytewise, berr := splitAll(iotest.OneByteReader(strings.NewReader(text)))
		if !reflect.DeepEqual(got, bytewise) || (err == nil) != (berr == nil) {
			t.Fatalf("read whole: %+v, %v\nread a byte at a time: %+v, %v", got, err, bytewise, berr)
		}
		checkStatements(t, text, got)
		if err != nil || strings.Contains(strings.ToLower(text), "delimiter") {
			return
		}
		var joined strings.Builder
		for _, s := range got {
			joined.WriteString(s.text + ";\n")
		}
		again, err := splitAll(strings.NewReader(joined.String()))
		if err != nil || len(again) != len(got) {
			t.Fatalf("%q split into %+v; joined again they split into %+v, %v", text, got, again, err)
		}
		for i := range got {
			if again[i].text != got[i].text {
				t.Fatalf("%q split into %+v; joined again they split into %+v", text, got, again)
			}
		}
	})
}

func checkStatements(t *testing.T, text string, got []fuzzStmt) {
	t.Helper()
	lines := strings.Count(text, "\n") + 1
	prev := 1
	var all []byte
	for _, s := range got {
		if s.text == "" || strings.TrimSpace(s.text) != s.text {
			t.Fatalf("statement %q is empty or not trimmed, in %q", s.text, text)
		}
		if s.line < prev || s.line > lines {
			t.Fatalf("statement %q at line %d, after line %d, of %d lines in %q", s.text, s.line, prev, lines, text)
		}
		prev = s.line
		all = append(all, s.text...)
	}
	if !subsequence(nonBlank([]byte(text)), nonBlank(all)) {
		t.Fatalf("statements %+v hold bytes not in %q", got, text)
	}
}

func nonBlank(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if !isSpace(c) {
			out = append(out, c)
		}
	}
	return out
}

// subsequence says whether sub's bytes appear in b in order.
func subsequence(b, sub []byte) bool {
	for _, c := range sub {
		i := bytes.IndexByte(b, c)
		if i < 0 {
			return false
		}
		b = b[i+1:]
	}
	return true
}
