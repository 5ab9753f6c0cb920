package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const identityRunJSON = `{"tool":"quadrant","version":"v1","plan":"flush","plan_file":"/home/a/flush.yaml","command":["quadrant","run","flush.yaml"],
"host":"dbhost","start":"2026-11-30T12:00:00Z","status":"done","report":{"formats":null,"per_variable":false},
"machine":{"cpu":"EPYC 7B13","cores":8},
"targets":[{"name":"db","kind":"dsn","address":"u@tcp(db:3306)/","flavor":"MariaDB","server_version":"10.11.19",
 "variables_before":{"innodb_buffer_pool_size":"134217728","innodb_flush_log_at_trx_commit":"1"},"storage_class":"nvme"}],
"iterations":[{"index":1,"repeat":1,"status":"done","start":"2026-11-30T12:00:00Z"}]}`

func identityFolder(t *testing.T, runJSON, summary string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{RunFile: runJSON, SummaryFile: summary} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A folder's identity is its results': the same wherever it was copied, however run.json
// was indented or invoked; another summary or another run.json field is another identity.
func TestFolderIdentity(t *testing.T) {
	summary := "iteration,target,tps\n1,db,1000\n"
	id := func(runJSON, summary string) string {
		s, err := FolderIdentity(identityFolder(t, runJSON, summary))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := id(identityRunJSON, summary)
	var v map[string]any
	if err := json.Unmarshal([]byte(identityRunJSON), &v); err != nil {
		t.Fatal(err)
	}
	v["plan_file"], v["command"] = "elsewhere/flush.yaml", []string{"quadrant", "rerun", "x"}
	indented, _ := json.MarshalIndent(v, "", "    ")
	if got := id(string(indented), summary); got != base {
		t.Errorf("a copy invoked elsewhere, run.json indented: identity %s, want %s", got, base)
	}
	if got := id(identityRunJSON, "iteration,target,tps\n1,db,1001\n"); got == base {
		t.Errorf("another tps: the same identity")
	}
	if got := id(strings.Replace(identityRunJSON, `"status":"done"`, `"status":"failed"`, 1), summary); got == base {
		t.Errorf("another status: the same identity")
	}
}

// The environment carries what run.json says of the machine and the servers, fields this
// version has no name for included (another version's CPU and storage, say).
func TestEnvironmentCarriesWhatRunJSONHas(t *testing.T) {
	env, err := EnvironmentOf(identityFolder(t, identityRunJSON, "iteration\n"))
	if err != nil {
		t.Fatal(err)
	}
	if env.Host != "dbhost" || len(env.Targets) != 1 || env.Targets[0].ServerVersion != "10.11.19" || env.Targets[0].VariablesSHA256 == "" {
		t.Errorf("environment %+v", env)
	}
	if string(env.Extra["machine"]) != `{"cores":8,"cpu":"EPYC 7B13"}` || len(env.Extra) != 1 {
		t.Errorf("extra %q: want the machine alone", env.Extra)
	}
	if string(env.Targets[0].Extra["storage_class"]) != `"nvme"` || len(env.Targets[0].Extra) != 1 {
		t.Errorf("target extra %q: want storage_class alone", env.Targets[0].Extra)
	}
}

// Records are read back oldest rerun first; one that is a symlink (out of a stranger's
// folder) or not a record is a warning and the others still count; a reproductions/ that
// is a symlink is refused whole.
func TestReproductionsReadBackAndRefuseLinks(t *testing.T) {
	dir := t.TempDir()
	rd := filepath.Join(dir, ReproductionsDir)
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i, host := range []string{"late", "early"} {
		r := &Reproduction{Tool: "quadrant", Rerun: ReproducedFolder{Start: start.Add(time.Duration(-i) * time.Hour), Environment: Environment{Host: host}},
			Effects: []ReproducedEffect{{Axis: "flush", Value: "2", Base: "1", Metric: "tps", Verdict: "reproduced"}}}
		if err := WriteReproduction(filepath.Join(rd, RecordName(r)), r); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(t.TempDir(), "secret.json")
	os.WriteFile(secret, []byte(`{"tool":"quadrant"}`), 0o644)
	if err := os.Symlink(secret, filepath.Join(rd, "zz-link.json")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(rd, "zz-bad.json"), []byte("not json"), 0o644)
	// a hard link to a file outside the folder: the same secret under a name of the folder's
	if err := os.Link(secret, filepath.Join(rd, "zz-hard.json")); err != nil {
		t.Fatal(err)
	}
	recs, warnings := Reproductions(dir)
	if len(recs) != 2 || recs[0].Rerun.Environment.Host != "early" || recs[1].Rerun.Environment.Host != "late" {
		t.Fatalf("records %+v, want early then late", recs)
	}
	if !strings.HasSuffix(recs[0].File, "-early.json") || len(warnings) != 3 ||
		!strings.Contains(strings.Join(warnings, "\n"), "zz-link.json is a symbolic link") || !strings.Contains(strings.Join(warnings, "\n"), "zz-hard.json") || !strings.Contains(strings.Join(warnings, "\n"), "zz-bad.json: not a reproduction record") {
		t.Errorf("file %q, warnings %q: want the link and the bad file said", recs[0].File, warnings)
	}

	other := t.TempDir()
	if err := os.Symlink(rd, filepath.Join(other, ReproductionsDir)); err != nil {
		t.Fatal(err)
	}
	if recs, warnings := Reproductions(other); len(recs) != 0 || len(warnings) != 1 {
		t.Errorf("a linked reproductions/: %d records, warnings %q", len(recs), warnings)
	}
}

// A record goes into the folder's reproductions/, made when missing; one planted as a
// symbolic link is refused, and nothing is written where it points.
func TestRecordIntoRefusesAPlantedLink(t *testing.T) {
	dir := t.TempDir()
	r := &Reproduction{Tool: "quadrant", Rerun: ReproducedFolder{Start: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Environment: Environment{Host: "db7"}}}
	path, err := RecordInto(dir, r)
	if err != nil || path != filepath.Join(dir, ReproductionsDir, "20261201-090000-db7.json") {
		t.Fatalf("RecordInto: %q, %v", path, err)
	}
	if got, warnings := Reproductions(dir); len(got) != 1 || got[0].Rerun.Environment.Host != "db7" || got[0].File != path || len(warnings) != 0 {
		t.Fatalf("read back: %+v, %q", got, warnings)
	}
	stranger, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(stranger, ReproductionsDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := RecordInto(stranger, r); err == nil || !strings.Contains(err.Error(), "a symbolic link") {
		t.Errorf("a planted reproductions/ link: %v, want refused", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
}
