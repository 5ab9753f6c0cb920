// Package mycnf knows which my.cnf options a sandbox must never take from a plan or the command
// line, because they would open the server to every local user or move its files or listening
// addresses outside the sandbox's directory and the loopback, and the sandbox's defaults
// validation needs. Names are resolved as the server resolves them (Known.Resolve) before any
// rule applies. spec uses it to refuse a plan at validation (with the option's position), the
// sandbox to refuse a config however it got there.
package mycnf

import (
	"fmt"
	"path/filepath"
	"strings"
)

// SandboxMaxConnections is a sandbox's max_connections unless its config says otherwise:
// sysbench-style thread counts fit, and validation knows the limit a plan's connections meet.
const SandboxMaxConnections = 1000

// Guard is what the refusals of one sandbox server need to know.
type Guard struct {
	Known Known // the server's options; the zero Known when nobody could say
	TLS   bool  // the sandbox has tls: on and owns the server's TLS options
	// Galera: the sandbox is a Galera cluster's node (sandbox galera: N) and owns its wsrep
	// options and what Galera requires of the server (galera.go).
	Galera bool
	// Dir is the server's own directory (absolute), where an absolute secure_file_priv may
	// point; "" at validation, before there is one: then only a relative one is allowed.
	Dir string
	// Outside, when set, is asked about an option's value that is an absolute, clean path (no
	// .., no ~) outside the sandbox, e.g. log_bin on other storage; true allows it. Validation
	// declares the write there for the trust check (--allow-path); the sandbox allows it only
	// when its caller checked the paths so. nil refuses every such value.
	Outside func(option, path string) bool
}

// Refuse returns why the [mysqld] option name = value (bare: the name alone, as
// `skip-grant-tables`) must not reach the sandbox's my.cnf, with what to do instead, or ""
// when it may. The reason names the option the server would take name for when it differs.
func (g Guard) Refuse(name, value string, bare bool) string {
	n, err := g.Known.Resolve(name)
	if err != nil {
		return err.Error()
	}
	why := g.refuse(n, strings.TrimSpace(value), bare)
	if why != "" && n.Option != Key(name) {
		why = fmt.Sprintf("the server reads %s as %s: %s", name, n.Option, why)
	}
	return why
}

func (g Guard) refuse(n Name, v string, bare bool) string {
	opt := n.Option
	if why, ok := owned[opt]; ok {
		if g.Galera && galeraNode[opt] {
			why = galeraWhy
		}
		return "the sandbox sets " + opt + " itself (" + why + "); leave it out"
	}
	if g.Galera {
		if why := galeraRefuse(opt, v, bare); why != "" {
			return why
		}
	}
	if g.TLS && tlsOwned[opt] {
		return "the sandbox sets " + opt + " itself with tls: on (its own CA and certificate, require_secure_transport=ON); leave it out, or set tls: off and configure TLS yourself"
	}
	on := bare || !isOff(v)
	switch opt {
	case "skip_grant_tables", "grant_tables":
		if (opt == "grant_tables") == (n.Negated == on) {
			return "skip-grant-tables lets anyone who can reach the server log in as any user without a password; a sandbox always checks passwords"
		}
		return ""
	case "secure_file_priv":
		return g.secureFilePriv(n, v, bare)
	case "plugin_load", "plugin_load_add":
		if strings.ContainsAny(v, "/~") {
			return opt + " loads shared objects (code) into the server: name a library of the server's own plugin directory, without a path (e.g. " + opt + " = ha_rocksdb)"
		}
		return ""
	}
	if freeText[opt] || bare {
		return ""
	}
	if outside(v) {
		clean := strings.Trim(v, `"'`)
		if g.Outside != nil && strings.HasPrefix(clean, "/") && !strings.Contains(clean, "..") && !pathList[opt] && g.Outside(opt, filepath.Clean(clean)) {
			return ""
		}
		what := "a path"
		if hint, ok := pathHints[opt]; ok {
			what = hint
		}
		return fmt.Sprintf("%s = %s is %s outside the sandbox's directory (absolute, ~ or ..); leave it out (the sandbox keeps its files inside its own directory), or give a relative name without .., which the server puts in the sandbox's data directory", opt, v, what)
	}
	return ""
}

// secureFilePriv allows the sandbox's own files/ directory (the default) or another directory
// inside the sandbox's, after the cleaning the server's realpath does (`//` and `/etc/..` are `/`).
func (g Guard) secureFilePriv(n Name, v string, bare bool) string {
	const why = "secure_file_priv is where SQL (LOAD DATA INFILE, LOAD_FILE, SELECT ... INTO OUTFILE) may read and write files; "
	unq := strings.Trim(v, `"'`)
	if n.Negated || bare || unq == "" {
		return why + "empty, it lets SQL read and write any file the server's OS user can; leave it out (the sandbox keeps it to its own files/ directory)"
	}
	clean := filepath.Clean(unq)
	switch {
	case strings.HasPrefix(unq, "~"):
	case !filepath.IsAbs(clean):
		if clean != ".." && !strings.HasPrefix(clean, "../") && !strings.Contains(unq, "..") {
			return "" // the server resolves it against its working directory: the server's own
		}
	case g.Dir != "":
		if rel, err := filepath.Rel(filepath.Clean(g.Dir), clean); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !strings.Contains(unq, "..") {
			return ""
		}
	}
	return why + unq + " (" + clean + " to the server) is outside the sandbox's directory; leave it out (the sandbox keeps it to its own files/ directory), or name a directory relative to the sandbox's, without .."
}

