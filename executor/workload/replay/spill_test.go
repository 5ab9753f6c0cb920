package replay

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSpill: statements of many sessions, added interleaved (some larger than a chunk, one
// larger than the window all() reads in), come back per session in the order they were
// added and all together in file order, from one file that Close removes.
func TestSpill(t *testing.T) {
	sp, err := newSpill()
	if err != nil {
		t.Fatal(err)
	}
	const sessions, each = 3000, 20
	text := func(s, i int) string {
		switch {
		case s == 7 && i == 3:
			return strings.Repeat("x", 5<<20) // over all()'s 4 MB window
		case s%100 == 0 && i == 5:
			return strings.Repeat("y", chunkSize+1)
		}
		return fmt.Sprintf("SELECT %d, %d", s, i)
	}
	var buf []byte
	for i := range each {
		for s := range sessions {
			rec := record{fp: s % 7, startUs: int64(1700000000000000 + i), duration: time.Duration(i) * time.Microsecond, rows: -1, err: s % 3 * 1062 / 2, line: i + 1, schema: "db", text: text(s, i),
				at: int64(s*1000 + i), order: int64(i%3 - 1), lock: (s+i)%2 == 0}
			buf = rec.append(buf[:0])
			if err := sp.add(s, buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := sp.finish(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(sp.dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("spill directory holds %d files (%v), want 1", len(entries), err)
	}
	var rec record
	for s := range sessions {
		rd := sp.reader(s)
		for i := range each {
			ok, err := rd.next(&rec)
			if err != nil || !ok {
				t.Fatalf("session %d statement %d: %v %v", s, i, ok, err)
			}
			if rec.at != int64(s*1000+i) || rec.order != int64(i%3-1) || rec.lock != ((s+i)%2 == 0) {
				t.Fatalf("session %d statement %d: at %d order %d lock %v", s, i, rec.at, rec.order, rec.lock)
			}
			if rec.text != text(s, i) || rec.line != i+1 || rec.fp != s%7 || rec.err != s%3*1062/2 || rec.rows != -1 || rec.schema != "db" ||
				rec.duration != time.Duration(i)*time.Microsecond || rec.startUs != int64(1700000000000000+i) {
				t.Fatalf("session %d statement %d: read %+.60v", s, i, rec)
			}
		}
		if ok, err := rd.next(&rec); ok || err != nil {
			t.Fatalf("session %d: a statement past its last (%v)", s, err)
		}
	}
	rd, n := sp.all(), 0
	for {
		ok, err := rd.next(&rec)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		n++
	}
	if n != sessions*each {
		t.Errorf("all() read %d statements, want %d", n, sessions*each)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sp.dir); !os.IsNotExist(err) {
		t.Errorf("spill directory left behind: %v", err)
	}
}
