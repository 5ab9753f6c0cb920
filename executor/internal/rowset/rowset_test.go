package rowset

import (
	"bytes"
	"database/sql"
	"reflect"
	"strings"
	"testing"
)

// A value with the characters the layout escapes, NULL and the empty string come back as they went.
func TestFixtureRoundTrip(t *testing.T) {
	in := &Set{Columns: []string{"SQL_TEXT", "CURRENT_SCHEMA", "ROWS_SENT"}, Rows: [][]sql.NullString{
		{{String: "SELECT 'a\tb'\nFROM t WHERE x = '\\N'", Valid: true}, {}, {String: "1", Valid: true}},
		{{String: "", Valid: true}, {String: "app", Valid: true}, {}},
	}}
	var buf bytes.Buffer
	if err := WriteFixture(&buf, "recorded from nowhere\nsecond line", in); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# recorded from nowhere\n# second line\nSQL_TEXT\t") {
		t.Fatalf("header not kept:\n%s", buf.String())
	}
	out, err := ReadFixture(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("read back %+v, want %+v", out, in)
	}
}

// A row with a value too many or too few is an error, not a shifted row.
func TestFixtureRowWidth(t *testing.T) {
	if _, err := ReadFixture(strings.NewReader("A\tB\n1\t2\t3\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err %v, want the line named", err)
	}
}

// Need names every missing column, whatever the case of the names.
func TestNeed(t *testing.T) {
	s := &Set{Columns: []string{"thread_id", "SQL_TEXT"}}
	idx, err := s.Need("t", "THREAD_ID", "sql_text")
	if err != nil || !reflect.DeepEqual(idx, []int{0, 1}) {
		t.Fatalf("Need = %v, %v", idx, err)
	}
	if _, err := s.Need("t", "DIGEST", "thread_id", "QUANTILE_95"); err == nil || !strings.Contains(err.Error(), "DIGEST, QUANTILE_95") {
		t.Fatalf("err %v, want DIGEST, QUANTILE_95 named", err)
	}
}
