package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
)

// documentedFiles are the file names docs/results.md gives the folder: its section headings
// and the first column of its "Other files" table, as path patterns (TARGET and NAME stand
// for any name, N for a number without padding; a literal like iteration-0001 is the name itself).
func documentedFiles(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	file := regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(?:csv|jsonl|json|hlog|yaml|txt|html)\b`)
	var out []string
	other := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			other = line == "## Other files"
			if !other {
				out = append(out, file.FindAllString(line, -1)...)
			}
		case other && strings.HasPrefix(line, "| `"):
			first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " | ")
			out = append(out, file.FindAllString(first, -1)...)
		}
	}
	return out
}

func patternOf(doc string) *regexp.Regexp {
	p := regexp.QuoteMeta(doc)
	for _, ph := range []string{"TARGET", "NAME"} {
		p = strings.ReplaceAll(p, ph, `[^/]+`)
	}
	p = strings.ReplaceAll(p, "-N", `-(?:0|[1-9][0-9]*)`) // N is a number as written, without padding
	return regexp.MustCompile("^" + p + "$")
}

// docs/results.md names the files a real run writes, as the run names them, and every file
// a run writes is in it.
func TestResultsDocNamesTheFilesARunWrites(t *testing.T) {
	sandboxtest.SkipShort(t)
	docs := documentedFiles(t)
	if len(docs) < 10 {
		t.Fatalf("found only %v in docs/results.md", docs)
	}
	// The builtin run writes most files; a replay of a captured log adds the replay's own, and
	// a verify: step of the same log on a second sandbox queries.csv.
	plan := writePlan(t, `
version: 1
name: docs
targets: {db: {sandbox: {}}}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 100}}
iteration:
  before:
    - sql: "SELECT 1 AS one"
      save_as: one
  workload: {builtin: oltp_point_select, options: {table_size: 100}, duration: 1s}
watch:
  status: [Com_select]
  digests: {top: 2}
  waits: {top: 2}
report: {formats: [csv, html, json], per_variable: true}
`)
	replay := writePlan(t, `
version: 1
name: docs-replay
targets: {db: {sandbox: {}}, other: {sandbox: {}}}
setup:
  - verify: {traffic: general.log}
iteration:
  target: db
  workload: {replay: {file: general.log}}
`)
	log := "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB (Debian 12). started with:\n" +
		"Tcp port: 3306  Unix socket: /tmp/mysql.sock\n" +
		"Time\t\t    Id Command\tArgument\n" +
		"261130 22:45:30\t     6 Connect\troot@localhost on  using TCP/IP\n" +
		"\t\t     6 Query\tSELECT 1\n" +
		"\t\t     7 Connect\troot@localhost on  using TCP/IP\n" +
		"\t\t     7 Query\tSELECT 2\n" +
		"\t\t     6 Quit\t\n" +
		"\t\t     7 Quit\t\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(replay), "general.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, plan := range []string{plan, replay} {
		root := t.TempDir()
		p := start(t, nil, "run", plan, "--out", root)
		if code := p.wait(t, 3*time.Minute); code != exitOK {
			t.Fatalf("%s: exit %d:\n%s", plan, code, p.out.String())
		}
		dir := findRunDir(t, root)
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, path)
				files = append(files, rel)
			}
			return nil
		})
	}
	for _, f := range files {
		if f == "general.log" {
			continue // the replay plan's data file, copied in ("data files" in the table)
		}
		known := false
		for _, d := range docs {
			known = known || patternOf(d).MatchString(f)
		}
		if !known {
			t.Errorf("the run wrote %s, which docs/results.md does not name (it names %v)", f, docs)
		}
	}
	// quadrant verify's own files, as package results names them: no run writes them
	verifyOnly := map[string]bool{results.QueriesFile: true, results.QueryDetailsFile: true}
	for f := range verifyOnly {
		if !slices.Contains(docs, f) {
			t.Errorf("docs/results.md does not name %s, which quadrant verify writes (it names %v)", f, docs)
		}
	}
	for _, d := range docs {
		if strings.HasPrefix(d, "comparison.") || d == results.ReproductionFile || verifyOnly[d] || strings.HasPrefix(d, results.IDsDir+"/") {
			continue // written by rerun, by verify, or by a step that keeps the ids behind its counts (a drill), only
		}
		found := false
		for _, f := range files {
			found = found || patternOf(d).MatchString(f)
		}
		if !found {
			t.Errorf("docs/results.md names %s, but the run wrote no such file (it wrote %v)", d, files)
		}
	}
}
