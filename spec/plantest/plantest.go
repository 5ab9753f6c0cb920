// Package plantest writes plans for tests: the header every plan repeats (version, name and
// one target, db) before what a test is about, so that a test's plan text is only that.
package plantest

import "fmt"

// Sandbox is a plan called name whose one target, db, is a sandbox with the settings
// sandbox ("{}" or "" for none, "{replicas: 1}", ...), followed by body (setup:,
// iteration:, ...).
func Sandbox(name, sandbox, body string) string {
	if sandbox == "" {
		sandbox = "{}"
	}
	return fmt.Sprintf("version: 1\nname: %s\ntargets:\n  db: {sandbox: %s}\n%s", name, sandbox, trimNewline(body))
}

// trimNewline drops the newline a raw string literal starts with, so a body can begin on
// the line after its backtick.
func trimNewline(s string) string {
	if len(s) > 0 && s[0] == '\n' {
		return s[1:]
	}
	return s
}

// DSN is a plan called name whose one target, db, is the server at dsn, followed by body.
func DSN(name, dsn, body string) string {
	return fmt.Sprintf("version: 1\nname: %s\ntargets:\n  db: {dsn: %q}\n%s", name, dsn, trimNewline(body))
}

// Prepare is a setup: that loads script's tables (sysbench's shape) with rows rows each.
func Prepare(script string, tables, rows int) string {
	return fmt.Sprintf("setup:\n  - workload: {builtin: %s, action: prepare, options: {tables: %d, table_size: %d}}\n", script, tables, rows)
}
