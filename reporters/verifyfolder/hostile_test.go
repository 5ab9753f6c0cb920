package verifyfolder_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

// A verify folder (issue 45) whose queries.csv or query-details.jsonl is a symbolic link or
// a hard link to a file of the victim's outside it: verify's reader (checks.Load, and the
// report built from it) refuses it naming the file, and the file's text reaches no output.
func TestVerifyReaderRefusesALinkOut(t *testing.T) {
	const secret = "SECRET-45-verify: the victim's own file"
	for _, kind := range []struct {
		name string
		make func(target, name string) error
		says string
	}{{"symlink", os.Symlink, "a symbolic link"}, {"hardlink", os.Link, "a hard link"}} {
		for _, rel := range []string{results.QueriesFile, results.QueryDetailsFile, results.RunFile} {
			t.Run(kind.name+"/"+rel, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "verify")
				row := fixture.CheckRow("d1", "SELECT 1", 1)
				row.Results = results.VerifyDifferent
				fixture.Check(t, dir, []string{"base", "new"}, []results.QueryRow{row},
					[]results.QueryDetail{{FingerprintID: "d1", Target: "new", Statement: "SELECT 1"}})
				path := filepath.Join(dir, rel)
				own, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				// The victim's file reads as the folder's would: the secret in a fingerprint's
				// text, a detail's statement, the plan's name.
				text := strings.Replace(string(own), "SELECT 1", secret, 1)
				if rel == results.RunFile {
					text = strings.Replace(string(own), `"verify"`, `"`+secret+`"`, 1)
				}
				victim := filepath.Join(t.TempDir(), "victim")
				if err := os.WriteFile(victim, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				if err := kind.make(victim, path); err != nil {
					t.Fatal(err)
				}
				written, err := reporters.Rebuild(dir, "test")
				if err == nil || !strings.Contains(err.Error(), rel+" is "+kind.says) || !strings.Contains(err.Error(), "remove it") {
					t.Fatalf("the report of the folder: %v (wrote %v)", err, written)
				}
				if strings.Contains(err.Error(), "SECRET-45") {
					t.Errorf("the refusal quotes the victim's file: %v", err)
				}
				vi, _ := os.Stat(victim)
				filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return nil
					}
					if fi, err := os.Stat(p); err == nil && os.SameFile(fi, vi) {
						return nil // the link itself
					}
					if data, _ := os.ReadFile(p); bytes.Contains(data, []byte("SECRET-45")) {
						t.Errorf("%s holds the victim's file's text", p)
					}
					return nil
				})
			})
		}
	}
}
