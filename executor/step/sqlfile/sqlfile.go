// Package sqlfile is the sql_file: step kind: a file of statements, split as the mysql
// client does (DELIMITER aware) and streamed, run on one connection to the step's target.
// A sql_file may be any file (a stranger's folder), so its statements are quoted to a
// short printable snippet only.
package sqlfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/step"
	sqlstep "github.com/quadrant-bench/quadrant/executor/step/sql"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// Kind is the sql_file step kind.
var Kind = spec.StepKind{
	Key: "sql_file", DocType: "string", Doc: "A file of statements, path relative to the plan; DELIMITER aware.",
	Body: func() any { return new(Body) }, Target: true, Keys: []string{"ignore_errors", "timeout"},
	Check: check,
	Reads: func(s *spec.Step) []spec.DataFile {
		b := Of(s)
		return []spec.DataFile{{File: b.File, Path: b.Path}}
	},
	Inspect: oversized,
	Effects: effects,
	Explain: explain,
	Impl:    step.Func(run),
}

// Body is a sql_file step's file, as written and resolved against the plan's directory.
type Body struct {
	File string
	Path string
}

// SetString reads the file's name (spec.Scalar); Check resolves it.
func (b *Body) SetString(s string) { b.File = s }

// Of is s's body.
func Of(s *spec.Step) *Body { return spec.StepBody[*Body](s) }

func check(c *spec.Check, s *spec.Step) {
	b := Of(s)
	at := s.Src.At("sql_file")
	if c.Restoring() {
		if p, ok := c.WrittenBySetup(b.File, at, "sql_file"); ok {
			b.Path = p // read after setup, which writes it
			return
		}
	}
	b.Path = c.Input(b.File, at, "sql_file")
}

// effects are what the file's statements do to the server beyond the plan's own
// databases, on the user's servers (a sandbox's changes go with it).
func effects(p *spec.Plan, ps spec.PlacedStep) []spec.Effect {
	b := Of(ps.Step)
	return sqlstep.PathEffects(p, ps, ps.Step.Src.At("sql_file"), "sql_file "+b.File, b.Path)
}

func explain(s *spec.Step, x spec.Explainer) spec.Explanation {
	on := ""
	if s.Target != "" {
		on = " on " + s.Target
	}
	b := Of(s)
	return spec.Explanation{Line: fmt.Sprintf("sql_file%s: %s", on, b.Path), More: x.Statements(b.Path)}
}

// snippet is how much of a statement read from a file the log and errors quote: a
// sql_file may be any file (a symlink to /etc/shadow once put its lines in log.txt), so
// only a short, single line of printable text, enough to find the statement by its line.
const snippet = 40

func run(ctx context.Context, st *spec.Step, env step.Env) error {
	path := Of(st).Path
	f, err := env.Roots.Open(path) // a symlink swapped in since validation leads nowhere
	if err != nil {
		return err
	}
	defer f.Close()
	var size float64
	if fi, err := f.Stat(); err == nil {
		size = float64(fi.Size())
	}
	read := &countingReader{r: f}
	t := env.Track(env.Where, "bytes", size)
	defer t.Finish()
	sp := sqltext.NewSplitter(read)
	sp.SetLimit(packetLimit(ctx, env.Target)) // a statement the server would refuse is never held whole
	statements := 0
	next := func() (string, int, error) {
		stmt, line, err := sp.Next()
		if err != nil && err != io.EOF {
			err = fmt.Errorf("%s: %w", path, tooLarge(env.Target.Name(), err))
		}
		if err == nil {
			statements++
			t.Update(float64(read.n), size, fmt.Sprintf("%d statements", statements))
		}
		return string(stmt), line, err
	}
	return sqlstep.Run(ctx, st, env, next, sqlstep.Quoting{Max: snippet, Err: quoteErr})
}

// countingReader counts the bytes read through it: how far into a SQL file a step is.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
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

// quoteErr is err as the step reports it: what the server quoted of the statement is cut
// to a short printable snippet.
func quoteErr(err error) error {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return err
	}
	q := sqlstep.Quoting{Max: snippet}
	msg := serverNear.ReplaceAllStringFunc(me.Error(), func(m string) string {
		inner := strings.TrimSuffix(strings.TrimPrefix(m, "near '"), "' at line")
		return "near '" + q.Quote(inner, snippet) + "' at line"
	})
	return &stmtError{err: me, msg: sqlstep.Printable(msg)}
}
