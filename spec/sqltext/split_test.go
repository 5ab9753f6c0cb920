package sqltext

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

type stmt struct {
	sql  string
	line int
}

func split(t *testing.T, in string) []stmt {
	t.Helper()
	s := NewSplitter(strings.NewReader(in))
	var out []stmt
	for {
		b, line, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("split: %v", err)
		}
		out = append(out, stmt{string(b), line})
	}
}

func TestSplitterNastyCases(t *testing.T) {
	in := "-- header; with a semicolon\n" +
		"SELECT 1;\n" +
		"INSERT INTO t VALUES ('a;b', \"c;d\", 'it''s', 'back\\'slash;', `we;ird`);\n" +
		"# hash comment;\n" +
		"SELECT /* inline; comment */ 2;  SELECT 3;\n" +
		"/*!40101 SET NAMES utf8mb4 */;\n" +
		"SELECT 1--1;\n" +
		"UPDATE t\n  SET a = 1\n  WHERE b = 'x\ny';\n" +
		"DELIMITER //\n" +
		"CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END//\n" +
		"delimiter ;\n" +
		"/* only a comment */\n" +
		"SELECT 'tail' -- trailing comment\n"
	got := split(t, in)
	want := []stmt{
		{"SELECT 1", 2},
		{"INSERT INTO t VALUES ('a;b', \"c;d\", 'it''s', 'back\\'slash;', `we;ird`)", 3},
		{"SELECT   2", 5},
		{"SELECT 3", 5},
		{"/*!40101 SET NAMES utf8mb4 */", 6},
		{"SELECT 1--1", 7},
		{"UPDATE t\n  SET a = 1\n  WHERE b = 'x\ny'", 8},
		{"CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END", 13},
		{"SELECT 'tail'", 16},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d statements: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("statement %d: got %q line %d, want %q line %d", i, got[i].sql, got[i].line, want[i].sql, want[i].line)
		}
	}
}

func TestSplitterErrors(t *testing.T) {
	s := NewSplitter(strings.NewReader("SELECT 1;\nSELECT 'open;\n"))
	if _, _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Next(); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("unterminated quote: %v", err)
	}
	s = NewSplitter(strings.NewReader("DELIMITER \nSELECT 1;"))
	if _, _, err := s.Next(); err == nil {
		t.Fatal("empty DELIMITER accepted")
	}
}

func TestSplitterExecutableCommentWithDelimiterInside(t *testing.T) {
	got := split(t, "/*!50003 CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET NEW.a = ';' */;\nSELECT 1;")
	if len(got) != 2 || !strings.HasSuffix(got[0].sql, "';' */") {
		t.Fatalf("%+v", got)
	}
}

func BenchmarkSplitter(b *testing.B) {
	var sb strings.Builder
	for i := range 1000 {
		sb.WriteString("INSERT INTO t VALUES (" + strings.Repeat("1", i%7+1) + ", 'some text; with a semicolon');\n")
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		s := NewSplitter(strings.NewReader(in))
		for {
			if _, _, err := s.Next(); err != nil {
				break
			}
		}
	}
}

func TestSplitText(t *testing.T) {
	in := "CREATE TABLE a (s VARCHAR(3) DEFAULT ';');\n-- a comment; with semicolon\nINSERT INTO a VALUES ('x;y'), (\"q\\\";\"); /* c; */\n" +
		"DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END //\nDELIMITER ;\nSELECT `a;b` FROM a;  ;\n# only a comment"
	got, err := Split(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"CREATE TABLE a (s VARCHAR(3) DEFAULT ';')",
		"INSERT INTO a VALUES ('x;y'), (\"q\\\";\")",
		"CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END",
		"SELECT `a;b` FROM a",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A statement past the limit is refused with its line and whole size, and the splitter
// never holds more than the limit of it: a 1 GB single statement once took 4 GB.
func TestSplitterRefusesAStatementOverTheLimit(t *testing.T) {
	const big = 20 << 20
	var b bytes.Buffer
	b.WriteString("SELECT 1;\n-- next\nINSERT INTO t VALUES ('")
	b.Write(bytes.Repeat([]byte("x"), big))
	b.WriteString("');\nSELECT 2;\n")
	sp := NewSplitter(&b)
	sp.SetLimit(1 << 20)
	if stmt, _, err := sp.Next(); err != nil || string(stmt) != "SELECT 1" {
		t.Fatalf("first statement: %q, %v", stmt, err)
	}
	_, _, err := sp.Next()
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("want a TooLargeError, got %v", err)
	}
	if tl.Line != 3 || tl.Size < big || tl.Size > big+64 || tl.Limit != 1<<20 {
		t.Errorf("error %+v: want line 3, size about %d, limit %d", tl, big, 1<<20)
	}
	if cap(sp.buf) > 2<<20 {
		t.Errorf("the splitter held %d bytes of a statement over a 1 MiB limit", cap(sp.buf))
	}
	if stmt, _, err := sp.Next(); err != nil || string(stmt) != "SELECT 2" {
		t.Errorf("after it: %q, %v", stmt, err)
	}
}