func isOff(v string) bool {
	switch strings.ToLower(strings.Trim(v, `"'`)) {
	case "0", "off", "false":
		return true
	}
	return false
}

// outside reports whether an option's value is a path that leads outside the server's
// directory: absolute, from a home directory (the server expands ~/ in file names), or with
// a .. component anywhere (quoted or not).
func outside(v string) bool {
	v = strings.Trim(v, `"'`)
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") {
		return true
	}
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '/' || r == ',' || r == ';' || r == ':' || r == '=' }) {
		if part == ".." {
			return true
		}
	}
	return false
}

// owned are the options a sandbox sets itself or never lets a config set, with why: a plan
// setting them would break how quadrant finds, reaches or isolates the server, or move its
// files or listening addresses outside its directory and the loopback.
var owned = map[string]string{
	"datadir":             "each sandbox has its own data directory; to put the data on other storage, use sandbox: {dir: PATH}",
	"socket":              "each sandbox has its own socket in its own directory",
	"port":                "each sandbox listens on a port it picks",
	"bind_address":        "a sandbox listens on 127.0.0.1 only",
	"pid_file":            "quadrant watches the server's process through it",
	"log_error":           "quadrant reads the server's error log in the sandbox's directory",
	"user":                "the server runs as the sandbox's unprivileged OS user; use sandbox: {run_as: USER}",
	"defaults_file":       "the sandbox writes the server's only option file",
	"defaults_extra_file": "the sandbox writes the server's only option file",
	"init_file":           "it sets the sandbox's passwords at its first start; use a setup sql: step",
	"tmpdir":              "inside the sandbox's own directory, with the data on the storage under test",
	"basedir":             "use the sandbox's basedir: key",
	"plugin_dir":          "the server loads plugins from its own installation only",
	"chroot":              "the server stays in the sandbox's directory",
	"debug":               "a debug trace is written to a file its value names, anywhere",
	"mysqlx_bind_address": "a sandbox listens on 127.0.0.1 only",
	"mysqlx_socket":       "each sandbox has its own socket in its own directory",
	"admin_address":       "a sandbox listens on 127.0.0.1 only",
	// A sandbox is one server, not a Galera node: these load code, run commands, or listen and
	// connect on addresses of their own.
	"wsrep_provider":              "a sandbox is not a Galera node; it would load a shared object (code)",
	"wsrep_provider_options":      "a sandbox is not a Galera node; it would listen on the addresses its value names",
	"wsrep_notify_cmd":            "a sandbox is not a Galera node; it would run a command",
	"wsrep_sst_method":            "a sandbox is not a Galera node; it would run a script",
	"wsrep_cluster_address":       "a sandbox is not a Galera node; it would connect to the addresses named",
	"wsrep_node_address":          "a sandbox is not a Galera node; it would listen on the address named",
	"wsrep_node_incoming_address": "a sandbox is not a Galera node; it would listen on the address named",
	"wsrep_sst_receive_address":   "a sandbox is not a Galera node; it would listen on the address named",
}

// pathOptions are MariaDB 10.11's and MySQL 8's options whose value is a file or directory
// (checked against the recorded 10.11 list by TestPathOptionsAreServerOptions): their value
// stays relative, without .., so the file lands in the sandbox's data directory. Any other
// option's value gets the same check (a plugin's option may be a path too).
var pathOptions = []string{
	"aria_log_dir_path", "character_sets_dir", "des_key_file", "ft_stopword_file", "general_log_file",
	"innodb_buffer_pool_filename", "innodb_data_home_dir", "innodb_log_group_home_dir", "innodb_temp_data_file_path",
	"innodb_tmpdir", "innodb_undo_directory", "lc_messages_dir", "log_basename", "log_bin", "log_bin_index",
	"log_isam", "log_slow_query_file", "log_tc", "master_info_file", "relay_log", "relay_log_index",
	"relay_log_info_file", "slave_load_tmpdir", "slow_query_log_file", "ssl_ca", "ssl_capath", "ssl_cert",
	"ssl_crl", "ssl_crlpath", "ssl_key", "wsrep_data_home_dir", "wsrep_status_file",
}

// pathList are the path options whose value may name several files: never allowed outside.
var pathList = map[string]bool{"innodb_temp_data_file_path": true, "innodb_data_file_path": true}

// pathHints say what a path option's file is, for the messages.
var pathHints = map[string]string{
	"general_log_file":    "the general log's file (every statement's text)",
	"slow_query_log_file": "the slow log's file (statements' text)",
	"log_slow_query_file": "the slow log's file (statements' text)",
	"log_bin":             "the binary log's base name",
	"log_bin_index":       "the binary log index's file",
	"relay_log":           "the relay log's base name",
}

// freeText are options whose value is SQL or text, not a path, though it may start with /*.
var freeText = map[string]bool{"init_connect": true, "init_slave": true}

// tlsOwned are the server's TLS options, which a sandbox with tls: on sets itself to the
// certificates it made.
var tlsOwned = map[string]bool{
	"ssl": true, "ssl_ca": true, "ssl_capath": true, "ssl_cert": true, "ssl_key": true,
	"ssl_cipher": true, "ssl_crl": true, "ssl_crlpath": true, "tls_version": true,
	"require_secure_transport": true,
}
