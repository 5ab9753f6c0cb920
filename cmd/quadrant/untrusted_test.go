package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A hostile results folder, as a victim downloads it: plan.yaml, a run.json, and the files
// the attacker ships beside them. Each test below is one attack issue 34 tried, run as the
// victim would (rerun, explain), and the allowance that makes the legitimate use work.

// hostileFolder writes a results folder holding plan and files (name -> content; a
// content starting with "->" makes a symlink to what follows); {{DIR}} in plan is the
// folder's path.
func hostileFolder(t *testing.T, plan string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["plan.yaml"] = strings.ReplaceAll(plan, "{{DIR}}", dir)
	files["run.json"] = `{"name": "hostile"}`
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(content, "->"); ok {
			err = os.Symlink(target, path)
		} else {
			err = os.WriteFile(path, []byte(content), 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// refused runs quadrant and wants exit 2 with every line of want in its output and
// nothing written under out.
func refused(t *testing.T, out string, want []string, args ...string) string {
	t.Helper()
	p := start(t, nil, args...)
	code := p.wait(t, time.Minute)
	text := p.out.String()
	if code != 2 {
		t.Fatalf("quadrant %s: exit %d, want 2:\n%s", strings.Join(args, " "), code, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("quadrant %s: the refusal does not say %q:\n%s", strings.Join(args, " "), w, text)
		}
	}
	if out != "" {
		if m, _ := filepath.Glob(filepath.Join(out, "*")); len(m) != 0 {
			t.Errorf("a refused run wrote %v", m)
		}
	}
	noStackTrace(t, text)
	return text
}

func absent(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("%s: %s exists", what, path)
	}
}

// sysbench runs any Lua it is given, and Lua's os.execute reaches the machine: a folder's
// script is code, refused without --allow-shell by rerun, listed by explain, run by neither.
// With --allow-shell it is the user's choice, and the script runs.
func TestFolderLuaScriptIsCode(t *testing.T) {
	sandboxtest.SkipShort(t) // its allowed rerun starts a sandbox
	marker := filepath.Join(t.TempDir(), "lua-ran")
	lua := `os.execute("touch ` + marker + `")
function event() end
`
	dir := hostileFolder(t, plantest.Sandbox("lua", "", `
iteration:
  workload: {sysbench: {script: evil.lua}, duration: 2s}
`), map[string]string{"evil.lua": lua})
	out := t.TempDir()
	refused(t, out, []string{"plan.yaml:6:33", "sysbench runs the Lua script evil.lua", "--allow-shell"}, "rerun", dir, "--out", out)
	absent(t, marker, "rerun without --allow-shell ran the script")
	code, stdout, stderr := runCLI("explain", filepath.Join(dir, "plan.yaml"))
	if code != 0 || !strings.Contains(stdout, "sysbench runs the Lua script evil.lua") || !strings.Contains(stdout, "[--allow-shell]") {
		t.Fatalf("explain: exit %d, does not list the script as code:\n%s%s", code, stdout, stderr)
	}
	absent(t, marker, "explain ran the script")

	p := start(t, nil, "rerun", dir, "--out", out, "--allow-shell")
	p.wait(t, 3*time.Minute)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("with --allow-shell the user's script should run:\n%s", p.out.String())
	}
}

// A folder's sandbox basedir holds server binaries of its own: running them is code.
// Nothing of the folder runs at explain, and rerun refuses it before any server starts.
func TestFolderBasedirIsCode(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "server-ran")
	fake := "#!/bin/sh\ntouch " + marker + "\necho 'mariadbd  Ver 10.11.99-MariaDB'\n"
	dir := hostileFolder(t, plantest.Sandbox("basedir", `{basedir: "{{DIR}}", config: {max_connections: 10}}`, `
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`), map[string]string{"sbin/mariadbd": fake, "bin/mariadb-install-db": fake})
	out := t.TempDir()
	runCLI("validate", filepath.Join(dir, "plan.yaml"))
	absent(t, marker, "validate ran the folder's server binary")
	runCLI("explain", filepath.Join(dir, "plan.yaml"))
	absent(t, marker, "explain ran the folder's server binary")
	refused(t, out, []string{"sandbox db runs the server binaries under basedir", "--allow-shell"}, "rerun", dir, "--out", out)
	absent(t, marker, "rerun ran the folder's server binary")
	// Allowed, the binaries are the user's choice: quadrant runs them (this fake one then
	// fails to be a server, which the run reports).
	p := start(t, nil, "rerun", dir, "--out", out, "--allow-shell")
	if code := p.wait(t, 2*time.Minute); code == 0 {
		t.Fatalf("a fake server binary ran as a sandbox:\n%s", p.out.String())
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("with --allow-shell the basedir's binaries should run:\n%s", p.out.String())
	}
}

