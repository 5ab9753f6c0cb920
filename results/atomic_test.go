package results

import (
	"os"
	"path/filepath"
	"testing"
)

// A resumed run widens summary.csv and rewrites run.json and plan.yaml in a folder that may
// have come from someone else: links planted under the temporary names quadrant once used
// (NAME.tmp), or as the destination itself, are never written through.
func TestAtomicWritesFollowNoPlantedLink(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	victim := func(name string) string {
		p := filepath.Join(outside, name)
		if err := os.WriteFile(p, []byte("victim\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var victims []string
	for _, name := range []string{SummaryFile + ".tmp", RunFile + ".tmp", RunFile, "saved.csv"} {
		v := victim(name)
		if err := os.Symlink(v, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		victims = append(victims, v)
	}
	tb, err := OpenTable(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"tps", "qps"} { // the second row widens the file
		var r Record
		r.AddInt("iteration", 1)
		r.AddFloat(col, 1)
		if err := tb.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteJSON(filepath.Join(dir, RunFile), map[string]string{"status": "done"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "saved.csv"), []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	for _, v := range victims {
		if data, _ := os.ReadFile(v); string(data) != "victim\n" {
			t.Errorf("%s written through a planted link: %q", v, data)
		}
	}
	for _, name := range []string{RunFile, "saved.csv"} {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: want a regular file in place of the link: %v %v", name, fi, err)
		}
	}
	if _, rows, err := ReadTable(filepath.Join(dir, SummaryFile)); err != nil || len(rows) != 2 {
		t.Errorf("summary.csv after widening: %v %v", rows, err)
	}
}
