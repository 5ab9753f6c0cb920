package executor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// runLoaded loads the plan in dir, lets swap change the folder after validation, runs it
// on real sandboxes and returns the run's error and its log.txt.
func runLoaded(t *testing.T, dir string, swap func(), allow trust.Allow) (string, error) {
	t.Helper()
	p, err := spec.Load(filepath.Join(dir, "plan.yaml"), spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatalf("plan does not load: %v", err)
	}
	if swap != nil {
		swap()
	}
	out := filepath.Join(t.TempDir(), "results")
	w, err := results.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, runErr := Run(ctx, p, w, Options{Version: "test", SandboxDir: sandboxtest.Dir(t), Allow: allow})
	w.Close()
	log, _ := os.ReadFile(filepath.Join(out, results.LogFile))
	return string(log), runErr
}

const sqlFilePlan = `
version: 1
name: sqlfile-bounds
targets:
  db:
    sandbox:
      config: {max_allowed_packet: 1M}
setup:
  - sql_file: data.sql
iteration:
  workload: {builtin: oltp_point_select, duration: 1s, options: {tables: 1, table_size: 10}}
`

// A sql_file that the trust check found in the folder and that an earlier setup step
// swaps for a symlink out is not read: the step opens it through the plan's roots.
func TestSQLFileSymlinkPlantedAfterValidationLeadsNowhere(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MariaDB server binary (skipped under -short)")
	}
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.sql")
	os.WriteFile(secret, []byte("SELECT 'root:$6$hostilehash:19000:0:99999:7:::';\n"), 0o644)
	data := filepath.Join(dir, "data.sql")
	plan := strings.Replace(sqlFilePlan, "  - sql_file: data.sql",
		"  - shell: \"rm "+data+" && ln -s "+secret+" "+data+"\"\n  - sql_file: data.sql", 1)
	os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte(plan), 0o644)
	os.WriteFile(data, []byte("SELECT 1;\n"), 0o644)
	log, err := runLoaded(t, dir, nil, trust.Allow{Shell: true})
	if err == nil || !strings.Contains(err.Error(), "data.sql") {
		t.Fatalf("the run read a sql_file through a symlink planted after validation: %v", err)
	}
	if strings.Contains(log, "hostilehash") || strings.Contains(err.Error(), "hostilehash") {
		t.Errorf("the file behind the link reached the log or the error:\n%v\n%s", err, log)
	}
}

// A statement over the server's max_allowed_packet is refused before it is sent, with its
// line and size, and the server never sees it (its 1153 error would come after the 20 MB
// had been read whole and sent).
func TestSQLFileStatementOverMaxAllowedPacketIsRefusedBeforeItIsSent(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MariaDB server binary (skipped under -short)")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte(sqlFilePlan), 0o644)
	var b bytes.Buffer
	b.WriteString("CREATE DATABASE big;\nSELECT LENGTH('")
	b.Write(bytes.Repeat([]byte("x"), 20<<20))
	b.WriteString("');\n")
	os.WriteFile(filepath.Join(dir, "data.sql"), b.Bytes(), 0o644)
	_, err := runLoaded(t, dir, nil, trust.Allow{})
	if err == nil {
		t.Fatal("a 20 MB statement ran against a 1 MB max_allowed_packet")
	}
	for _, want := range []string{"line 2", "20971", "max_allowed_packet (1048576 bytes)", "it was not sent"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// A sql_file's text that the server quotes in a syntax error reaches the log and the
// error as a short single-line snippet only.
func TestSQLFileParseErrorQuotesOnlyASnippet(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MariaDB server binary (skipped under -short)")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte(sqlFilePlan), 0o644)
	lines := "root:$6$aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\nsecondlinesecret:*:19000:0:99999:7:::\n"
	os.WriteFile(filepath.Join(dir, "data.sql"), []byte(lines), 0o644)
	log, err := runLoaded(t, dir, nil, trust.Allow{})
	if err == nil {
		t.Fatal("the file ran")
	}
	if !strings.Contains(err.Error(), "1064") && !strings.Contains(err.Error(), "syntax") {
		t.Errorf("want the server's syntax error: %v", err)
	}
	for _, text := range []string{err.Error(), log} {
		if strings.Contains(text, "secondlinesecret") || strings.Contains(text, "99999:7:::\n") {
			t.Errorf("more than a snippet of the file was quoted:\n%s", text)
		}
	}
}

// A replay's file swapped for a symlink out by an earlier step is not read: the replay
// kind opens it through the plan's roots (workload.Env.Open).
func TestReplayFileSymlinkPlantedAfterValidationLeadsNowhere(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MariaDB server binary (skipped under -short)")
	}
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.sql")
	os.WriteFile(secret, []byte("SELECT 'hostilehash';\n"), 0o644)
	data := filepath.Join(dir, "traffic.sql")
	os.WriteFile(data, []byte("SELECT 1;\n"), 0o644)
	plan := `
version: 1
name: replay-link
targets:
  db: {sandbox: {}}
setup:
  - shell: "rm ` + data + ` && ln -s ` + secret + ` ` + data + `"
iteration:
  workload: {replay: {file: traffic.sql}, events: 1}
`
	os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte(plan), 0o644)
	log, err := runLoaded(t, dir, nil, trust.Allow{Shell: true})
	if !strings.Contains(log, "traffic.sql leads to "+secret+": outside the directories the plan may use") {
		t.Fatalf("the replay read its file through a symlink planted after validation: %v\n%s", err, log)
	}
	if strings.Contains(log, "hostilehash") {
		t.Errorf("the file behind the link was replayed:\n%s", log)
	}
}
