package main

import (
	"os"
	"os/exec"
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
// are themselves links. The folder is refused, naming a link (issue 45: a folder with a
// link is read by no reader), and nothing outside it is written. That the writer replaces
// such a link rather than writing through it is results' TestAtomicWritesFollowNoPlantedLink.
func TestReportWritesNoPlantedLink(t *testing.T) {
	dir := strangerFolder(t)
	var victims []string
	for _, name := range []string{"report.html.tmp", "summary.json.tmp", "variables/status.Com_select.csv.tmp",
		"variables/status.Com_select.html.tmp", "report.html", "summary.json", "variables/status.Com_insert.csv",
		"variables/status.Com_insert.html"} {
		v := victimFile(t, "v_"+strings.ReplaceAll(name, "/", "_"))
		plant(t, filepath.Join(dir, name), v)
		victims = append(victims, v)
	}
	p := start(t, nil, "report", dir)
	if code := p.wait(t, time.Minute); code != 2 || !strings.Contains(p.out.String(), "is a symbolic link") {
		t.Fatalf("exit %d, want 2 naming a link:\n%s", code, p.out.String())
	}
	for _, v := range victims {
		if data, _ := os.ReadFile(v); string(data) != "the victim's own file\n" {
			t.Errorf("%s was written through a planted link: %.80q", v, data)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// editFile rewrites a file of the folder through edit.
func editFile(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// escFolder is a stranger's folder whose plan name (in run.json: plan.yaml's is checked),
// description, a setting's value, a my.cnf value, a var's and a matrix variable's value, the
// host and an iteration's error carry terminal control
// sequences: a window title (ESC]0;...BEL), a screen clear (ESC[2J) and an 8-bit CSI (0x9b).
func escFolder(t *testing.T, setting string) string {
	t.Helper()
	dir := strangerFolder(t)
	editFile(t, filepath.Join(dir, "run.json"), func(s string) string {
		s = strings.Replace(s, `"plan": "v1-folder"`, `"plan": "v1\u001b]0;OWNED\u0007\u001b[2J"`, 1)
		s = strings.Replace(s, `"host": "vm"`, `"host": "vm\u009b2J"`, 1)
		s = strings.Replace(s, `"innodb_buffer_pool_size": "67108864"`, `"innodb_buffer_pool_size": "`+setting+`"`, 1)
		return strings.Replace(s, `"status": "done",
      "start"`, `"status": "failed", "error": "boom\u001b]0;ERR\u0007", "start"`, 1)
	})
	editFile(t, filepath.Join(dir, "summary.csv"), func(s string) string {
		return strings.Replace(s, "\n2,1,2,primary,", "\n2,1,2\x1b[2J\x9b,primary,", 1) // the matrix variable's value
	})
	editFile(t, filepath.Join(dir, "plan.yaml"), func(s string) string {
		s = strings.Replace(s, "description: written", `description: "\e]0;DESC\a\e[2J"`+"\n# ", 1)
		s = strings.Replace(s, "{innodb_buffer_pool_size: 64M}", `{innodb_buffer_pool_size: 64M, init_connect: "\e]0;SET\a"}`, 1)
		return strings.Replace(s, "matrix:\n", "vars:\n  label: \"\\e[2J\\x9b\"\nmatrix:\n", 1)
	})
	return dir
}

// noControls fails when out holds a byte a terminal obeys: ESC, BEL or an 8-bit CSI (0x9b,
// alone or as UTF-8's U+009B).
func noControls(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\a", "\x9b", "\u009b"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s prints %q from the folder:\n%q", what, bad, out)
		}
	}
}

// compare, report and explain of a stranger's folder print its strings escaped, never its
// control sequences.
func TestFolderControlsNeverReachTheTerminal(t *testing.T) {
	a := escFolder(t, "67108864")
	b := escFolder(t, `134217728\u001b]0;SETTING\u0007`)
	p := start(t, nil, "compare", a, b)
	code := p.wait(t, time.Minute)
	out := p.out.String()
	if code != 0 {
		t.Fatalf("compare exit %d:\n%s", code, out)
	}
	noControls(t, "compare", out)
	for _, want := range []string{`v1\x1b]0;OWNED\x07\x1b[2J`, `\x1b]0;SETTING\x07`, `vm\u009b2J`, `threads=2\x1b[2J\x9b @primary`} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks the escaped %s:\n%s", want, out)
		}
	}
	p = start(t, nil, "report", a)
	if code := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("report exit %d:\n%s", code, p.out.String())
	}
	noControls(t, "report", p.out.String())
	p = start(t, nil, "explain", filepath.Join(a, "plan.yaml"))
	code = p.wait(t, time.Minute)
	out = p.out.String()
	noControls(t, "explain", out)
	if code != 0 || !strings.Contains(out, `\x1b]0;DESC`) {
		t.Errorf("explain exit %d, want 0 and the escaped description:\n%s", code, out)
	}
}

