package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// No MySQL server installs here: what a sandbox of flavor mysql would run is checked on the
// binaries' --version lines (the ones parseVersionLine documents) against the MySQL 8.0 and
// 8.4 manuals: mysqld --initialize-insecure with an init file for root@127.0.0.1, X protocol
// off, semi-sync plugins under their 8.0.26+ names, and 8.2+/8.0.22+ statement names (8.4 has
// no SHOW MASTER STATUS, SHOW SLAVE STATUS, CHANGE MASTER TO or START SLAVE).
func TestMySQLFlavorCommandsAndConfig(t *testing.T) {
	bin := func(line string) Binary {
		b, err := parseVersionLine(line)
		if err != nil {
			t.Fatal(err)
		}
		b.Path = "/usr/sbin/mysqld"
		return b
	}
	my80 := bin("/usr/sbin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)")
	my84 := bin("/usr/sbin/mysqld  Ver 8.4.3 for Linux on x86_64 (MySQL Community Server - GPL)")
	my8019 := bin("/usr/sbin/mysqld  Ver 8.0.19 for Linux on x86_64 (MySQL Community Server - GPL)")
	maria := bin("mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)")
	if my84.Flavor != FlavorMySQL || maria.Flavor != FlavorMariaDB {
		t.Fatalf("flavors: %s, %s", my84.Flavor, maria.Flavor)
	}

	for _, b := range []Binary{my80, my84} {
		path, args, initSQL, err := initCommand(b, "", "/sb/x", "mysql")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"--no-defaults", "--initialize-insecure", "--datadir=/sb/x/data", "--user=mysql", "--init-file=/sb/x/init.sql", "--log-error=/sb/x/init.err"}
		if path != "/usr/sbin/mysqld" || !slices.Equal(args, want) {
			t.Errorf("%s: %s %q, want mysqld %q", b.Version, path, args, want)
		}
		if !strings.Contains(initSQL, "'root'@'127.0.0.1'") || !strings.Contains(initSQL, "GRANT ALL PRIVILEGES ON *.*") {
			t.Errorf("%s: init file %q does not make root@127.0.0.1", b.Version, initSQL)
		}
		if _, args, _, _ := initCommand(b, "/opt/mysql", "/sb/x", "mysql"); !slices.Contains(args, "--basedir=/opt/mysql") {
			t.Errorf("%s: basedir not passed: %q", b.Version, args)
		}
		if d := sandboxDefaults(b); !slices.Contains(d, Option{Name: "mysqlx", Value: "OFF"}) {
			t.Errorf("%s: defaults %v leave MySQL's X protocol on its fixed port 33060", b.Version, d)
		}
	}
	if d := sandboxDefaults(maria); slices.ContainsFunc(d, func(o Option) bool { return o.Name == "mysqlx" }) {
		t.Errorf("MariaDB has no mysqlx option: %v", d)
	}

	for _, c := range []struct {
		b                  Binary
		primary, replica   []Option
		binlog, replStatus string
	}{
		{my84, []Option{{Name: "plugin-load-add", Value: "semisync_source.so"}, {Name: "rpl_semi_sync_source_enabled", Value: "ON"}},
			[]Option{{Name: "plugin-load-add", Value: "semisync_replica.so"}, {Name: "rpl_semi_sync_replica_enabled", Value: "ON"}},
			"SHOW BINARY LOG STATUS", "SHOW REPLICA STATUS"},
		{my80, []Option{{Name: "plugin-load-add", Value: "semisync_source.so"}, {Name: "rpl_semi_sync_source_enabled", Value: "ON"}},
			[]Option{{Name: "plugin-load-add", Value: "semisync_replica.so"}, {Name: "rpl_semi_sync_replica_enabled", Value: "ON"}},
			"SHOW MASTER STATUS", "SHOW REPLICA STATUS"},
		{my8019, []Option{{Name: "plugin-load-add", Value: "semisync_master.so"}, {Name: "rpl_semi_sync_master_enabled", Value: "ON"}},
			[]Option{{Name: "plugin-load-add", Value: "semisync_slave.so"}, {Name: "rpl_semi_sync_slave_enabled", Value: "ON"}},
			"SHOW MASTER STATUS", "SHOW SLAVE STATUS"},
		{maria, []Option{{Name: "rpl_semi_sync_master_enabled", Value: "ON"}}, []Option{{Name: "rpl_semi_sync_slave_enabled", Value: "ON"}},
			"SHOW MASTER STATUS", "SHOW SLAVE STATUS"},
	} {
		if got := semisyncOptions(c.b, true); !slices.Equal(got, c.primary) {
			t.Errorf("%s primary semi-sync: %v, want %v", c.b.Version, got, c.primary)
		}
		if got := semisyncOptions(c.b, false); !slices.Equal(got, c.replica) {
			t.Errorf("%s replica semi-sync: %v, want %v", c.b.Version, got, c.replica)
		}
		if got := binlogStatusStatement(c.b); got != c.binlog {
			t.Errorf("%s: %s, want %s", c.b.Version, got, c.binlog)
		}
		if got := replicaStatusStatement(c.b); got != c.replStatus {
			t.Errorf("%s: %s, want %s", c.b.Version, got, c.replStatus)
		}
	}
}
