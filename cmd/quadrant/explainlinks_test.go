package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explain names a sandbox's links with its targets, and their shape in each iteration
// whose shape differs from the one before (an rtt axis: every iteration of an
// interleaved order).
func TestExplainShowsLinks(t *testing.T) {
	f := filepath.Join(t.TempDir(), "plan.yaml")
	plan := "version: 1\nname: e\nmatrix: {rtt: [0ms, 10ms]}\norder: sequential\nrepeat: 2\n" +
		"targets: {db: {sandbox: {replicas: 1, links: {client: {rtt: 1ms}, replicas: {rtt: \"${{ matrix.rtt }}\", bandwidth: 1Gbit}}}}}\n" +
		"iteration:\n  workload: {builtin: oltp_read_only, duration: 5s}\n"
	if err := os.WriteFile(f, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", f)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"links: client -> db, db -> db_replica1 (proxies",
		"links of sandbox db (set, then probed): client -> db: rtt 1ms; db -> db_replica1: rtt 0ms, 1Gbit\n",
		"links of sandbox db (set, then probed): client -> db: rtt 1ms; db -> db_replica1: rtt 10ms, 1Gbit\n",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("explain does not say once %q:\n%s", want, out)
		}
	}
}

// explain names a Galera sandbox's node links (one in front of each node) and their shape
// per iteration, saying they are not probed.
func TestExplainShowsGaleraNodeLinks(t *testing.T) {
	f := filepath.Join(t.TempDir(), "plan.yaml")
	plan := "version: 1\nname: e\nmatrix: {rtt: [0ms, 20ms]}\n" +
		"targets: {db: {sandbox: {galera: 3, links: {nodes: {rtt: \"${{ matrix.rtt }}\"}}}}}\n" +
		"iteration:\n  workload: {builtin: oltp_read_only, duration: 5s}\n"
	if err := os.WriteFile(f, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", f)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"links: nodes -> db, nodes -> db_node2, nodes -> db_node3 (proxies",
		"links of sandbox db (set, then probed): between the nodes of db (one link in front of each): rtt 0ms (not probed)\n",
		"links of sandbox db (set, then probed): between the nodes of db (one link in front of each): rtt 20ms (not probed)\n",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("explain does not say once %q:\n%s", want, out)
		}
	}
}
