package results

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The ids behind a count go into the folder as ranges, and read back through the folder's
// root as they were: a user checks the count against their own ledger.
func TestIDsRoundTripAsRanges(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var ids []int64
	for id := int64(1); id <= 500; id++ {
		if id != 17 && id != 300 {
			ids = append(ids, id)
		}
	}
	ids = append(ids, 900, 42) // out of order, and one repeated
	if err := w.WriteIDs("drill_acked", 3, ids); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "ids", "drill_acked-iteration-3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# drill_acked, iteration 3: 499 ids in 4 ranges (FROM-TO, both included)\n1-16\n18-299\n301-500\n900\n"
	if string(data) != want {
		t.Fatalf("file\n%s\nwant\n%s", data, want)
	}
	rs, err := ReadIDs(dir, "drill_acked", 3)
	if err != nil {
		t.Fatal(err)
	}
	if wantRs := []IDRange{{1, 16}, {18, 299}, {301, 500}, {900, 900}}; !reflect.DeepEqual(rs, wantRs) || CountIDs(rs) != 499 {
		t.Fatalf("read %v (%d ids), want %v", rs, CountIDs(rs), wantRs)
	}
	if err := w.WriteIDs("drill_lost", 3, nil); err != nil {
		t.Fatal(err)
	}
	if rs, err := ReadIDs(dir, "drill_lost", 3); err != nil || len(rs) != 0 {
		t.Fatalf("no ids: %v %v", rs, err)
	}
	if _, err := ReadIDs(dir, "drill_acked", 4); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("an iteration without the file: %v", err)
	}
}

// An ids file is a stranger's input: a bad line is refused with its place, and a link out of
// the folder is not followed.
func TestIDsFileRefusals(t *testing.T) {
	for text, want := range map[string]string{
		"1-5\nten\n": "ids/m-iteration-1.txt:2: \"ten\" is no id",
		"9-3\n":      "range 9-3 ends before it starts",
		"1-5\n4-8\n": "4-8 overlaps or precedes",
		"-4\n":       "is no id",
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "ids"), 0o755)
		os.WriteFile(filepath.Join(dir, IDsFile("m", 1)), []byte(text), 0o644)
		if _, err := ReadIDs(dir, "m", 1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ids"), 0o755)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("1-5\n"), 0o644)
	os.Symlink(outside, filepath.Join(dir, IDsFile("m", 1)))
	var le *LinkError
	if _, err := ReadIDs(dir, "m", 1); !errors.As(err, &le) {
		t.Errorf("a symbolic link: %v, want a LinkError", err)
	}
	w := &Writer{Dir: t.TempDir()}
	if err := w.WriteIDs("m", 1, []int64{-3, 4}); err == nil {
		t.Error("a negative id was written")
	}
}
