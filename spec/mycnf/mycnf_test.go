package mycnf

import (
	"os"
	"strings"
	"testing"
)

// recorded is MariaDB 10.11's own option list: testdata holds the output of
// `mariadbd --no-defaults --verbose --help` of 10.11.19 (Debian 12), recorded on this machine.
func recorded(t *testing.T) Known {
	t.Helper()
	data, err := os.ReadFile("testdata/mariadb-10.11-verbose-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	names := ParseHelp(string(data))
	if len(names) < 600 {
		t.Fatalf("parsed %d names from the recorded help", len(names))
	}
	return NewKnown(names)
}

func TestResolveAsTheServerDoes(t *testing.T) {
	k := recorded(t)
	for _, c := range []struct {
		written, option string
		loose, negated  bool
	}{
		{"bind_addr", "bind_address", false, false},
		{"bind-addres", "bind_address", false, false},
		{"socke", "socket", false, false},
		{"port", "port", false, false},
		{"bind", "bind_address", false, false},
		{"port_", "port_open_timeout", false, false}, // the server says so too: harmless
		{"init_fil", "init_file", false, false},
		{"Secure-File", "secure_file_priv", false, false},
		{"skip-grant-tab", "skip_grant_tables", false, false},
		{"skip-name-resolve", "skip_name_resolve", false, false}, // an option of its own
		{"loose-general-log-file", "general_log_file", true, false},
		{"loose-general-log-fi", "general_log_file", true, false},
		{"general_log", "general_log", false, false}, // exact beats the prefix of general_log_file
		{"skip-log-bin", "log_bin", false, true},
		{"disable_slow_query_log", "slow_query_log", false, true},
		{"plugin-innodb-tmpdir", "innodb_tmpdir", false, false}, // every plugin option has a plugin- twin
		{"plugin_load_add", "plugin_load_add", false, false},
		{"innodb_buffer_pool_size", "innodb_buffer_pool_size", false, false},
	} {
		n, err := k.Resolve(c.written)
		if err != nil || n.Option != c.option || n.Loose != c.loose || n.Negated != c.negated || n.Unknown {
			t.Errorf("Resolve(%q) = %+v, %v; want %s loose=%v negated=%v", c.written, n, err, c.option, c.loose, c.negated)
		}
	}
	for _, amb := range []string{"gen", "ssl_c", "innodb_log_f"} {
		if _, err := k.Resolve(amb); err == nil || !strings.Contains(err.Error(), "ambiguous") {
			t.Errorf("Resolve(%q): %v, want ambiguous (the server refuses it: \"ambiguous option '--gen=1' (general_log_file, general_log)\")", amb, err)
		}
	}
	if n, err := k.Resolve("server_audit_file_path"); err != nil || !n.Unknown {
		t.Errorf("a plugin's option not loaded: %+v, %v", n, err)
	}
}

func TestRefuseOnTheServersList(t *testing.T) {
	g := Guard{Known: recorded(t)}
	refusedOnly(t, g, true)
}

// Without a list, every name that may abbreviate a guarded option is taken for it.
func TestRefuseWithoutAList(t *testing.T) {
	refusedOnly(t, Guard{}, false)
	for _, name := range []string{"b", "soc", "gen", "ssl_c"} {
		if (Guard{}).Refuse(name, "1", false) == "" {
			t.Errorf("%s without a list: accepted, want refused as a possible guarded option", name)
		}
	}
}

func refusedOnly(t *testing.T, g Guard, listed bool) {
	t.Helper()
	for _, c := range []struct {
		name, value string
		bare        bool
		want        string // a word of the reason, "" for allowed
	}{
		{"bind_addr", "0.0.0.0", false, "127.0.0.1 only"},
		{"bind-addres", "0.0.0.0", false, "127.0.0.1 only"},
		{"socke", "/tmp/x.sock", false, "socket"},
		{"init_fil", "/tmp/x.sql", false, "passwords"},
		{"datadir", "/dev/shm/x", false, "sandbox: {dir: PATH}"},
		{"plugin-dir", "/tmp", false, "plugin"},
		{"secure_file_priv", "//", false, "outside the sandbox's directory"},
		{"secure_file_priv", "/etc/..", false, "outside the sandbox's directory"},
		{"secure_file_priv", "/", false, "outside"},
		{"secure_file_priv", "files/../..", false, "outside"},
		{"secure_file_priv", "", false, "empty"},
		{"secure_file_priv", `""`, false, "empty"},
		{"secure-file", "", false, "empty"},
		{"skip-secure-file-priv", "", true, "empty"},
		{"secure_file_priv", "files", false, ""},
		{"secure_file_priv", "exports", false, ""},
		{"skip-grant-tab", "", true, "without a password"},
		{"skip_grant_tables", "ON", false, "without a password"},
		{"loose-skip-grant-tables", "", true, "without a password"},
		{"skip_grant_tables", "0", false, ""},
		{"loose-general-log-file", "/tmp/x", false, "general log"},
		{"general_log_file", "/abs/path", false, "general log"},
		{"general_log_file", "~/x", false, "outside"},
		{"general_log_file", "../../x", false, "outside"},
		{"general_log_file", "general.log", false, ""},
		{"general_log", "ON", false, ""},
		{"general_log", "", true, ""},
		{"slow_query_log_file", "/var/log/x", false, "slow log"},
		{"log_bin", "/tmp/binlog", false, "binary log"},
		{"log_bin", "", true, ""},
		{"log_bin", "binlog", false, ""},
		{"relay_log", "/tmp/relay", false, "relay log"},
		{"innodb_data_home_dir", "/tmp", false, "outside"},
		{"innodb_log_group_home_dir", "/tmp", false, "outside"},
		{"innodb_undo_directory", "/tmp", false, "outside"},
		{"plugin-innodb-tmpdir", "/tmp", false, "outside"},
		{"character_sets_dir", "/tmp", false, "outside"},
		{"lc_messages_dir", "/tmp", false, "outside"},
		{"ssl_key", "/root/key.pem", false, "outside"},
		{"ssl_cert", "cert.pem", false, ""},
		{"plugin_load_add", "x=/tmp/evil.so", false, "code"},
		{"plugin_load_add", "ha_rocksdb", false, ""},
		{"loose_server_audit_file_path", "/etc/cron.d/x", false, "outside"}, // a plugin's, not listed
		{"wsrep_provider", "/usr/lib/galera/libgalera_smm.so", false, "Galera"},
		{"init_connect", "/* hello */ SET @a = 1", false, ""},
		{"max_connections", "50", false, ""},
		{"innodb_buffer_pool_size", "1G", false, ""},
		{"skip-name-resolve", "", true, ""},
		{"secure_auth", "", false, ""},
	} {
		got := g.Refuse(c.name, c.value, c.bare)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("listed=%v: Refuse(%q, %q, %v) = %q, want it to say %q", listed, c.name, c.value, c.bare, got, c.want)
		}
	}
	if g.Refuse("bind_addr", "0.0.0.0", false) != "" && !strings.Contains(g.Refuse("bind_addr", "0.0.0.0", false), "reads bind_addr as bind_address") {
		t.Errorf("the reason does not say which option the server takes: %q", g.Refuse("bind_addr", "0.0.0.0", false))
	}
}

