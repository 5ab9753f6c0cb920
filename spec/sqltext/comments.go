package sqltext

import "strings"

// SkipComments returns sql from the first thing the server would execute: leading blanks
// and comments skipped by the server's rule. "--" starts a comment to the end of the line
// only when a blank or a control character follows it (or nothing: the text ends), so
// "x--1" and "--1" are arithmetic; "#" starts one to the end of the line; "/* */" is one,
// and an unterminated "/*" comments out the rest. An executable comment ("/*!", MariaDB's
// "/*M!", each with an optional version) is SQL the server runs: its opening is dropped and
// its content returned, so a caller that wants the statement's first word finds it there
// (the closing "*/" stays at the end of the content).
func SkipComments(sql string) string {
	for {
		sql = strings.TrimLeft(sql, " \t\r\n\f\v")
		switch {
		case strings.HasPrefix(sql, "/*!"), strings.HasPrefix(sql, "/*M!"):
			sql = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(sql, "/*"), "M"), "!0123456789")
		case strings.HasPrefix(sql, "/*"):
			i := strings.Index(sql[2:], "*/")
			if i < 0 {
				return ""
			}
			sql = sql[i+4:]
		case strings.HasPrefix(sql, "#"), LineComment(sql):
			i := strings.IndexByte(sql, '\n')
			if i < 0 {
				return ""
			}
			sql = sql[i+1:]
		default:
			return sql
		}
	}
}

// LineComment says whether sql starts with a "--" comment: "--" followed by a blank, a control
// character, or the end of the text (the server's rule; "--x" is two minus signs).
func LineComment(sql string) bool {
	if !strings.HasPrefix(sql, "--") {
		return false
	}
	return len(sql) == 2 || sql[2] <= ' ' || sql[2] == 0x7f
}
