package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/spec"
)

// The judgement of each effect kind against each allowance: what is refused, with which
// flag, and that the allowance lets exactly that through.
func TestRefusedJudgesEachKind(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "shadow")
	if err := os.WriteFile(secret, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "shadowlink.sql")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	at := func(line int) spec.Pos { return spec.Pos{File: "plan.yaml", Line: line, Col: 3} }
	effects := []spec.Effect{
		{Kind: spec.RunsCode, Pos: at(1), What: "shell: make load"},
		{Kind: spec.ReadsFile, Pos: at(2), What: "sql_file inside.sql", Path: filepath.Join(dir, "inside.sql")},
		{Kind: spec.ReadsFile, Pos: at(3), What: "sql_file shadowlink.sql", Path: link},
		{Kind: spec.WritesFile, Pos: at(4), What: "capture out", Path: filepath.Join(outside, "out.qcap")},
		{Kind: spec.Connects, Pos: at(5), What: "snmp", Addr: "127.0.0.1:1161"},
		{Kind: spec.ChangesServer, Pos: at(6), What: "sql on db: SET GLOBAL general_log"},
		{Kind: spec.ReadsEnv, Pos: at(7), What: "env.AWS_SECRET_ACCESS_KEY", Env: "AWS_SECRET_ACCESS_KEY"},
	}
	cases := []struct {
		name  string
		allow Allow
		want  []string // the flags refused, in order
	}{
		// spec records a ReadsEnv only for a variable --allow-env did not pass: it is always refused
		{"own plan, nothing allowed", Allow{}, []string{"--allow-shell", "--allow-path " + outside, "--allow-path " + outside, "--allow-env AWS_SECRET_ACCESS_KEY"}},
		{"a folder, nothing allowed", Allow{Folder: true}, []string{"--allow-shell", "--allow-path " + outside, "--allow-path " + outside, "--allow-address 127.0.0.1:1161", "--allow-server-changes", "--allow-env AWS_SECRET_ACCESS_KEY"}},
		{"everything allowed", Allow{Folder: true, Shell: true, Paths: []string{outside}, Addresses: []string{"127.0.0.1:1161"}, ServerChanges: true}, []string{"--allow-env AWS_SECRET_ACCESS_KEY"}},
		{"the results folder is writable", Allow{Shell: true, Results: outside}, []string{"--allow-env AWS_SECRET_ACCESS_KEY"}},
		{"another address", Allow{Folder: true, Shell: true, Paths: []string{outside}, Addresses: []string{"127.0.0.1:161"}, ServerChanges: true}, []string{"--allow-address 127.0.0.1:1161", "--allow-env AWS_SECRET_ACCESS_KEY"}},
	}
	for _, c := range cases {
		items := Refused(effects, dir, c.allow)
		var got []string
		for _, it := range items {
			got = append(got, it.Flag)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: refused %q, want %q", c.name, got, c.want)
		}
	}
	items := Refused(effects, dir, Allow{})
	if why := items[1].Why; !strings.Contains(why, secret+" (through a symlink)") {
		t.Errorf("the symlink's refusal does not name where it leads: %s", why)
	}
	msg := (&Refusal{Items: items}).Error()
	for _, w := range []string{"plan.yaml:1:3", "plan.yaml:3:3", "nothing was run", "--allow-shell"} {
		if !strings.Contains(msg, w) {
			t.Errorf("refusal message lacks %q:\n%s", w, msg)
		}
	}
}
