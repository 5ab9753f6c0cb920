package executor

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// fileSnippet is how much of a statement read from a file the log and errors quote: a
// sql_file may be any file (a symlink to /etc/shadow once put its lines in log.txt), so
// only a short, single line of printable text, enough to find the statement by its line.
const fileSnippet = 40

// quoteStmt is stmt as the run log and errors quote it: abbreviated to n, and for a
// statement of a sql_file to fileSnippet, without control characters.
func quoteStmt(st *spec.Step, stmt string, n int) string {
	if st != nil && spec.StepBody[*spec.SQLFile](st) != nil {
		n = min(n, fileSnippet)
	}
	return printable(abbreviate(stmt, n))
}

// printable replaces control characters (escape sequences from a stranger's file) by spaces.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}

// serverNear is the text a server's syntax error quotes from the statement.
var serverNear = regexp.MustCompile(`(?s)near '.*' at line`)

// stmtError is a server's error on a sql_file's statement with the statement text the
// server quoted cut to a snippet; errors.As still finds the server's error.
type stmtError struct {
	err *mysql.MySQLError
	msg string
}

func (e *stmtError) Error() string { return e.msg }
func (e *stmtError) Unwrap() error { return e.err }

// quoteErr is err as a step reports it: for a sql_file's statement, what the server
// quoted of it is cut to a short printable snippet.
func quoteErr(st *spec.Step, err error) error {
	var me *mysql.MySQLError
	if st == nil || spec.StepBody[*spec.SQLFile](st) == nil || !errors.As(err, &me) {
		return err
	}
	msg := serverNear.ReplaceAllStringFunc(me.Error(), func(m string) string {
		inner := strings.TrimSuffix(strings.TrimPrefix(m, "near '"), "' at line")
		return "near '" + quoteStmt(st, inner, fileSnippet) + "' at line"
	})
	return &stmtError{err: me, msg: printable(msg)}
}

// packetLimit is the largest statement s accepts, from its @@max_allowed_packet (a
// COM_QUERY packet is the statement and one byte); 0 when it cannot be read, and the
// server says so itself.
func packetLimit(ctx context.Context, s *liveTarget) int {
	var n int64
	if err := s.db.QueryRowContext(ctx, "SELECT @@max_allowed_packet").Scan(&n); err != nil || n <= 1 {
		return 0
	}
	return int(n - 1)
}

// tooLarge says a statement over the server's max_allowed_packet was refused before it
// was sent, and what to do.
func tooLarge(target string, err error) error {
	var tl *sqltext.TooLargeError
	if !errors.As(err, &tl) {
		return err
	}
	return fmt.Errorf("line %d: a statement of %d bytes is larger than %s's max_allowed_packet (%d bytes); it was not sent: split the statement, or raise max_allowed_packet on the server (a sandbox's config: max_allowed_packet: %dM)",
		tl.Line, tl.Size, target, tl.Limit+1, (tl.Size>>20)+2)
}
