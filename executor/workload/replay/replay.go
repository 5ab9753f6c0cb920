// Package replay runs a SQL file statement by statement, in file order, on one or more
// connections, as `mariadb < file` would.
package replay

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// Source is an open SQL file shared by the replay connections: each takes
// the next statement in file order when it is free (so with one connection
// the file runs exactly in order).
type Source struct {
	name string
	f    *os.File
	mu   sync.Mutex
	sp   *sqltext.Splitter
}

// OpenWith opens a SQL file for replay with open (the plan's roots' Open).
func OpenWith(path string, open func(string) (*os.File, error)) (*Source, error) {
	f, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return &Source{name: path, f: f, sp: sqltext.NewSplitter(f)}, nil
}

// Close closes the file.
func (s *Source) Close() error { return s.f.Close() }

// next copies the next statement into buf.
func (s *Source) next(buf []byte) ([]byte, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stmt, line, err := s.sp.Next()
	if err != nil {
		return buf, 0, err
	}
	return append(buf[:0], stmt...), line, nil
}

// NewWorker returns a worker reading from s.
func (s *Source) NewWorker() *Worker { return &Worker{src: s} }

// Worker executes one statement per event, text protocol, as the file says
// (no implicit transactions, autocommit as set by the file).
type Worker struct {
	src     *Source
	buf     []byte
	sql     string
	line    int
	rows    bool
	pending bool // a statement failed and is retried (ignored error)
	dest    []driver.Value
}

// Event runs the next statement, or retries the failed one.
func (w *Worker) Event(c *engine.Conn) (int, error) {
	if !w.pending {
		var err error
		w.buf, w.line, err = w.src.next(w.buf)
		if errors.Is(err, io.EOF) {
			return 0, engine.ErrDone
		}
		if err != nil {
			return 0, &engine.AbortError{Reason: fmt.Sprintf("%s: %v", w.src.name, err), Err: err}
		}
		w.sql = string(w.buf)
		w.rows = engine.ReturnsRows(w.sql)
	}
	var err error
	w.dest, err = c.ExecText(w.sql, w.rows, w.dest)
	if err != nil {
		w.pending = true
		return 0, fmt.Errorf("%s:%d: %w", w.src.name, w.line, err)
	}
	w.pending = false
	return 0, nil
}
