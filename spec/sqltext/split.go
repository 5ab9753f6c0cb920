// Package sqltext splits SQL text into statements as the mysql/mariadb command-line
// client does, streaming, so a file of any size is never held in memory. Plans use it
// for sql: steps, the executor for sql_file steps and replay.
package sqltext

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// Splitter reads statements from a SQL script without holding it in memory.
// It understands DELIMITER lines, '...' "..." `...` quoting with backslash and
// doubled-quote escapes, -- and # line comments and /* */ comments (dropped),
// and /*! */ /*M! */ executable comments (kept as SQL).
type Splitter struct {
	r     *bufio.Reader
	delim []byte
	line  int // current line, 1-based
	buf   []byte
	start int // line where the current statement starts
	eof   bool
	// limit, when > 0, is the largest statement Next returns (SetLimit); size counts the
	// current statement's bytes, of which buf holds at most limit plus a delimiter's tail.
	limit int
	size  int64
}

// TooLargeError is a statement longer than the splitter's limit (a server's
// max_allowed_packet): its first line, its whole size, and the limit. The statement is
// read to its end to count it, never held.
type TooLargeError struct {
	Line  int
	Size  int64
	Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("line %d: a statement of %d bytes, larger than max_allowed_packet allows (%d bytes)", e.Line, e.Size, e.Limit)
}

// SetLimit bounds the statements Next returns to n bytes: a longer one is an error
// (*TooLargeError), and the splitter never holds more than n bytes of it.
func (s *Splitter) SetLimit(n int) { s.limit = n }

// add appends c to the statement; past the limit only a tail long enough to find the
// delimiter is kept.
func (s *Splitter) add(c byte) {
	s.size++
	if s.limit > 0 && len(s.buf) > s.limit {
		keep := len(s.delim) + 1
		copy(s.buf, s.buf[len(s.buf)-keep:])
		s.buf = s.buf[:keep]
	}
	s.buf = append(s.buf, c)
}

// ended returns the statement just read, or the error when it passed the limit.
func (s *Splitter) ended(stmt []byte) ([]byte, int, error) {
	if s.limit > 0 && s.size > int64(s.limit) && len(stmt) > 0 {
		return nil, 0, &TooLargeError{Line: s.start, Size: s.size, Limit: s.limit}
	}
	return stmt, s.start, nil
}

// NewSplitter reads from r.
func NewSplitter(r io.Reader) *Splitter {
	return &Splitter{r: bufio.NewReaderSize(r, 256<<10), delim: []byte(";"), line: 1}
}

// Next returns the next statement (without its delimiter, trimmed) and the line
// it starts on; io.EOF at the end. The slice is valid until the next call.
func (s *Splitter) Next() ([]byte, int, error) {
	for {
		stmt, line, err := s.next()
		if err != nil {
			return nil, 0, err
		}
		if len(stmt) > 0 {
			return stmt, line, nil
		}
	}
}

func (s *Splitter) readByte() (byte, bool) {
	c, err := s.r.ReadByte()
	if err != nil {
		s.eof = true
		return 0, false
	}
	if c == '\n' {
		s.line++
	}
	return c, true
}

func (s *Splitter) peek() (byte, bool) {
	b, err := s.r.Peek(1)
	if err != nil {
		return 0, false
	}
	return b[0], true
}

func (s *Splitter) next() ([]byte, int, error) {
	if s.eof {
		return nil, 0, io.EOF
	}
	s.buf = s.buf[:0]
	s.start, s.size = 0, 0
	for {
		l := s.line
		c, ok := s.readByte()
		if !ok {
			return s.ended(s.finish())
		}
		switch {
		case c == '\'' || c == '"' || c == '`':
			s.add(c)
			if err := s.quoted(c); err != nil {
				return nil, 0, err
			}
		case c == '#':
			s.skipLine()
		case c == '-' && s.nextIs('-'):
			b, _ := s.r.Peek(2)
			if LineComment("-" + string(b)) {
				s.skipLine()
			} else {
				s.add(c)
			}
		case c == '/' && s.nextIs('*'):
			b, _ := s.r.Peek(2)
			if len(b) == 2 && b[1] == '!' || s.peekString("*M!") {
				s.add(c)
				if err := s.executable(); err != nil {
					return nil, 0, err
				}
			} else {
				s.readByte()
				s.skipComment()
				s.blank(' ')
			}
		default:
			s.add(c)
			if (c == ' ' || c == '\t') && s.size < 256 && s.atDelimiterLine() {
				if err := s.delimiter(); err != nil {
					return nil, 0, err
				}
				return nil, 0, nil
			}
			if c == s.delim[len(s.delim)-1] && bytes.HasSuffix(s.buf, s.delim) {
				s.buf = s.buf[:len(s.buf)-len(s.delim)]
				s.size -= int64(len(s.delim))
				return s.ended(bytes.TrimSpace(s.buf))
			}
		}
		if s.start == 0 && !isSpace(c) && len(bytes.TrimSpace(s.buf)) > 0 {
			s.start = l
		}
	}
}

