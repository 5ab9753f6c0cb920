package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reading a stranger's folder (issue 45): a file of it replaced by a symbolic link or a
// hard link to a file of the victim's outside it. Every reader refuses the folder naming
// the file, and nothing of the victim's file reaches stdout, stderr or any file written.
// The readers run in process and need no server: a refusal comes before any connection.

// linkSecret is the victim's file's text, which must reach no output.
const linkSecret = "SECRET-45-rootread: the victim's private key, never to be published"

// link is how a file of the folder leads out.
type link struct {
	name string
	make func(target, name string) error
	says string // what the refusal calls it
}

var links = []link{
	{"symlink", os.Symlink, "a symbolic link"},
	{"hardlink", os.Link, "a hard link"},
}

// plantLink replaces the file rel of dir with a link of kind l to a new file of the
// victim's holding the file's own text and linkSecret (so a reader that followed it would
// read it as the folder's and carry the secret into its output); it returns that file.
func plantLink(t *testing.T, dir, rel string, l link) string {
	t.Helper()
	own, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "victim-"+filepath.Base(rel))
	text := string(own) + "# " + linkSecret + "\n"
	if strings.HasSuffix(rel, ".csv") { // a row whose first cell is the secret: the table still reads
		text = string(own) + csvRow(own, linkSecret)
	}
	if err := os.WriteFile(secret, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
	if err := l.make(secret, filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
	return secret
}

// csvRow is a row as wide as own's header, its first cell first.
func csvRow(own []byte, first string) string {
	header, _, _ := bytes.Cut(own, []byte("\n"))
	return first + strings.Repeat(",", bytes.Count(header, []byte(","))) + "\n"
}

// assertRefused checks a reader's refusal: a failing exit, the file named with what it is,
// and the secret in none of the outputs nor any file under roots (but the victim's own).
func assertRefused(t *testing.T, code int, stdout, stderr, rel string, l link, secret string, roots ...string) {
	t.Helper()
	if code == exitOK {
		t.Errorf("exit %d: the folder's %s %s was read", code, l.name, rel)
	}
	if !strings.Contains(stderr, rel+" is "+l.says) || !strings.Contains(stderr, "remove it") {
		t.Errorf("stderr does not name %s as %s nor say what to do:\n%s", rel, l.says, stderr)
	}
	if strings.Contains(stdout+stderr, "SECRET-45") {
		t.Errorf("the victim's file reached the output:\n%s\n%s", stdout, stderr)
	}
	noSecretUnder(t, secret, roots...)
	noStackTrace(t, stdout+stderr)
}

// noSecretUnder fails for any file under roots, other than secret itself (a hard link to it
// is it), that holds linkSecret.
func noSecretUnder(t *testing.T, secret string, roots ...string) {
	t.Helper()
	victim, err := os.Stat(secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range roots {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
				return nil
			}
			if fi, err := os.Stat(path); err == nil && os.SameFile(fi, victim) {
				return nil
			}
			if data, _ := os.ReadFile(path); bytes.Contains(data, []byte("SECRET-45")) {
				t.Errorf("%s holds the victim's file's text", path)
			}
			return nil
		})
	}
}

// planted are the files each reader is tested with: plan.yaml (its text goes into
// report.html and the merged folder), a time series and a histogram log.
var planted = []string{"plan.yaml", "timeseries/primary.csv", "histograms/primary/iteration-0001.hlog"}

func TestReportRefusesALinkOut(t *testing.T) {
	for _, l := range links {
		for _, rel := range planted {
			t.Run(l.name+"/"+rel, func(t *testing.T) {
				dir := strangerFolder(t)
				secret := plantLink(t, dir, rel, l)
				code, stdout, stderr := runCLI("report", dir)
				assertRefused(t, code, stdout, stderr, rel, l, secret, dir)
			})
		}
	}
}

func TestCompareRefusesALinkOut(t *testing.T) {
	for _, l := range links {
		for _, rel := range planted {
			t.Run(l.name+"/"+rel, func(t *testing.T) {
				mine, dir := strangerFolder(t), strangerFolder(t)
				secret := plantLink(t, dir, rel, l)
				out := filepath.Join(t.TempDir(), "compare.html")
				code, stdout, stderr := runCLI("compare", mine, dir, "--out", out)
				assertRefused(t, code, stdout, stderr, rel, l, secret, mine, dir, filepath.Dir(out))
			})
		}
	}
}

// The gate reads both folders as compare does: compare --fail-on, and run's and rerun's
// --baseline (judgeFolders) after the run.
func TestGateRefusesALinkOut(t *testing.T) {
	for _, l := range links {
		t.Run(l.name, func(t *testing.T) {
			mine, baseline := strangerFolder(t), strangerFolder(t)
			secret := plantLink(t, baseline, "plan.yaml", l)
			md := filepath.Join(t.TempDir(), "gate.md")
			code, stdout, stderr := runCLI("compare", baseline, mine, "--fail-on", "tps < -50%", "--markdown", md)
			assertRefused(t, code, stdout, stderr, "plan.yaml", l, secret, mine, baseline, filepath.Dir(md))

			g := &gateFlags{baseline: baseline}
			if !g.parse("run", io.Discard) {
				t.Fatal("the default rules do not parse")
			}
			var w bytes.Buffer
			_, err := g.judgeFolders(baseline, mine, &w)
			if err == nil {
				t.Fatal("judgeFolders read a baseline with a link out")
			}
			assertRefused(t, exitInvalid, w.String(), err.Error(), "plan.yaml", l, secret, mine, baseline)
		})
	}
}

