// Package mycnf knows which my.cnf options a sandbox must never take from a plan or the command
// line because they would open the server to every local user, and the sandbox's defaults
// validation needs. spec uses it to refuse a plan at
// validation (with the option's position), the sandbox to refuse a config however it got there.
package mycnf

import "strings"

// SandboxMaxConnections is a sandbox's max_connections unless its config says otherwise:
// sysbench-style thread counts fit, and validation knows the limit a plan's connections meet.
const SandboxMaxConnections = 1000

// Unsafe returns why the [mysqld] option name = value (bare: the name alone, as `skip-grant-tables`)
// must not reach a sandbox's my.cnf, or "" when it may. The server accepts dashes for underscores,
// the loose-, skip-, disable- and enable- prefixes and unique abbreviations (MariaDB:
// `skip-grant-tab`), so all of those spellings are recognised.
func Unsafe(name, value string, bare bool) string {
	n := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "-", "_"))
	n = strings.TrimPrefix(n, "loose_")
	negated := false
	for _, p := range []string{"skip_", "disable_"} {
		if strings.HasPrefix(n, p) {
			n, negated = strings.TrimPrefix(n, p), true
		}
	}
	n = strings.TrimPrefix(n, "enable_")
	v := strings.ToLower(strings.TrimSpace(value))
	on := bare || (v != "0" && v != "off" && v != "false")
	switch {
	case abbreviates(n, "grant_tables", len("grant")):
		if (negated && on) || (!negated && !on) {
			return "skip-grant-tables lets anyone who can reach the server log in as any user without a password; a sandbox always checks passwords"
		}
	case abbreviates(n, "secure_file_priv", len("secure_f")):
		if negated || bare || v == "" || v == "/" || v == `""` || v == "''" {
			return "an empty secure_file_priv lets SQL (LOAD DATA INFILE, SELECT ... INTO OUTFILE) read and write any file the server's OS user can; " +
				"a sandbox keeps it to its own files/ directory; leave it out, or name another directory"
		}
	}
	return ""
}

// abbreviates reports whether n is option full or an abbreviation of it at least min long.
func abbreviates(n, full string, min int) bool {
	return len(n) >= min && strings.HasPrefix(full, n)
}

// owned are the options a sandbox sets itself: a plan setting them would break how quadrant
// finds, reaches or isolates the server.
var owned = map[string]bool{
	"datadir": true, "socket": true, "port": true, "bind_address": true, "pid_file": true,
	"log_error": true, "user": true, "defaults_file": true, "defaults_extra_file": true,
	"init_file": true, // sets the sandbox's passwords at its first start
	"tmpdir":    true, // inside the sandbox's own directory, with the data on the storage under test
}

// Owned reports whether a sandbox sets option name itself (dashes and underscores alike,
// with or without the loose- prefix), so a plan may not.
func Owned(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "-", "_"))
	return owned[strings.TrimPrefix(n, "loose_")]
}

// tlsOwned are the server's TLS options, which a sandbox with tls: on sets itself to the
// certificates it made.
var tlsOwned = map[string]bool{
	"ssl": true, "ssl_ca": true, "ssl_capath": true, "ssl_cert": true, "ssl_key": true,
	"ssl_cipher": true, "ssl_crl": true, "ssl_crlpath": true, "tls_version": true,
	"require_secure_transport": true,
}

// TLSOwned reports whether a sandbox with tls: on sets option name itself.
func TLSOwned(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "-", "_"))
	n = strings.TrimPrefix(n, "loose_")
	for _, p := range []string{"skip_", "disable_", "enable_"} {
		n = strings.TrimPrefix(n, p)
	}
	return tlsOwned[n]
}