func (s *Splitter) finish() []byte {
	return bytes.TrimSpace(s.buf)
}

func (s *Splitter) nextIs(c byte) bool {
	b, ok := s.peek()
	return ok && b == c
}

func (s *Splitter) peekString(p string) bool {
	b, _ := s.r.Peek(len(p))
	return string(b) == p
}

func (s *Splitter) skipLine() {
	for {
		c, ok := s.readByte()
		if !ok || c == '\n' {
			s.blank('\n')
			return
		}
	}
}

// blank appends the blank that stands for a dropped comment. After dashes it separates them
// first: "--#c" then a line is two minus signs, "--" then a blank would be a comment.
func (s *Splitter) blank(c byte) {
	if n := len(s.buf) - len(bytes.TrimRight(s.buf, "-")); n >= 2 {
		s.buf = s.buf[:len(s.buf)-n]
		for i := range n {
			if i > 0 {
				s.buf = append(s.buf, ' ')
			}
			s.buf = append(s.buf, '-')
		}
		s.size += int64(n - 1) // the spaces put between the dashes
	}
	s.add(c)
}

func (s *Splitter) skipComment() {
	prev := byte(0)
	for {
		c, ok := s.readByte()
		if !ok || prev == '*' && c == '/' {
			return
		}
		prev = c
	}
}

// executable copies a /*! ... */ comment verbatim (quotes inside respected). Unterminated,
// it is an error, as an unterminated quote is: the server would refuse the statement.
func (s *Splitter) executable() error {
	startLine := s.line
	prev := byte(0)
	for {
		c, ok := s.readByte()
		if !ok {
			return fmt.Errorf("line %d: unterminated /*! comment", startLine)
		}
		s.add(c)
		if prev == '*' && c == '/' {
			return nil
		}
		if c == '\'' || c == '"' || c == '`' {
			if err := s.quoted(c); err != nil {
				return err
			}
			prev = 0
			continue
		}
		prev = c
	}
}

// quoted copies a quoted string up to its closing quote.
func (s *Splitter) quoted(q byte) error {
	startLine := s.line
	for {
		c, ok := s.readByte()
		if !ok {
			return fmt.Errorf("line %d: unterminated %c quote", startLine, q)
		}
		s.add(c)
		switch {
		case c == '\\' && q != '`':
			if c2, ok := s.readByte(); ok {
				s.add(c2)
			}
		case c == q:
			if s.nextIs(q) { // doubled quote
				c2, _ := s.readByte()
				s.add(c2)
				continue
			}
			return nil
		}
	}
}

// atDelimiterLine: the statement so far is exactly "DELIMITER" followed by a blank.
func (s *Splitter) atDelimiterLine() bool {
	t := bytes.TrimLeft(s.buf, " \t\r\n")
	if len(t) != len("delimiter ") && len(t) != len("delimiter\t") {
		return false
	}
	return bytes.EqualFold(t[:9], delimiterWord) && (t[9] == ' ' || t[9] == '\t')
}

// delimiter reads the rest of a DELIMITER line and switches to it.
func (s *Splitter) delimiter() error {
	line := s.line
	var d []byte
	for {
		c, ok := s.readByte()
		if !ok || c == '\n' {
			break
		}
		d = append(d, c)
	}
	d = bytes.TrimSpace(d)
	if i := bytes.IndexAny(d, " \t"); i >= 0 {
		d = d[:i]
	}
	if len(d) == 0 {
		return fmt.Errorf("line %d: DELIMITER without a delimiter", line)
	}
	s.delim = append([]byte(nil), d...)
	s.buf, s.size = s.buf[:0], 0
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

var delimiterWord = []byte("delimiter")

// Split splits SQL text held in memory (a plan's sql: step) into statements.
func Split(text string) ([]string, error) {
	sp := NewSplitter(strings.NewReader(text))
	var out []string
	for {
		stmt, _, err := sp.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(stmt))
	}
}
