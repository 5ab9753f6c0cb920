package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plan with a Galera sandbox validates, a step may name its nodes, and explain says
// which nodes run and how they join.
func TestExplainShowsGaleraNodes(t *testing.T) {
	f := filepath.Join(t.TempDir(), "plan.yaml")
	plan := "version: 1\nname: g\ntargets: {db: {sandbox: {galera: 3}}}\n" +
		"iteration:\n  before: [{sql: \"SELECT 1\", target: db_node3}]\n  workload: {builtin: oltp_read_only, duration: 5s}\n"
	if err := os.WriteFile(f, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("validate", f); code != exitOK {
		t.Fatalf("validate: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI("explain", f)
	if code != exitOK {
		t.Fatalf("explain: exit %d: %s", code, errOut)
	}
	want := "a Galera cluster of 3 nodes: db (bootstraps), db_node2, db_node3 (join by rsync SST)"
	if !strings.Contains(out, want) {
		t.Errorf("explain does not say %q:\n%s", want, out)
	}
}

// Explain says how a workload spread over the nodes places its threads, cell by cell of
// the axis that gives nodes:, and for a workload step's too.
func TestExplainShowsSpread(t *testing.T) {
	f := filepath.Join(t.TempDir(), "plan.yaml")
	plan := "version: 1\nname: g\ntargets: {db: {sandbox: {galera: 3}}}\nmatrix: {writers: [one, all, {db_node2: 1, db_node3: 2}]}\n" +
		"iteration:\n  before: [{workload: {builtin: oltp_read_write, threads: 4, duration: 2s, nodes: [db_node2, db_node3]}, when: \"${{ matrix.writers == 'one' }}\"}]\n" +
		"  workload: {builtin: oltp_read_only, threads: 8, duration: 5s, nodes: \"${{ matrix.writers }}\"}\n"
	if err := os.WriteFile(f, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", f)
	if code != exitOK {
		t.Fatalf("explain: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"threads spread round robin over every node: db 3, db_node2 3, db_node3 2",
		"threads spread by weight {db_node2: 1, db_node3: 2}: db_node2 3, db_node3 5",
		"    workload (not measured) on db: builtin oltp_read_write run, 4 thread(s), 2s\n      threads spread by weight {db_node2: 1, db_node3: 1}: db_node2 2, db_node3 2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain does not say %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "threads spread"); n != 3 {
		t.Errorf("explain says threads spread %d times, want 3 (the step in the writers=one cell, not its workload; the workload in the two others):\n%s", n, out)
	}
}

// What a Galera sandbox cannot be is refused at validation, at its line.
func TestValidateRefusesWhatGaleraIsNot(t *testing.T) {
	for _, c := range []struct{ sandbox, step, want string }{
		{"{galera: 3, replicas: 1}", "", "a Galera sandbox has nodes (db, db_node2, ...), not replicas"},
		{"{galera: 2}", "db_node3", "db_node3"},
		{"{galera: 3, flavor: mysql}", "", "galera needs MariaDB"},
		{"{galera: 3, tls: on}", "", "tls: on with galera is not built yet"},
		{"{galera: 3, links: {replicas: {rtt: 2ms}}}", "", "plan.yaml:3:55: links: target db is a Galera sandbox: it has nodes, not replicas; link them with nodes: {rtt: ...}"},
		{"{replicas: 1, links: {nodes: {rtt: 2ms}}}", "", "plan.yaml:3:54: links: nodes: target db is not a Galera sandbox"},
		{"{galera: 3, config: {binlog_format: STATEMENT}}", "", "a Galera sandbox sets binlog_format=ROW itself"},
		{"{galera: 3, config: {wsrep_provider_options: \"gcache.size=1G\"}}", "", "a Galera sandbox gives each node its provider"},
	} {
		f := filepath.Join(t.TempDir(), "plan.yaml")
		plan := "version: 1\nname: g\ntargets: {db: {sandbox: " + c.sandbox + "}}\niteration:\n"
		if c.step != "" {
			plan += "  before: [{sql: \"SELECT 1\", target: " + c.step + "}]\n"
		}
		plan += "  workload: {builtin: oltp_read_only, duration: 5s}\n"
		if err := os.WriteFile(f, []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI("validate", f)
		if code == exitOK || !strings.Contains(errOut, c.want) {
			t.Errorf("sandbox %s, step on %q: exit %d, want a refusal saying %q:\n%s", c.sandbox, c.step, code, c.want, errOut)
		}
	}
}
