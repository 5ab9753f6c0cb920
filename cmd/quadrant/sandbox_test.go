package main

import (
	"bytes"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// `sandbox up --help` is up's usage once: its synopsis and text, then its options, without
// the other subcommands' (whose synopses repeated what the options say).
func TestSandboxUpHelpOnce(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"sandbox", "up", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	if strings.Count(text, "quadrant sandbox up [") != 1 || strings.Contains(text, "sandbox down [--all]") || strings.Contains(text, "sandbox list [--all]") {
		t.Errorf("up --help shows other subcommands' usage:\n%s", text)
	}
	for _, want := range []string{"-detach", "-print-env", "when \"up --detach\" returns 0 the servers are ready"} {
		if !strings.Contains(text, want) {
			t.Errorf("up --help lacks %q:\n%s", want, text)
		}
	}
}

// `sandbox up --detach` returns once the servers answer, with the same lines; the sandbox
// lives on after it returned until `sandbox down` stops its owner.
func TestSandboxUpDetach(t *testing.T) {
	sandboxtest.SkipShort(t)
	tmp := sandboxtest.Dir(t)
	env := []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}
	up := start(t, env, "sandbox", "up", "--name", "det", "--detach", "--print-env")
	if code := up.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("sandbox up --detach: exit %d:\n%s", code, up.out.String())
	}
	vars := map[string]string{}
	for _, l := range strings.Split(up.out.String(), "\n") {
		if kv, ok := strings.CutPrefix(l, "export "); ok {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = strings.Trim(v, "'")
		}
	}
	dsn := vars["QUADRANT_SANDBOX_DSN"]
	if dsn == "" || !strings.Contains(up.out.String(), "sandbox det is up (owner pid") {
		t.Fatalf("up --detach printed:\n%s", up.out.String())
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			start(t, env, "sandbox", "down", "det").wait(t, 3*time.Minute)
		}
	})
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(0)
	if err := db.Ping(); err != nil {
		t.Fatalf("the DSN up --detach printed does not connect once it returned: %v", err)
	}
	list := start(t, env, "sandbox", "list")
	if list.wait(t, time.Minute) != 0 || !strings.Contains(list.out.String(), "det ") {
		t.Fatalf("sandbox list does not show the detached sandbox:\n%s", list.out.String())
	}
	down := start(t, env, "sandbox", "down", "det")
	if code := down.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("sandbox down: exit %d:\n%s", code, down.out.String())
	}
	stopped = true
	if err := db.Ping(); err == nil {
		t.Errorf("the sandbox still answers after sandbox down")
	}
	if _, err := os.Stat(tmp + "/quadrant-" + strconv.Itoa(os.Geteuid()) + "/sandboxes/det.json"); err == nil {
		t.Errorf("sandbox down left the state file")
	}
}

// `sandbox up --galera 3 --detach --print-env` starts a Galera cluster of three whose nodes'
// export lines each reach a node of the same cluster, and `down` leaves no node answering.
func TestSandboxUpGalera(t *testing.T) {
	sandboxtest.SkipShort(t)
	tmp := sandboxtest.Dir(t)
	env := []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}
	up := start(t, env, "sandbox", "up", "--name", "gal", "--galera", "3", "--detach", "--print-env")
	if code := up.wait(t, 5*time.Minute); code != 0 {
		t.Fatalf("sandbox up --galera 3 --detach: exit %d:\n%s", code, up.out.String())
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			start(t, env, "sandbox", "down", "gal").wait(t, 3*time.Minute)
		}
	})
	vars := map[string]string{}
	for _, l := range strings.Split(up.out.String(), "\n") {
		if kv, ok := strings.CutPrefix(l, "export "); ok {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = strings.Trim(v, "'")
		}
	}
	var dbs []*sql.DB
	for _, prefix := range []string{"QUADRANT_SANDBOX_", "QUADRANT_SANDBOX_NODE2_", "QUADRANT_SANDBOX_NODE3_"} {
		dsn := vars[prefix+"DSN"]
		if dsn == "" {
			t.Fatalf("no %sDSN in:\n%s", prefix, up.out.String())
		}
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxIdleConns(0)
		var name, size string
		if err := db.QueryRow("SHOW STATUS LIKE 'wsrep_cluster_size'").Scan(&name, &size); err != nil || size != "3" {
			t.Errorf("%s: wsrep_cluster_size %q (%v), want 3", prefix, size, err)
		}
		dbs = append(dbs, db)
	}
	if vars["QUADRANT_SANDBOX_NODE2_NAME"] != "gal_node2" {
		t.Errorf("node 2's name %q, want gal_node2", vars["QUADRANT_SANDBOX_NODE2_NAME"])
	}
	if code := start(t, env, "sandbox", "down", "gal").wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("sandbox down gal: exit %d", code)
	}
	stopped = true
	for i, db := range dbs {
		if err := db.Ping(); err == nil {
			t.Errorf("node %d still answers after sandbox down", i+1)
		}
	}
}

// up's flags refuse what a Galera sandbox cannot be, before anything starts.
func TestSandboxUpGaleraRefusals(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--galera 3 --replicas 1", "nodes, not replicas"},
		{"--galera 3 --tls", "--galera with --tls"},
		{"--galera 2 --flavor mysql", "Galera sandboxes are MariaDB's"},
		{"--galera -1", "want the number of nodes"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"sandbox", "up"}, strings.Fields(tc.args)...)
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}
