package target

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readGrants(t *testing.T, file string) *Grants {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "grants", file))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseGrants(strings.Split(string(b), "\n"))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return g
}

// Each recorded account holds what it was granted and nothing it was not: the privileges
// quadrant's pre-flight asks about (SET GLOBAL, replica status, performance_schema, the slow
// log table, a workload's schema).
func TestParseGrants(t *testing.T) {
	var (
		super     = Privilege{Names: []string{"SUPER"}}
		setGlobal = Privilege{Names: []string{"SUPER", "SYSTEM_VARIABLES_ADMIN"}}
		replMaria = Privilege{Names: []string{"SLAVE MONITOR", "SUPER"}}
		replMySQL = Privilege{Names: []string{"REPLICATION CLIENT", "SUPER"}}
		psSelect  = Privilege{Names: []string{"SELECT"}, DB: "performance_schema"}
		psUpdate  = Privilege{Names: []string{"UPDATE"}, DB: "performance_schema", Table: "setup_consumers"}
		slowLog   = Privilege{Names: []string{"SELECT"}, DB: "mysql", Table: "slow_log"}
		on        = func(priv, db string) Privilege { return Privilege{Names: []string{priv}, DB: db, Table: "sbtest1"} }
	)
	cases := []struct {
		file     string
		has, not []Privilege
		roles    []string
	}{
		{file: "mariadb-10.11-root.txt", has: []Privilege{super, setGlobal, replMaria, psSelect, psUpdate, slowLog, on("CREATE", "app"), on("DROP", "x")}, roles: []string{"bench"}},
		{file: "mariadb-10.11-app.txt",
			has: []Privilege{on("CREATE", "app"), on("DROP", "app"), on("INSERT", "app"), on("INDEX", "app"), on("SELECT", "app")},
			not: []Privilege{super, setGlobal, replMaria, replMySQL, psSelect, slowLog, on("CREATE", "app2"), on("SELECT", "sbtest"), {Names: []string{"EXECUTE"}, DB: "mysql"}}},
		{file: "mariadb-10.11-mon.txt", has: []Privilege{replMaria, psSelect, {Names: []string{"PROCESS"}}}, not: []Privilege{super, psUpdate, on("SELECT", "app")}},
		{file: "mariadb-10.11-rmon.txt", has: []Privilege{replMaria, {Names: []string{"REPLICA MONITOR"}}, {Names: []string{"BINLOG MONITOR"}}}, not: []Privilege{super}},
		// REPLICATION CLIENT is BINLOG MONITOR on MariaDB 10.5.9+: it no longer shows replica status.
		{file: "mariadb-10.11-rc.txt", has: []Privilege{replMySQL}, not: []Privilege{replMaria, super}},
		{file: "mariadb-10.11-sup.txt", has: []Privilege{super, setGlobal, replMaria}, not: []Privilege{psSelect, slowLog}},
		{file: "mariadb-10.11-wild.txt",
			// `app\_%`.* is app_ then anything; the role bench (active by default) adds SUPER and `bench db`.
			has:   []Privilege{on("SELECT", "app_1"), on("INSERT", "app_x"), slowLog, super, on("CREATE", "bench db")},
			not:   []Privilege{on("SELECT", "appx1"), on("SELECT", "app"), on("UPDATE", "app"), {Names: []string{"SELECT"}, DB: "app", Table: "sbtest1"}, on("DROP", "bench"), psSelect},
			roles: []string{"bench"}},
		{file: "mysql-8.0-jeffrey.txt", has: []Privilege{on("SELECT", "db1"), on("UPDATE", "db1")}, not: []Privilege{on("DELETE", "db1"), on("SELECT", "db2"), super}},
		{file: "mysql-8.0-root.txt", has: []Privilege{super, setGlobal, {Names: []string{"SYSTEM_VARIABLES_ADMIN"}}, replMySQL, psSelect, psUpdate, slowLog, on("INDEX", "any")}},
		{file: "mysql-8.0-roles.txt", not: []Privilege{on("SELECT", "db1")}, roles: []string{"r1", "r2"}},
		{file: "mysql-8.0-roles-using.txt", has: []Privilege{on("DELETE", "db1")}, not: []Privilege{on("DROP", "db1")}, roles: []string{"r1", "r2"}},
		// Partial revokes take a schema out of a global privilege.
		{file: "mysql-8.4-partial-revoke.txt", has: []Privilege{on("INSERT", "app"), on("SELECT", "world")}, not: []Privilege{on("INSERT", "world"), {Names: []string{"INSERT"}, DB: "world"}}},
		{file: "mysql-8.4-bench.txt",
			has: []Privilege{setGlobal, replMySQL, psSelect, psUpdate, slowLog, on("CREATE", "sbtest")},
			not: []Privilege{super, replMaria, {Names: []string{"UPDATE"}, DB: "performance_schema", Table: "threads"}, {Names: []string{"SELECT"}, DB: "mysql", Table: "general_log"}}},
	}
	for _, c := range cases {
		g := readGrants(t, c.file)
		for _, p := range c.has {
			if !g.Has(p) {
				t.Errorf("%s: lacks %s", c.file, p)
			}
		}
		for _, p := range c.not {
			if g.Has(p) {
				t.Errorf("%s: holds %s, which it was not granted", c.file, p)
			}
		}
		if strings.Join(g.Roles, ",") != strings.Join(c.roles, ",") {
			t.Errorf("%s: roles %q, want %q", c.file, g.Roles, c.roles)
		}
	}
}

func TestParseGrantsRefusesWhatItCannotRead(t *testing.T) {
	for _, line := range []string{
		"GRANT SELECT ON `db1` TO `u`@`%`",     // no .* or .table
		"GRANT SELECT ON `db1`.* `u`@`%`",      // no TO
		"GRANT , SELECT ON *.* TO `u`@`%`",     // an empty privilege
		"GRANT SELECT ON `db1.* TO `u`@`%`",    // unterminated name
		"GRANT SELECT ON 'db1'.* TO 'u'@'%' '", // unterminated string
	} {
		if _, err := ParseGrants([]string{line}); err == nil {
			t.Errorf("%s: no error", line)
		}
	}
}

func TestLikeMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"app", "app", true}, {"app", "App", false}, {"app%", "app_1", true}, {"app%", "ap", false},
		{`app\_%`, "app_1", true}, {`app\_%`, "appx1", false}, {"a_p", "axp", true}, {"a_p", "ap", false},
		{"%", "", true}, {"%db%", "mydbs", true},
	} {
		if got := likeMatch(c.pattern, c.name); got != c.want {
			t.Errorf("likeMatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}