func TestExportRefusesALinkOut(t *testing.T) {
	for _, l := range links {
		for _, rel := range planted[:2] { // export reads the tables, not the histograms
			t.Run(l.name+"/"+rel, func(t *testing.T) {
				dir := strangerFolder(t)
				secret := plantLink(t, dir, rel, l)
				// Nothing listens on port 1: the folder is refused before the database is asked.
				code, stdout, stderr := runCLI("export", dir, "--dsn", "export@tcp(127.0.0.1:1)/quadrant")
				assertRefused(t, code, stdout, stderr, rel, l, secret, dir)
			})
		}
	}
}

// shardFolders are two shards of one run, made of strangerFolder.
func shardFolders(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for k := range 2 {
		d := strangerFolder(t)
		editFile(t, filepath.Join(d, "run.json"), func(s string) string {
			return strings.Replace(s, "{", fmt.Sprintf(`{"shard": {"run_id": "r45", "index": %d, "count": 2},`, k), 1)
		})
		dirs = append(dirs, d)
	}
	return dirs
}

func TestMergeRefusesALinkOut(t *testing.T) {
	for _, l := range links {
		for _, rel := range append(planted, "data.sql") {
			t.Run(l.name+"/"+rel, func(t *testing.T) {
				shards := shardFolders(t)
				if rel == "data.sql" { // a file the plan names: merge copies it into the merged folder
					if err := os.WriteFile(filepath.Join(shards[0], rel), []byte("SELECT 1;\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				secret := plantLink(t, shards[0], rel, l)
				out := filepath.Join(t.TempDir(), "merged")
				code, stdout, stderr := runCLI("merge", shards[0], shards[1], "--out", out)
				assertRefused(t, code, stdout, stderr, rel, l, secret, shards[0], shards[1], filepath.Dir(out))
			})
		}
	}
}

func TestRerunRefusesALinkOut(t *testing.T) {
	for _, l := range links {
		for _, rel := range append(planted, "data.sql") {
			t.Run(l.name+"/"+rel, func(t *testing.T) {
				dir := strangerFolder(t)
				if rel == "data.sql" {
					if err := os.WriteFile(filepath.Join(dir, rel), []byte("SELECT 1;\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				secret := plantLink(t, dir, rel, l)
				out := t.TempDir()
				code, stdout, stderr := runCLI("rerun", dir, "--target", "primary=root@tcp(127.0.0.1:1)/", "--out", out)
				assertRefused(t, code, stdout, stderr, rel, l, secret, dir, out)
			})
		}
	}
}

// --resume DIR reads the folder's tables back (KeepIterations) and appends to them.
func TestResumeRefusesALinkOut(t *testing.T) {
	for _, l := range links {
		for _, rel := range planted {
			t.Run(l.name+"/"+rel, func(t *testing.T) {
				dir := strangerFolder(t)
				plan := filepath.Join(t.TempDir(), "plan.yaml")
				own, err := os.ReadFile(filepath.Join(dir, "plan.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(plan, own, 0o644); err != nil {
					t.Fatal(err)
				}
				editFile(t, filepath.Join(dir, "run.json"), func(s string) string {
					return strings.Replace(s, `"status": "done"`, `"status": "interrupted"`, 1)
				})
				secret := plantLink(t, dir, rel, l)
				code, stdout, stderr := runCLI("run", plan, "--resume", dir, "--target", "primary=root@tcp(127.0.0.1:1)/")
				assertRefused(t, code, stdout, stderr, rel, l, secret, dir)
			})
		}
	}
}

// explain and validate take a results folder as rerun does (or its plan.yaml named), and
// refuse it as rerun does: the plan loader would follow a linked plan.yaml and quote the
// victim's lines in its errors.
func TestExplainAndValidateRefuseALinkOut(t *testing.T) {
	for _, l := range links {
		for _, cmd := range []string{"explain", "validate"} {
			for _, named := range []string{"folder", "plan.yaml"} {
				t.Run(l.name+"/"+cmd+"/"+named, func(t *testing.T) {
					dir := strangerFolder(t)
					secret := plantLink(t, dir, "plan.yaml", l)
					arg := dir
					if named == "plan.yaml" {
						arg = filepath.Join(dir, "plan.yaml")
					}
					code, stdout, stderr := runCLI(cmd, arg)
					assertRefused(t, code, stdout, stderr, "plan.yaml", l, secret, dir)
				})
			}
		}
	}
}
