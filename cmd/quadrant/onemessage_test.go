package main

import (
	"path/filepath"
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
