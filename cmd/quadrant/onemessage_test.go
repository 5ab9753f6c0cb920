package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// Everything a folder's rerun would stop for comes in one message: an environment variable
// it reads is one more line of the trust check's refusal (never "export it", which hands a
// secret to a stranger's plan), beside its code and its paths; explain, without a flag,
// lists them all.
func TestFolderRefusalsComeInOneMessage(t *testing.T) {
	outside := t.TempDir()
	plan := plantest.Sandbox("onemsg", "{dir: "+outside+"}", `
setup:
  - sql: "SELECT '${{ env.QPW_UNSET_SECRET }}', '${{ env.QPW_SET_SECRET }}'"
  - shell: "true"
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`)
	dir := hostileFolder(t, plan, map[string]string{})
	out := t.TempDir()
	env := []string{"QPW_SET_SECRET=hunter2-victim"}
	p := start(t, env, "rerun", dir, "--out", out)
	if code := p.wait(t, time.Minute); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, p.out.String())
	}
	text := p.out.String()
	for _, want := range []string{"--allow-env QPW_UNSET_SECRET", "--allow-env QPW_SET_SECRET", "--allow-shell", "--allow-path " + outside} {
		if !strings.Contains(text, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "export it") || strings.Contains(text, "hunter2") {
		t.Errorf("the refusal tells the user to export a secret for the folder, or shows its value:\n%s", text)
	}
	p = start(t, env, "explain", dir)
	code := p.wait(t, time.Minute)
	text = p.out.String()
	if code != 0 || !strings.Contains(text, "Beyond its folder and its targets: 4") || !strings.Contains(text, "--allow-env QPW_UNSET_SECRET") {
		t.Fatalf("explain without a flag: exit %d, does not list all four:\n%s", code, text)
	}
	// Once allowed, the variable that is not set is the user's to set or default.
	p = start(t, env, "explain", filepath.Join(dir, "plan.yaml"), "--allow-env", "QPW_UNSET_SECRET", "--allow-env", "QPW_SET_SECRET")
	if code := p.wait(t, time.Minute); code != 2 || !strings.Contains(p.out.String(), "QPW_UNSET_SECRET is not set") {
		t.Fatalf("explain with --allow-env of an unset variable: exit %d, want 2 saying it is not set:\n%s", code, p.out.String())
	}
}

// The README's storage-axis example puts sandboxes outside the plan's folder: it says the
// --allow-path each directory needs, which a run of it is refused without.
func TestReadmeStorageAxisSaysAllowPath(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, storage, _ := strings.Cut(string(readme), "**The storage under test.**")
	storage, _, _ = strings.Cut(storage, "\n\n")
	m := regexp.MustCompile("`matrix: \\{storage: \\[([^]]+)\\]\\}`").FindStringSubmatch(storage)
	if m == nil {
		t.Fatalf("no storage axis example in:\n%s", storage)
	}
	// the example's directories, made here so that the plan validates
	var dirs []string
	for _, d := range strings.Split(m[1], ",") {
		dirs = append(dirs, strings.TrimSpace(d))
	}
	base := t.TempDir()
	plan := plantest.Sandbox("storage", `{dir: "${{ matrix.storage }}"}`, `
matrix:
  storage: [`+filepath.Join(base, "a")+`, `+filepath.Join(base, "b")+`]
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`)
	os.Mkdir(filepath.Join(base, "a"), 0o755)
	os.Mkdir(filepath.Join(base, "b"), 0o755)
	code, stdout, stderr := runCLI("explain", writePlan(t, plan))
	if code != 0 || !strings.Contains(stdout, "--allow-path "+filepath.Join(base, "a")) {
		t.Fatalf("explain of the storage axis: exit %d, does not ask for --allow-path:\n%s%s", code, stdout, stderr)
	}
	for _, d := range dirs {
		if !strings.Contains(storage, "--allow-path "+d) {
			t.Errorf("README's storage axis example does not say it needs --allow-path %s:\n%s", d, storage)
		}
	}
}