// A folder's sandbox run_as picks whose files on this host the server (and so the folder's
// SQL) can reach: the folder's choice of OS user is refused without --allow-shell, with its
// line; --run-as on the command line is the user's own.
func TestFolderRunAsNeedsAllow(t *testing.T) {
	dir := hostileFolder(t, plantest.Sandbox("runas", `{run_as: dba}`, `
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`), map[string]string{})
	out := t.TempDir()
	refused(t, out, []string{"plan.yaml:", "runs its server as the OS user dba", "--allow-shell"}, "rerun", dir, "--out", out)
}

// Every file a folder's plan names stays in the folder: a symlink to a secret (refused as
// a link in the folder by rerun, said by explain), an absolute path, a .., a capture
// written outside, sandbox data outside. All are listed at once,
// each with its line and the --allow-path that allows it; nothing is read or written.
// --allow-path lets the user's own directory in.
func TestFolderPathsStayInside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "shadow")
	if err := os.WriteFile(secret, []byte("root:$6$hash-of-the-victim:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bashrc := filepath.Join(outside, ".bashrc")
	dir := hostileFolder(t, plantest.Sandbox("paths", "{dir: "+outside+"}", `
setup:
  - sql_file: shadowlink.sql
  - sql_file: `+secret+`
  - sql_file: ../`+filepath.Base(outside)+`/shadow
  - capture: {out: ../`+filepath.Base(outside)+`/.bashrc, duration: 1s}
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`), map[string]string{"shadowlink.sql": "->" + secret})
	os.Rename(dir, filepath.Join(filepath.Dir(outside), filepath.Base(dir))) // beside outside, so ../ reaches it
	dir = filepath.Join(filepath.Dir(outside), filepath.Base(dir))
	t.Cleanup(func() { os.RemoveAll(dir) })
	out := t.TempDir()
	// A link in the folder is refused before its plan is read (issue 45): whatever the plan
	// says of it, a results folder holds its own files.
	text := refused(t, out, []string{"shadowlink.sql is a symbolic link", "remove it"}, "rerun", dir, "--out", out)
	if strings.Contains(text, "victim") {
		t.Fatalf("the secret's content is in the output:\n%s", text)
	}
	link := filepath.Join(dir, "shadowlink.sql")
	os.Remove(link)
	os.WriteFile(link, []byte("SELECT 1;\n"), 0o644)
	text = refused(t, out, []string{
		"plan.yaml:4:23: sandbox db's data directory under " + outside + " writes " + outside + ", outside the plan's folder",
		"plan.yaml:7:15: sql_file " + secret + " reads " + secret + ",",
		"plan.yaml:8:15: sql_file ../",
		"plan.yaml:9:20: capture out ../" + filepath.Base(outside) + "/.bashrc writes " + bashrc + ",",
		"--allow-path " + outside,
	}, "rerun", dir, "--out", out)
	if strings.Contains(text, "victim") {
		t.Fatalf("the secret's content is in the output:\n%s", text)
	}
	absent(t, bashrc, "the capture wrote outside the folder")
	os.Remove(link)
	os.Symlink(secret, link)
	// explain refuses a folder holding a link as rerun does, reading nothing of it.
	code, stdout, stderr := runCLI("explain", filepath.Join(dir, "plan.yaml"))
	if code != exitInvalid || strings.Contains(stdout+stderr, "victim") || !strings.Contains(stderr, "shadowlink.sql is a symbolic link") {
		t.Fatalf("explain of a folder with a link: exit %d, want 2 naming the link and nothing of its file:\n%s%s", code, stdout, stderr)
	}
	os.Remove(link)
	os.WriteFile(link, []byte("SELECT 1;\n"), 0o644)
	// explain lists a stranger's statements, but not those of a file outside its folder.
	code, stdout, stderr = runCLI("explain", filepath.Join(dir, "plan.yaml"))
	if code != 0 || strings.Contains(stdout+stderr, "victim") || !strings.Contains(stdout, "outside the plan's folder: explain does not read it") {
		t.Fatalf("explain: exit %d, read or printed the file outside the folder:\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI("explain", filepath.Join(dir, "plan.yaml"), "--allow-path", outside)
	if code != 0 || !strings.Contains(stdout, "Beyond its folder and its targets: nothing the command line has not allowed") {
		t.Fatalf("explain --allow-path %s: exit %d, still refuses:\n%s", outside, code, stdout)
	}
}

// extends: is read as the plan loads, so it is confined then, before a byte is read: a
// folder extending /etc/shadow used to print its lines as unknown keys.
func TestFolderExtendsStaysInside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(outside, []byte("root:hash-of-the-victim\n"), 0o600)
	dir := hostileFolder(t, "extends: "+outside+"\n"+plantest.Sandbox("ext", "", `
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`), map[string]string{})
	code, stdout, stderr := runCLI("validate", filepath.Join(dir, "plan.yaml"))
	if code != 2 || !strings.Contains(stderr, "plan.yaml:1:10") || !strings.Contains(stderr, "--allow-path") || strings.Contains(stdout+stderr, "victim") {
		t.Fatalf("validate: exit %d, want 2 at the extends naming --allow-path, without the file's content:\n%s%s", code, stdout, stderr)
	}
}

// A folder's plan sees only the environment variables the user passes: the value of one it
// names would reach wherever the plan sends it (saved/*.csv, an SNMP community, SQL).
func TestFolderEnvNeedsAllowEnv(t *testing.T) {
	plan := plantest.Sandbox("env", "", `
setup:
  - sql: "SELECT '${{ env.QPW_SECRET }}'"
    save_as: leak
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`)
	dir := hostileFolder(t, plan, map[string]string{})
	out := t.TempDir()
	p := start(t, []string{"QPW_SECRET=hunter2-victim"}, "rerun", dir, "--out", out)
	if code := p.wait(t, time.Minute); code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, p.out.String())
	}
	if text := p.out.String(); !strings.Contains(text, "plan.yaml:6:27") || !strings.Contains(text, "--allow-env QPW_SECRET") || strings.Contains(text, "hunter2") {
		t.Fatalf("the refusal does not name the line and --allow-env, or shows the value:\n%s", text)
	}
	p = start(t, []string{"QPW_SECRET=hunter2-victim"}, "explain", filepath.Join(dir, "plan.yaml"), "--allow-env", "QPW_SECRET")
	if code := p.wait(t, time.Minute); code != 0 || strings.Contains(p.out.String(), "hunter2") {
		t.Fatalf("explain --allow-env: exit %d (want 0, the value masked):\n%s", code, p.out.String())
	}
	// The user's own plan reads the environment whole.
	p = start(t, []string{"QPW_SECRET=hunter2-victim"}, "validate", writePlan(t, plan))
	if code := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("one's own plan: exit %d:\n%s", code, p.out.String())
	}
}

