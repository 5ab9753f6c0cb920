package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

const oneSelect = `iteration:
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], duration: 1s}
`

// noFileHolds fails when a file under dir contains secret.
func noFileHolds(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(secret)) {
			t.Errorf("%s contains the secret", path)
		}
		return nil
	})
}

// A setup sql: that selects the value of an environment variable, kept with save_as: the
// saved CSV holds *** where the value was, as log.txt and plan.yaml do.
func TestSaveAsMasksSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const secret = "Qpw-9f3k2-hunter"
	plan := writePlan(t, plantest.Sandbox("savesecret", "", `setup:
  - sql: "SELECT '${{ env.QPW }}' AS pw, 'x${{ env.QPW }}y' AS around, 'plain' AS other"
    save_as: leak
`+oneSelect))
	root := t.TempDir()
	p := start(t, []string{"QPW=" + secret}, "run", plan, "--out", root)
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out.String())
	}
	dir := findRunDir(t, root)
	saved, _ := filepath.Glob(filepath.Join(dir, results.SavedDir, "leak-*.csv"))
	if len(saved) != 1 {
		t.Fatalf("saved files: %v", saved)
	}
	data, _ := os.ReadFile(saved[0])
	if want := "pw,around,other\n***,x***y,plain\n"; string(data) != want {
		t.Errorf("%s:\n%s\nwant:\n%s", saved[0], data, want)
	}
	noFileHolds(t, dir, secret)
	if strings.Contains(p.out.String(), secret) {
		t.Errorf("the console shows the secret:\n%s", p.out.String())
	}
}

// --target takes its password from ${{ env.NAME }} or a passwordFile=, so none is on the
// command line: run, rerun, explain, capture and export reach a real server that way, with no warning and
// no password in the results; a password written in the DSN still works, with one warning.
func TestTargetPasswordOffTheCommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	c := sandboxtest.Start(t, sandbox.Options{Name: "tgtpw"})
	pw := c.Password()
	addr := fmt.Sprintf("tcp(127.0.0.1:%d)/", c.Primary.Port())
	plan := writePlan(t, plantest.DSN("tgtpw", "nobody:x@tcp(192.0.2.1:3306)/", oneSelect))
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"BENCH_PW=" + pw}
	viaEnv := "db=root:${{ env.BENCH_PW }}@" + addr
	viaFile := "db=root@" + addr + "?passwordFile=" + pwFile

	root := t.TempDir()
	p := start(t, env, "run", plan, "--out", root, "--target", viaEnv)
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("run with ${{ env.BENCH_PW }}: exit %d:\n%s", code, p.out.String())
	}
	if out := p.out.String(); strings.Contains(out, "warning: the password") || strings.Contains(out, pw) {
		t.Errorf("run with ${{ env.BENCH_PW }} warns or shows the password:\n%s", out)
	}
	runDir := findRunDir(t, root)
	noFileHolds(t, runDir, pw)
	if _, err := sandboxtest.DB(t, c.Primary.DSN(""), 0).Exec("CREATE DATABASE history"); err != nil {
		t.Fatal(err)
	}
	p = start(t, nil, "export", runDir, "--dsn", "root@"+addr+"history?passwordFile="+pwFile)
	if code := p.wait(t, time.Minute); code != 0 || strings.Contains(p.out.String(), "warning: the password") {
		t.Fatalf("export with passwordFile=: exit %d:\n%s", code, p.out.String())
	}

	// a rerun's plan is a stranger's, which reads no environment unless allowed: the
	// --target's own ${{ env.NAME }} is the user's, expanded before the plan sees it
	p = start(t, env, "rerun", runDir, "--out", t.TempDir(), "--target", viaEnv)
	if code := p.wait(t, 3*time.Minute); code != 0 || strings.Contains(p.out.String(), pw) {
		t.Fatalf("rerun with ${{ env.BENCH_PW }}: exit %d:\n%s", code, p.out.String())
	}
	p = start(t, nil, "explain", plan, "--target", viaFile)
	if code := p.wait(t, time.Minute); code != 0 || strings.Contains(p.out.String(), "warning: the password") {
		t.Fatalf("explain with passwordFile=: exit %d:\n%s", code, p.out.String())
	}
	qcap := filepath.Join(t.TempDir(), "t.qcap")
	p = start(t, env, "capture", "--target", viaEnv, "--duration", "1s", "--out", qcap)
	if code := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("capture with ${{ env.BENCH_PW }}: exit %d:\n%s", code, p.out.String())
	}

	p = start(t, nil, "validate", plan, "--target", "db=root:"+pw+"@"+addr, "--target", "other=root:"+pw+"@"+addr)
	out := p.out.String()
	if code := p.wait(t, time.Minute); code != exitInvalid { // the plan has no target "other"
		t.Fatalf("validate: exit %d:\n%s", code, out)
	}
	out = p.out.String()
	if n := strings.Count(out, "warning: the password of --target db, other is on the command line"); n != 1 || !strings.Contains(out, "${{ env.NAME }}") || !strings.Contains(out, "passwordFile=") {
		t.Errorf("a password on the command line: want one warning naming both targets and the better forms:\n%s", out)
	}
	p = start(t, nil, "run", plan, "--out", root, "--target", "db=root:${{ env.NO_SUCH_PW }}@"+addr)
	if code := p.wait(t, time.Minute); code != exitInvalid || !strings.Contains(p.out.String(), "${{ env.NO_SUCH_PW }}: not set") {
		t.Errorf("an unset variable: exit %d:\n%s", code, p.out.String())
	}
}

