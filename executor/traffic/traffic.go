// Package traffic reads captured server traffic, statement by statement, without holding a
// log in memory: the slow query log (MySQL, MariaDB and Percona Server formats, with
// long_query_time=0), the general query log (file format), quadrant's own capture file
// (.qcap) and a plain SQL file. Replay runs what it reads; `quadrant capture` writes .qcap.
package traffic

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// The formats, as `replay: {format: ...}` names them.
const (
	SQL     = "sql"
	SlowLog = "slowlog"
	General = "general"
	QCap    = "qcap"
)

// Formats are the names format: accepts ("auto" detects).
var Formats = []string{"auto", SQL, SlowLog, General, QCap}

// Statement is one statement a server ran, as the source recorded it. Unknown numbers are -1,
// an unknown start is the zero time.
type Statement struct {
	Session  uint64 // the server's connection (thread) id; 0 for a plain SQL file
	Start    time.Time
	Duration time.Duration
	Schema   string // the default database it ran in, when the source says
	User     string
	RowsSent int64
	// RowsExamined is what the server reports, -1 when unknown.
	RowsExamined int64
	// Error is the error number the statement ended with as captured: 0 succeeded, -1 unknown
	// (performance_schema and MySQL's log_slow_extra record it; MariaDB's logs do not).
	Error int
	Text  string
	Line  int // where the statement's record starts in the file
	// ClockStart and ClockEnd are when the statement started and ended on the capture's
	// own clock, in picoseconds from an origin of the capture's: one clock for every
	// session, finer than Start and Duration (performance_schema's timer), so that replay
	// keeps the captured commit order (order: commit). 0 when the source has none.
	ClockStart, ClockEnd int64
}

func unknown(s *Statement) {
	s.Duration, s.RowsSent, s.RowsExamined, s.Error = -1, -1, -1, -1
}

// LineError is a malformed or truncated record: file:line and what is wrong with it.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Options say what to do with bad records.
type Options struct {
	// Format is one of Formats; "" or "auto" detects it from the content.
	Format string
	// SkipMalformed skips a malformed record (after telling OnSkip) instead of stopping.
	SkipMalformed bool
	OnSkip        func(*LineError)
	// Open opens the file; nil is os.Open. A plan's file is opened through the plan's
	// roots (spec.Plan.Roots), so a symlink swapped in after validation leads nowhere.
	Open func(path string) (*os.File, error)
}

// reader is one format's parser.
type reader interface {
	next() (*Statement, error)
}

// File is an open traffic source.
type File struct {
	Name   string
	Format string
	// Timed says the source records when each statement started (timing: original needs it).
	Timed bool
	// EndOrder says the file holds the statements in the order they ended (a slow log,
	// written as each statement ends), not the order they started.
	EndOrder bool
	// State is what a capture file says of its tables at its start and end; nil when none.
	State *State
	f     *os.File
	r     reader
	opts  Options
}

// ErrNewerVersion is wrapped by the error for a capture file newer than this quadrant reads.
var ErrNewerVersion = errors.New("capture file format is newer than this quadrant reads")

// Open opens a traffic file, detecting its format unless opts.Format names it.
func Open(path string, opts Options) (*File, error) {
	open := opts.Open
	if open == nil {
		open = os.Open
	}
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 256<<10)
	format := opts.Format
	if format == "" || format == "auto" {
		format = Detect(br)
	}
	tf := &File{Name: path, Format: format, f: f, opts: opts}
	lr := &lines{r: br, name: path}
	switch format {
	case SQL:
		tf.r = newSQLReader(br)
	case SlowLog:
		tf.r, tf.Timed, tf.EndOrder = &slowReader{l: lr}, true, true
	case General:
		tf.r, tf.Timed = &generalReader{l: lr, sessions: map[uint64]*genSession{}}, true
	case QCap:
		q, err := newQCapReader(lr)
		if err != nil {
			f.Close()
			return nil, err
		}
		tf.r, tf.Timed, tf.EndOrder, tf.State = q, q.header.Timed, q.header.EndOrder, q.header.State
	default:
		f.Close()
		return nil, fmt.Errorf("%s: unknown traffic format %q (known: %v)", path, format, Formats)
	}
	return tf, nil
}

// Next returns the next statement; io.EOF after the last. A malformed record is a *LineError
// unless Options.SkipMalformed.
func (t *File) Next() (*Statement, error) {
	for {
		s, err := t.r.next()
		var le *LineError
		if errors.As(err, &le) && t.opts.SkipMalformed {
			if t.opts.OnSkip != nil {
				t.opts.OnSkip(le)
			}
			continue
		}
		return s, err
	}
}

// Close closes the file.
func (t *File) Close() error { return t.f.Close() }

// Detect names the format of the buffered content by its first records, without consuming them.
func Detect(br *bufio.Reader) string {
	head, _ := br.Peek(64 << 10)
	if bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte(`{"qcap"`)) {
		return QCap
	}
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimRight(line, "\r")
		switch {
		case bytes.HasPrefix(line, []byte("# User@Host:")), bytes.HasPrefix(line, []byte("# Query_time:")),
			bytes.HasPrefix(line, []byte("# Time:")):
			return SlowLog
		case serverHeader(line):
			continue
		}
		if _, ok := parseGeneral(line); ok {
			return General
		}
	}
	return SQL
}

// serverHeader is one of the three lines a server writes at the top of a log file (and again
// after FLUSH LOGS): "mariadbd, Version: ... started with:", "Tcp port: ...", "Time Id Command Argument".
func serverHeader(line []byte) bool {
	return bytes.HasSuffix(line, []byte("started with:")) || bytes.HasPrefix(line, []byte("Tcp port:")) ||
		bytes.HasPrefix(line, []byte("Time")) && bytes.Contains(line, []byte("Id Command")) && bytes.HasSuffix(line, []byte("Argument"))
}

// lines reads a file line by line, any line length, counting lines.
type lines struct {
	r    *bufio.Reader
	name string
	n    int
	buf  []byte
	back bool // the last line is read again
}

// next returns the next line without its newline; valid until the next call.
func (l *lines) next() ([]byte, error) {
	if l.back {
		l.back = false
		return l.buf, nil
	}
	l.buf = l.buf[:0]
	for {
		part, err := l.r.ReadSlice('\n')
		l.buf = append(l.buf, part...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(l.buf) > 0 {
				break
			}
			return nil, err
		}
		break
	}
	l.n++
	l.buf = bytes.TrimRight(l.buf, "\r\n")
	return l.buf, nil
}

// unread makes next return the last line again.
func (l *lines) unread() { l.back = true }

func (l *lines) errorf(line int, format string, args ...any) *LineError {
	return &LineError{File: l.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}
