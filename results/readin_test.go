package results

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const inSecret = "SECRET-45-results: the victim's own file"

// linkFolder is a folder with run.json, plan.yaml, summary.csv, a time series, a histogram
// log, digests.csv and query-details.jsonl, as plain files, and a file of the victim's
// outside it (its text inSecret).
func linkFolder(t *testing.T) (dir, victim string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "folder")
	files := map[string]string{
		RunFile:                             `{"tool": "quadrant", "plan": "p", "status": "interrupted"}`,
		PlanFile:                            "name: p\n",
		SummaryFile:                         "iteration,target,tps\n1,db,10\n",
		DigestsFile:                         "iteration,target,rank,digest\n1,db,1,abc\n",
		QueryDetailsFile:                    `{"fingerprint_id": "f", "target": "new"}` + "\n",
		"timeseries/db.csv":                 "iteration,elapsed_s,tps\n1,1,10\n",
		"histograms/db/iteration-0001.hlog": "#[quadrant]\n",
	}
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	victim = filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte(inSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, victim
}

// replace puts a link of make (os.Symlink, os.Link) to target in place of rel.
func replace(t *testing.T, dir, rel, target string, make func(string, string) error) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := make(target, p); err != nil {
		t.Fatal(err)
	}
}

// wantLink checks err is a LinkError naming file as what, and quotes nothing of the victim's.
func wantLink(t *testing.T, err error, file, what string) {
	t.Helper()
	var le *LinkError
	if !errors.As(err, &le) || le.File != file || !strings.HasPrefix(le.What, what) {
		t.Fatalf("want %s refused as %s, got %v", file, what, err)
	}
	if msg := err.Error(); !strings.Contains(msg, file+" is "+what) || !strings.Contains(msg, "remove it") || strings.Contains(msg, "SECRET-45") {
		t.Errorf("the refusal does not name the file and what to do, or quotes the victim's: %s", msg)
	}
}

// OpenIn, each way a name can lead out of the folder: a link out, a link that stays inside
// (refused alike: the writer makes none), a directory on the way that is a link, a hard
// link, a FIFO (refused before it is opened, which would block), a path with "..".
func TestOpenInRefusesWhatIsNotTheFoldersOwn(t *testing.T) {
	dir, victim := linkFolder(t)
	if data, err := ReadFileIn(dir, PlanFile); err != nil || string(data) != "name: p\n" {
		t.Fatalf("the folder's own plan.yaml: %q %v", data, err)
	}
	if _, err := OpenIn(dir, "absent.csv"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}

	replace(t, dir, PlanFile, victim, os.Symlink)
	_, err := ReadFileIn(dir, PlanFile)
	wantLink(t, err, PlanFile, "a symbolic link")
	_, err = StatIn(dir, PlanFile)
	wantLink(t, err, PlanFile, "a symbolic link")

	replace(t, dir, PlanFile, RunFile, os.Symlink) // stays inside
	_, err = ReadFileIn(dir, PlanFile)
	wantLink(t, err, PlanFile, "a symbolic link")

	replace(t, dir, PlanFile, victim, os.Link)
	_, err = ReadFileIn(dir, PlanFile)
	wantLink(t, err, PlanFile, "a hard link")

	elsewhere := filepath.Join(t.TempDir(), "timeseries")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(elsewhere, "db.csv"), []byte("iteration\n"+inSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	replace(t, dir, TimeseriesDir, elsewhere, os.Symlink)
	_, err = OpenIn(dir, "timeseries/db.csv")
	wantLink(t, err, TimeseriesDir, "a symbolic link")
	_, err = ReadDirIn(dir, TimeseriesDir)
	wantLink(t, err, TimeseriesDir, "a symbolic link")

	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = OpenIn(dir, "fifo.csv")
	wantLink(t, err, "fifo.csv", "not a regular file")

	if _, err := OpenIn(dir, "../victim"); err == nil {
		t.Error("a path with .. was opened")
	}
}

// Each reader of results reads through OpenIn, not only after Load's CheckFolder: a link
// planted in place of the file it reads is refused naming it.
func TestEachReaderRefusesALinkOut(t *testing.T) {
	readers := []struct {
		rel  string
		read func(dir string) error
	}{
		{RunFile, func(dir string) error { _, err := ReadRunInfo(dir); return err }},
		{SummaryFile, func(dir string) error { _, _, err := ReadTableIn(dir, SummaryFile); return err }},
		{SummaryFile, func(dir string) error { return KeepIterations(dir, map[int]bool{1: true}) }},
		{DigestsFile, func(dir string) error { _, err := ReadDigests(dir); return err }},
		{QueryDetailsFile, func(dir string) error { _, err := ReadQueryDetails(dir); return err }},
		{"timeseries/db.csv", func(dir string) error {
			return ScanTableIn(dir, "timeseries/db.csv", func(_, _ []string) error { return nil })
		}},
		{"histograms/db/iteration-0001.hlog", func(dir string) error { _, err := ReadHistograms(dir, "db", 1, "latency"); return err }},
		{"histograms/db/iteration-0001.hlog", func(dir string) error { _, err := ReadIterationIntervals(dir, "db", 1); return err }},
		{PlanFile, func(dir string) error { return Pack(dir, io.Discard) }},
		{PlanFile, func(dir string) error { _, err := Load(dir); return err }},
		{"timeseries/db.csv", func(dir string) error { _, err := Open(dir); return err }},
	}
	for i, r := range readers {
		for _, l := range []struct {
			make func(string, string) error
			what string
		}{{os.Symlink, "a symbolic link"}, {os.Link, "a hard link"}} {
			t.Run(fmt.Sprintf("%d-%s-%s", i, filepath.Base(r.rel), l.what), func(t *testing.T) {
				dir, victim := linkFolder(t)
				replace(t, dir, r.rel, victim, l.make)
				wantLink(t, r.read(dir), r.rel, l.what)
			})
		}
	}
}

// TornLines reads no link: a planted one is never counted through.
func TestTornLinesReadsNoLink(t *testing.T) {
	dir, victim := linkFolder(t)
	if err := os.WriteFile(victim, []byte("a,b\n1,2"), 0o600); err != nil { // torn: no final newline
		t.Fatal(err)
	}
	replace(t, dir, "extra.csv", victim, os.Symlink)
	replace(t, dir, "timeseries/db.csv", victim, os.Link)
	if w := TornLines(dir); len(w) != 0 {
		t.Errorf("TornLines read through a link: %v", w)
	}
}