// A plan's tls: {mode: disabled} and allow_public_key_retrieval do not follow its target
// to the server the user names with --target: the user's DSN asks for TLS (tls=skip-verify)
// and gets it from a sandbox that refuses plaintext, and log.txt says what was dropped.
func TestTargetOverrideDropsWeakTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	c := sandboxtest.Start(t, sandbox.Options{Name: "tgttls", TLS: true})
	plan := writePlan(t, `version: 1
name: tgttls
targets:
  db:
    dsn: "nobody:x@tcp(192.0.2.1:3306)/"
    tls: {mode: disabled}
    allow_public_key_retrieval: true
`+oneSelect)
	root := t.TempDir()
	over := fmt.Sprintf("db=root:${{ env.TLS_PW }}@tcp(127.0.0.1:%d)/?tls=skip-verify", c.Primary.Port())
	p := start(t, []string{"TLS_PW=" + c.Password()}, "run", plan, "--out", root, "--target", over)
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out.String())
	}
	dir := findRunDir(t, root)
	ri, err := results.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ri.Targets) != 1 || ri.Targets[0].TLS == nil || ri.Targets[0].TLS.Version == "" {
		t.Fatalf("run.json: the target's connections are not over TLS: %+v", ri.Targets)
	}
	log, _ := os.ReadFile(filepath.Join(dir, results.LogFile))
	if !bytes.Contains(log, []byte("target db: --target points it at your server, so the plan's tls: (the DSN's tls= parameter decides) and allow_public_key_retrieval are dropped")) {
		t.Errorf("log.txt does not say what was dropped:\n%s", log)
	}
	planYAML, _ := os.ReadFile(filepath.Join(dir, results.PlanFile))
	if bytes.Contains(planYAML, []byte("allow_public_key_retrieval")) || bytes.Contains(planYAML, []byte("disabled")) {
		t.Errorf("plan.yaml keeps the dropped settings:\n%s", planYAML)
	}
}

// A verify: step whose targets return a secret the plan's setup put in a table: queries.csv
// and query-details.jsonl quote the differing rows with *** where the secret was.
func TestVerifyStepMasksSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	const secret = "Vpw-7d1x-hunter"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte("SELECT v FROM d.t;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte(`version: 1
name: verifysecret
targets:
  old: {sandbox: {}}
  new: {sandbox: {}}
setup:
  - {target: old, sql: "CREATE DATABASE d; CREATE TABLE d.t (v VARCHAR(64)); INSERT INTO d.t VALUES ('${{ env.QPW }}')"}
  - {target: new, sql: "CREATE DATABASE d; CREATE TABLE d.t (v VARCHAR(64)); INSERT INTO d.t VALUES ('other')"}
  - verify: {traffic: q.sql, targets: [old, new], repeat: 0}
iteration:
  target: new
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], events: 10}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	p := start(t, []string{"QPW=" + secret}, "run", plan, "--out", root)
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out.String())
	}
	run := findRunDir(t, root)
	details, err := os.ReadFile(filepath.Join(run, results.QueryDetailsFile))
	if err != nil || !bytes.Contains(details, []byte(`"***"`)) {
		t.Fatalf("query-details.jsonl does not show the masked row (%v):\n%s", err, details)
	}
	noFileHolds(t, run, secret)
}

// quadrant kube passes --target on to the pods as given: a ${{ env.NAME }} there is each
// pod's to expand from the Secret (not set here, no error), and a passwordFile= of this
// machine is refused, saying why.
func TestKubeTargetPasswordStaysForThePods(t *testing.T) {
	plan := writePlan(t, plantest.DSN("kubepw", "nobody:x@tcp(192.0.2.1:3306)/", `iteration:
  workload: {transactions: [{name: one, statements: [{sql: "SELECT 1"}]}], threads: 2, duration: 1s}
`))
	var out, errOut bytes.Buffer
	args := []string{"kube", plan, "--shards", "2", "--image", "quadrant:test", "--secret", "db-creds", "--deadline", "30m"}
	if code := run(append(args, "--target", "db=bench:${{ env.KUBE_ONLY_PW }}@tcp(db1:3306)/"), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "--target=db=bench:${{ env.KUBE_ONLY_PW }}@tcp(db1:3306)/") || strings.Contains(errOut.String(), "warning") {
		t.Errorf("the pods do not get the --target as given, or a warning:\n%s\n%s", out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run(append(args, "--target", "db=bench@tcp(db1:3306)/?passwordFile=/etc/pw"), &out, &errOut); code != exitInvalid ||
		!strings.Contains(errOut.String(), "the pods cannot read a file of this machine") {
		t.Errorf("passwordFile= with kube: exit %d: %s", code, errOut.String())
	}
}