// An SNMP agent is an address the folder chose, not a target the user named.
func TestFolderSNMPNeedsAllowAddress(t *testing.T) {
	plan := `version: 1
name: snmp
targets:
  db: {sandbox: {}, snmp: {address: "127.0.0.1:1161", community: public}}
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
watch: {host: [load1]}
`
	dir := hostileFolder(t, plan, map[string]string{})
	out := t.TempDir()
	refused(t, out, []string{"plan.yaml:4:37", "over SNMP from 127.0.0.1:1161", "--allow-address 127.0.0.1:1161"}, "rerun", dir, "--out", out)
	code, stdout, _ := runCLI("explain", filepath.Join(dir, "plan.yaml"), "--allow-address", "127.0.0.1:1161")
	if code != 0 || !strings.Contains(stdout, "nothing the command line has not allowed") {
		t.Fatalf("explain --allow-address: exit %d:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI("explain", writePlan(t, plan))
	if code != 0 || !strings.Contains(stdout, "nothing the command line has not allowed") {
		t.Fatalf("one's own plan names its agents: exit %d:\n%s", code, stdout)
	}
}

// copyFile copies a file of the repository into a test's plan folder.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A run that fails before it measures anything (here: its server does not answer) leaves no
// results folder to clutter results/, and says why on stderr with the end of its log.
func TestFailedBeforeMeasuringLeavesNoFolder(t *testing.T) {
	plan := writePlan(t, plantest.DSN("unreachable", "root:pw@tcp(127.0.0.1:1)/", `
iteration:
  workload: {builtin: oltp_point_select, duration: 1s}
`))
	out := t.TempDir()
	p := start(t, nil, "run", plan, "--out", out)
	if code := p.wait(t, 2*time.Minute); code != 3 {
		t.Fatalf("exit %d, want 3:\n%s", code, p.out.String())
	}
	if m, _ := filepath.Glob(filepath.Join(out, "*")); len(m) != 0 {
		t.Fatalf("a run that measured nothing left %v", m)
	}
	if text := p.out.String(); !strings.Contains(text, "nothing was measured") || !strings.Contains(text, "127.0.0.1:1") {
		t.Fatalf("stderr does not say why no folder is kept, nor what failed:\n%s", text)
	}
}