// quadrantIn runs quadrant in the working directory dir, as a victim in their own folder.
func quadrantIn(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(quadrantBin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// A stranger's folder whose plan says report: {dir: ...} does not choose where a rerun
// writes: results go under --out or results/ in the victim's working directory, and the
// plan's directory stays untouched. The victim's own plan, run, keeps its report.dir. The
// server is the victim's (--target), here one that refuses: the folder is made, and named
// on stdout, before it is contacted (and removed after, having measured nothing).
func TestRerunIgnoresTheFoldersReportDir(t *testing.T) {
	published := strangerFolder(t)
	planted := filepath.Join(t.TempDir(), "attacker-chosen")
	editFile(t, filepath.Join(published, "plan.yaml"), func(s string) string {
		return strings.Replace(s, "report:\n", "report:\n  dir: "+planted+"\n", 1)
	})
	mine := "--target=primary=root@tcp(127.0.0.1:1)/"
	work := t.TempDir()
	_, out := quadrantIn(t, work, "rerun", published, mine)
	if _, err := os.Stat(planted); err == nil {
		t.Errorf("the rerun wrote under the folder's report.dir %s:\n%s", planted, out)
	}
	if !strings.Contains(out, "results: "+filepath.Join("results", "v1-folder")+"/") {
		t.Errorf("want the rerun's folder under results/ of the working directory:\n%s", out)
	}
	if !strings.Contains(out, "report.dir "+planted+"; a rerun writes under results/") {
		t.Errorf("the rerun does not say it ignored report.dir:\n%s", out)
	}
	outDir := t.TempDir()
	if _, out := quadrantIn(t, work, "rerun", published, mine, "--out", outDir); !strings.Contains(out, "results: "+filepath.Join(outDir, "v1-folder")+"/") {
		t.Errorf("want the rerun's folder under --out:\n%s", out)
	}
	// run of the folder's plan.yaml is still the stranger's plan: report.dir is not honoured.
	if _, out := quadrantIn(t, work, "run", filepath.Join(published, "plan.yaml"), mine); strings.Contains(out, "results: "+planted) {
		t.Errorf("run of a folder's plan.yaml wrote under its report.dir %s:\n%s", planted, out)
	}
	// One's own plan (the same text, copied out of the folder), run: report.dir is honoured.
	own := filepath.Join(t.TempDir(), "plan.yaml")
	copyFile(t, filepath.Join(published, "plan.yaml"), own)
	_, out = quadrantIn(t, work, "run", own, mine)
	if !strings.Contains(out, "results: "+filepath.Join(planted, "v1-folder")+"/") {
		t.Errorf("run of one's own plan: want its folder under report.dir %s:\n%s", planted, out)
	}
}

// A folder whose CSV files were cut short (a run killed with kill -9 leaves its last row
// without a newline) still reports and compares, with a warning naming FILE:LINE; a row
// damaged before the last line is an error naming FILE:LINE, with no page written and a
// non-zero exit, in report and in compare.
func TestDamagedCSVIsAnErrorACutLastLineAWarning(t *testing.T) {
	cut := strangerFolder(t)
	for _, f := range []string{"summary.csv", "timeseries/primary.csv"} {
		editFile(t, filepath.Join(cut, f), func(s string) string { return s[:len(s)-25] })
	}
	p := start(t, nil, "report", cut)
	code, out := p.wait(t, time.Minute), p.out.String()
	if code != 0 {
		t.Fatalf("report of a cut folder: exit %d, want 0:\n%s", code, out)
	}
	for _, want := range []string{filepath.Join(cut, "summary.csv") + ":3: the last line has no newline",
		filepath.Join(cut, "timeseries", "primary.csv") + ":7: the last line has no newline"} {
		if !strings.Contains(out, want) {
			t.Errorf("report does not warn %q:\n%s", want, out)
		}
	}
	if data, err := os.ReadFile(filepath.Join(cut, "summary.json")); err != nil || strings.Count(string(data), `"iteration"`) != 1 {
		t.Errorf("summary.json: want the one whole row, got %v:\n%s", err, data)
	}
	p = start(t, nil, "compare", cut, cut)
	if code, out := p.wait(t, time.Minute), p.out.String(); code != 0 || !strings.Contains(out, "summary.csv:3: the last line has no newline") {
		t.Errorf("compare of a cut folder: exit %d, want 0 and the warning:\n%s", code, out)
	}

	for _, c := range []struct{ file, from, to, where string }{
		{"summary.csv", "\n1,1,1,primary,done,", "\n1,1,primary,done,", "summary.csv:2: "},
		{"timeseries/primary.csv", "\n1,2,", "\n1,2,\"x\"y,", "primary.csv:3: "},
	} {
		bad := strangerFolder(t)
		editFile(t, filepath.Join(bad, c.file), func(s string) string { return strings.Replace(s, c.from, c.to, 1) })
		p := start(t, nil, "report", bad)
		code, out := p.wait(t, time.Minute), p.out.String()
		if code == 0 || !strings.Contains(out, c.where) {
			t.Errorf("report of a damaged %s: exit %d, want non-zero and %q:\n%s", c.file, code, c.where, out)
		}
		if _, err := os.Stat(filepath.Join(bad, "report.html")); err == nil {
			t.Errorf("report of a damaged %s wrote report.html", c.file)
		}
		p = start(t, nil, "compare", strangerFolder(t), bad)
		code, out = p.wait(t, time.Minute), p.out.String()
		if code == 0 || !strings.Contains(out, c.where) {
			t.Errorf("compare with a damaged %s: exit %d, want non-zero and %q:\n%s", c.file, code, c.where, out)
		}
	}
}
