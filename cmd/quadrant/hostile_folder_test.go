package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// strangerFolder is a colleague's results folder as the victim receives it: a real folder
// written by quadrant (reporters/testdata/v1-folder: two iterations, per-variable reports,
// summary.json), copied so the test can plant what an attacker would.
func strangerFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "published")
	if err := os.CopyFS(dir, os.DirFS("../../reporters/testdata/v1-folder")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// victimFile is a file of the victim's outside the folder, which the folder must not reach.
func victimFile(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("the victim's own file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func plant(t *testing.T, link, target string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// `quadrant report DIR` on a folder with planted links: the temporary names quadrant once
// used (report.html.tmp, summary.json.tmp, variables/NAME.csv.tmp) and destinations that
// are themselves links. Nothing outside the folder is written; each report replaces its link.
func TestReportWritesNoPlantedLink(t *testing.T) {
	dir := strangerFolder(t)
	var victims []string
	for _, name := range []string{"report.html.tmp", "summary.json.tmp", "variables/status.Com_select.csv.tmp",
		"variables/status.Com_select.html.tmp"} {
		v := victimFile(t, strings.ReplaceAll(name, "/", "_"))
		plant(t, filepath.Join(dir, name), v)
		victims = append(victims, v)
	}
	replaced := []string{"report.html", "summary.json", "variables/status.Com_insert.csv", "variables/status.Com_insert.html"}
	for _, name := range replaced {
		v := victimFile(t, "dest_"+strings.ReplaceAll(name, "/", "_"))
		plant(t, filepath.Join(dir, name), v)
		victims = append(victims, v)
	}
	p := start(t, nil, "report", dir)
	if code := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out.String())
	}
	for _, v := range victims {
		if data, _ := os.ReadFile(v); string(data) != "the victim's own file\n" {
			t.Errorf("%s was written through a planted link: %.80q", v, data)
		}
	}
	for _, name := range replaced {
		fi, err := os.Lstat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: want a new regular 0644 file in place of the link, got %v %v", name, fi, err)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}
