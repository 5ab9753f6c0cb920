package preflight

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// What each plan line needs depends on the server: SET GLOBAL is SUPER on MariaDB and SUPER or
// SYSTEM_VARIABLES_ADMIN on MySQL 8; replica status SLAVE MONITOR on MariaDB 10.5.9+, REPLICATION
// CLIENT on MySQL; a workload's privileges are its kind's, on the DSN's schema or the kind's own.
// Checked against recorded grants (MySQL 8.4's least account, MariaDB's ALL ON app.*).
func TestPrivilegeNeeds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.yaml")
	text := `version: 1
name: needs
targets:
  db: {dsn: "u:p@tcp(db1:3306)/app"}
setup:
  - set_global: {long_query_time: 0}
  - workload: {builtin: tpcc, action: prepare}
  - wait: {until: "replica.Seconds_Behind_Master == 0"}
  - wait: {until: "status.Threads_running < 5"}
  - capture: {out: c.qcap, duration: 1s, method: performance_schema}
iteration:
  globals: {sync_binlog: 0}
  workload: {builtin: oltp_point_select, duration: 1s}
watch:
  digests: {top: 5}
  waits: {top: 5}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := spec.Load(path, spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	lineOf := func(s string) int { return 1 + strings.Count(text[:strings.Index(text, s)], "\n") }
	cases := []struct {
		info   target.ServerInfo
		schema string
		grants string
		lacks  map[int]string // plan line -> what the lack names
	}{
		{target.ServerInfo{Flavor: "MariaDB", Version: "10.11.19"}, "app", "mariadb-10.11-app.txt", map[int]string{
			lineOf("set_global"):  "SUPER on *.*",
			lineOf("replica."):    "SLAVE MONITOR or SUPER on *.*",
			lineOf("capture"):     "SELECT on performance_schema.* and UPDATE on performance_schema.setup_consumers",
			lineOf("sync_binlog"): "SUPER on *.*",
			lineOf("digests"):     "SELECT on performance_schema.*",
			lineOf("waits"):       "SELECT on performance_schema.*", // both lines are named
		}},
		{target.ServerInfo{Flavor: "MariaDB", Version: "10.4.30"}, "app", "mariadb-10.11-mon.txt", map[int]string{
			lineOf("set_global"):   "SUPER on *.*",
			lineOf("replica."):     "REPLICATION CLIENT or SUPER on *.*", // before 10.5.9
			lineOf("capture"):      "UPDATE on performance_schema.setup_consumers",
			lineOf("sync_binlog"):  "SUPER on *.*",
			lineOf("tpcc"):         "CREATE on app.* and INSERT on app.* and ALTER on app.*",
			lineOf("point_select"): "SELECT on app.* and INSERT on app.* and UPDATE on app.* and DELETE on app.*",
		}},
		// The DSN names no schema: the kinds' own (tpcc, sbtest), which bench's grants cover for sbtest only.
		{target.ServerInfo{Flavor: "MySQL", Version: "8.4.3"}, "", "mysql-8.4-bench.txt", map[int]string{
			lineOf("tpcc"): "CREATE on tpcc.* and INSERT on tpcc.* and ALTER on tpcc.*",
		}},
	}
	for _, c := range cases {
		srv := Server(c.info, c.schema)
		needs := planNeeds(p, func(n string) (spec.AccountServer, bool) { return srv, n == "db" })
		b, err := os.ReadFile(filepath.Join("..", "target", "testdata", "grants", c.grants))
		if err != nil {
			t.Fatal(err)
		}
		g, err := target.ParseGrants(strings.Split(string(b), "\n"))
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]string{}
		for _, n := range needs {
			if !met(n.AccountNeed, g) {
				got[n.Pos.Line] = lacking(n.AccountNeed, g)
			}
		}
		for line, want := range c.lacks {
			if got[line] != want {
				t.Errorf("%s on %s %s: line %d lacks %q, want %q", c.grants, c.info.Flavor, c.info.Version, line, got[line], want)
			}
		}
		for line, l := range got {
			if _, ok := c.lacks[line]; !ok {
				t.Errorf("%s on %s %s: line %d lacks %q, which it holds", c.grants, c.info.Flavor, c.info.Version, line, l)
			}
		}
	}
	// A target the check is not asked about (a sandbox) needs nothing.
	if n := planNeeds(p, func(string) (spec.AccountServer, bool) { return spec.AccountServer{}, false }); len(n) != 0 {
		t.Errorf("%d needs on an unasked target", len(n))
	}
}
