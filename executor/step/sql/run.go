package sql

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// Statements yields one statement at a time (and its line in a file, 0 otherwise); io.EOF
// ends it.
type Statements func() (stmt string, line int, err error)

// List yields the statements of list.
func List(list []string) Statements {
	i := 0
	return func() (string, int, error) {
		if i >= len(list) {
			return "", 0, io.EOF
		}
		i++
		return list[i-1], 0, nil
	}
}

// Quoting is how the log and errors quote a statement: at most Max characters (0: as
// asked), Err rewriting a server's error (a sql_file's statement quoted to a snippet).
type Quoting struct {
	Max int
	Err func(error) error
}

// Quote is stmt on one line, cut to n characters (and q.Max), without control characters.
func (q Quoting) Quote(stmt string, n int) string {
	if q.Max > 0 {
		n = min(n, q.Max)
	}
	return Printable(Abbreviate(stmt, n))
}

func (q Quoting) err(err error) error {
	if q.Err == nil || err == nil {
		return err
	}
	return q.Err(err)
}

// Run runs statements on one connection to the step's target, so session state (USE,
// SET @x) carries from one to the next, and keeps the last result set when save_as asks.
func Run(ctx context.Context, st *spec.Step, env step.Env, next Statements, q Quoting) error {
	t := env.Target
	conn, err := t.DB().Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", t.Name(), err)
	}
	defer conn.Close()
	var savedCols []string
	var savedRows [][]string
	for {
		stmt, line, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		env.LogFile("sql on %s: %s", t.Name(), q.Quote(stmt, 500))
		kept := func() {}
		if names := sqltext.SetGlobals(stmt); len(names) > 0 && env.Globals != nil {
			// the server is left as the run found it, as globals: leave it
			kept = env.Globals.Keep(ctx, t, names)
		}
		cols, rows, err := Query(ctx, conn, stmt)
		if err == nil {
			kept()
		}
		err = q.err(err)
		if err != nil {
			if code := mysqlCode(err); code != 0 && slices.Contains(st.IgnoreErrors, code) {
				env.LogFile("ignored error %d (ignore_errors): %v", code, err)
				continue
			}
			if line > 0 {
				return fmt.Errorf("line %d: %s: %w", line, q.Quote(stmt, 200), err)
			}
			return fmt.Errorf("%s: %w", q.Quote(stmt, 200), err)
		}
		if len(cols) > 0 {
			savedCols, savedRows = cols, rows
		}
	}
	if st.SaveAs != "" && savedCols != nil {
		return save(st, env, savedCols, savedRows)
	}
	return nil
}

// save keeps a result set under the step's save_as; what the server returns may hold a
// secret the plan put in a statement: masked as in the log.
func save(st *spec.Step, env step.Env, cols []string, rows [][]string) error {
	redact := func(vs []string) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = env.Redact(v)
		}
		return out
	}
	out := make([][]string, len(rows))
	for i, row := range rows {
		out[i] = redact(row)
	}
	index := 0
	if env.Iteration != nil {
		index = env.Iteration.Index
	}
	if err := env.Out.SaveResult(st.SaveAs, index, redact(cols), out); err != nil {
		return fmt.Errorf("save_as %s: %w", st.SaveAs, err)
	}
	return nil
}

// Query runs one statement through the text protocol (any statement works, unlike
// prepared statements) and reads its result set, if any, as strings.
func Query(ctx context.Context, conn *gosql.Conn, stmt string) ([]string, [][]string, error) {
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || len(cols) == 0 {
		return nil, nil, err
	}
	var out [][]string
	vals := make([]gosql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	return cols, out, rows.Err()
}

func mysqlCode(err error) int {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number)
	}
	return 0
}

// Abbreviate is s on one line, cut to n characters.
func Abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Printable replaces control characters (escape sequences from a stranger's file) by spaces.
func Printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}
