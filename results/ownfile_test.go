package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder being resumed may be a stranger's: each file a run appends to or cuts must be
// the folder's own, so links planted in it reach nothing outside.
func TestResumeRefusesPlantedLinks(t *testing.T) {
	plant := map[string]func(dir, victim string) error{
		"log.txt symlink": func(dir, victim string) error { return os.Symlink(victim, filepath.Join(dir, LogFile)) },
		"summary.csv symlink": func(dir, victim string) error {
			return os.Symlink(victim, filepath.Join(dir, SummaryFile))
		},
		"summary.csv hard link": func(dir, victim string) error { return os.Link(victim, filepath.Join(dir, SummaryFile)) },
		"histograms dir symlink": func(dir, victim string) error {
			return os.Symlink(filepath.Dir(victim), filepath.Join(dir, HistogramsDir))
		},
	}
	for name, planted := range plant {
		t.Run(name, func(t *testing.T) {
			outside := t.TempDir()
			victim := filepath.Join(outside, "shadow")
			// a torn last line, which resuming would cut, and a header
			const text = "root:x:0:0\nlast line without newline"
			if err := os.WriteFile(victim, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := planted(dir, victim); err != nil {
				t.Fatal(err)
			}
			w, err := Create(dir)
			if err == nil {
				w.Close()
				t.Fatalf("Create of a folder with a planted %s: no error", name)
			}
			if !strings.Contains(err.Error(), "must be its own") {
				t.Errorf("error %q does not say why", err)
			}
			if data, _ := os.ReadFile(victim); string(data) != text {
				t.Errorf("the file outside the folder changed: %q", data)
			}
		})
	}
}

// The folder's own files resume as before: the torn line is cut, the header kept.
func TestResumeCutsTornLineOfOwnTable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte("a,b\n1,2\n3,"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if data, _ := os.ReadFile(filepath.Join(dir, SummaryFile)); string(data) != "a,b\n1,2\n" {
		t.Errorf("summary.csv after resume: %q", data)
	}
}