func TestSecureFilePrivInsideTheSandbox(t *testing.T) {
	g := Guard{Known: recorded(t), Dir: "/tmp/quadrant-x/db"}
	for v, ok := range map[string]bool{
		"/tmp/quadrant-x/db/files": true, "/tmp/quadrant-x/db/": true, "/tmp/quadrant-x/db//files": true,
		"/tmp/quadrant-x": false, "/tmp/quadrant-x/db/../..": false, "//": false, "/tmp/quadrant-x/dbx": false,
	} {
		if got := g.Refuse("secure_file_priv", v, false); (got == "") != ok {
			t.Errorf("secure_file_priv = %s in %s: %q", v, g.Dir, got)
		}
	}
}

func TestTLSOwnedWithTLSOn(t *testing.T) {
	g := Guard{Known: recorded(t), TLS: true}
	for _, name := range []string{"ssl_cert", "ssl-ke", "loose-ssl-ca", "skip-ssl", "require_secure_transport", "tls_version"} {
		if why := g.Refuse(name, "x", false); !strings.Contains(why, "tls: on") {
			t.Errorf("tls on: Refuse(%q) = %q", name, why)
		}
	}
	if why := (Guard{Known: recorded(t)}).Refuse("ssl_cert", "x.pem", false); why != "" {
		t.Errorf("tls off, a relative ssl_cert: %q", why)
	}
}

// Every guarded option is one of MariaDB 10.11's, or MySQL 8's (not listed here), so that the
// lists name what the server knows.
func TestPathOptionsAreServerOptions(t *testing.T) {
	k := recorded(t)
	// defaults-file and defaults-extra-file are read before any option (command line only).
	mysqlOnly := map[string]bool{"mysqlx_bind_address": true, "mysqlx_socket": true, "admin_address": true,
		"defaults_file": true, "defaults_extra_file": true}
	var all []string
	for n := range owned {
		all = append(all, n)
	}
	all = append(all, pathOptions...)
	for n := range tlsOwned {
		all = append(all, n)
	}
	for _, n := range all {
		if !k.set[n] && !mysqlOnly[n] {
			t.Errorf("%s is not an option of MariaDB 10.11", n)
		}
	}
}

// Without a list, an exact harmless name must stay itself: every 10.11 option that a guarded
// one begins with is in the fallback.
func TestFallbackCoversGuardedPrefixes(t *testing.T) {
	k := recorded(t)
	for _, n := range k.names {
		if fallbackSet[n] {
			continue
		}
		for _, g := range fallbackNames {
			if strings.HasPrefix(g, n) {
				t.Errorf("%s (a 10.11 option) begins guarded %s but is not in the fallback list", n, g)
				break
			}
		}
	}
}
