package traffic

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"time"
)

// slowReader parses the slow query log. An entry is a run of "# " header lines (Time,
// User@Host, Thread_id/Schema, Query_time, and whatever extended fields the server adds:
// log_slow_verbosity, log_slow_extra, Percona's), then "use db;" and "SET timestamp=N;" lines
// the server adds, then the statement text up to the next header line.
//
// When a statement started: MySQL's log_slow_extra Start: when present; else the microsecond
// "# Time:" (MySQL 5.7+, written when the statement ended) minus Query_time; else the
// "SET timestamp=N" second (MariaDB writes only whole seconds, so statements in one second keep
// their order but not their gaps).
type slowReader struct {
	l        *lines
	time     time.Time // the last "# Time:", which MariaDB writes only when the second changes
	precise  bool      // time has microseconds
	schema   string    // MySQL writes "use db;" only when the database changes
	text     strings.Builder
	cur      Statement
	curStart time.Time // Start: field
	ts       int64     // SET timestamp
	admin    bool
	bad      bool // a header line was malformed: the entry is dropped
	anchored bool // line is the entry's "# Time:" or "# User@Host:", not a comment above it
	inEntry  bool
	line     int
}

func (r *slowReader) reset() {
	r.cur = Statement{Session: 0, Schema: r.schema}
	unknown(&r.cur)
	r.curStart, r.ts, r.admin, r.bad, r.inEntry, r.anchored = time.Time{}, 0, false, false, false, false
	r.text.Reset()
}

func (r *slowReader) next() (*Statement, error) {
	if !r.inEntry {
		r.reset()
	}
	for {
		line, err := r.l.next()
		if err == io.EOF {
			if r.inEntry {
				if s, ok := r.finish(); ok {
					r.inEntry = false
					return s, nil
				}
				r.inEntry = false
				if r.admin || r.bad {
					return nil, io.EOF
				}
				return nil, r.l.errorf(r.line, "entry has no statement text (truncated log?)")
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if serverHeader(line) {
			continue
		}
		if bytes.HasPrefix(line, []byte("# ")) || bytes.Equal(line, []byte("#")) {
			if r.inEntry && r.text.Len() > 0 {
				r.l.unread()
				s, ok := r.finish()
				r.inEntry = false
				if !ok {
					r.reset()
					continue
				}
				return s, nil
			}
			if !r.inEntry {
				r.reset()
				r.inEntry, r.line = true, r.l.n
			}
			if err := r.header(line); err != nil {
				r.bad = true
				return nil, err
			}
			continue
		}
		if !r.inEntry {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			return nil, r.l.errorf(r.l.n, "statement text outside a slow log entry (no # User@Host: / # Query_time: before it)")
		}
		if r.text.Len() == 0 {
			if db, ok := useLine(line); ok {
				r.schema, r.cur.Schema = db, db
				continue
			}
			if v, ok := bytes.CutPrefix(line, []byte("SET timestamp=")); ok {
				if n, err := strconv.ParseInt(string(bytes.TrimSuffix(v, []byte(";"))), 10, 64); err == nil {
					r.ts = n
					continue
				}
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
		} else {
			r.text.WriteByte('\n')
		}
		r.text.Write(line)
	}
}

// useLine recognises the "use db;" line the server writes before an entry's text.
func useLine(line []byte) (string, bool) {
	v, ok := bytes.CutPrefix(line, []byte("use "))
	if !ok || !bytes.HasSuffix(v, []byte(";")) {
		return "", false
	}
	db := string(bytes.TrimSuffix(v, []byte(";")))
	if strings.HasPrefix(db, "`") && strings.HasSuffix(db, "`") && len(db) >= 2 {
		db = strings.ReplaceAll(db[1:len(db)-1], "``", "`")
	}
	return db, true
}

// finish turns the entry into a statement; false for entries that are not statements
// (administrator commands).
func (r *slowReader) finish() (*Statement, bool) {
	if r.admin || r.bad {
		return nil, false
	}
	s := r.cur
	s.Line = r.line
	s.Text = strings.TrimSpace(r.text.String())
	s.Text = strings.TrimSpace(strings.TrimSuffix(s.Text, ";"))
	if s.Text == "" {
		return nil, false
	}
	switch {
	case !r.curStart.IsZero():
		s.Start = r.curStart
	case r.precise && !r.time.IsZero() && s.Duration >= 0:
		s.Start = r.time.Add(-s.Duration)
	case r.ts > 0:
		s.Start = time.Unix(r.ts, 0)
	case !r.time.IsZero():
		s.Start = r.time
		if s.Duration > 0 {
			s.Start = s.Start.Add(-s.Duration)
		}
	}
	return &s, true
}

func (r *slowReader) header(line []byte) error {
	h := string(bytes.TrimPrefix(line, []byte("#")))
	h = strings.TrimSpace(h)
	if !r.anchored && (strings.HasPrefix(h, "Time:") || strings.HasPrefix(h, "User@Host:")) {
		r.line, r.anchored = r.l.n, true
	}
	switch {
	case strings.HasPrefix(h, "Time:"):
		t, precise, ok := parseLogTime(strings.TrimSpace(strings.TrimPrefix(h, "Time:")))
		if !ok {
			return r.l.errorf(r.l.n, "cannot read the time in %q", line)
		}
		r.time, r.precise = t, precise
		return nil
	case strings.HasPrefix(h, "User@Host:"):
		rest := strings.TrimSpace(strings.TrimPrefix(h, "User@Host:"))
		if i := strings.IndexByte(rest, '['); i >= 0 {
			// "priv_user[user]": the account the privileges came from, else the name
			// the client gave (an anonymous account has no priv_user).
			r.cur.User = strings.TrimSpace(rest[:i])
			if j := strings.IndexByte(rest[i:], ']'); r.cur.User == "" && j > 0 {
				r.cur.User = rest[i+1 : i+j]
			}
		} else if f := strings.Fields(rest); len(f) > 0 {
			r.cur.User = f[0]
		}
		if i := strings.Index(rest, "Id:"); i >= 0 {
			id, err := strconv.ParseUint(strings.TrimSpace(rest[i+3:]), 10, 64)
			if err != nil {
				return r.l.errorf(r.l.n, "cannot read the connection Id in %q", line)
			}
			r.cur.Session = id
		}
		return nil
	case strings.HasPrefix(h, "administrator command:"):
		r.admin = true
		return nil
	}
	// "Key: value  Key: value" fields; unknown ones (extended fields) are skipped.
	for key, val := range fields(h) {
		var err error
		switch key {
		case "Thread_id":
			r.cur.Session, err = strconv.ParseUint(val, 10, 64)
		case "Schema":
			// Empty for a session with no default database: the statement runs without one,
			// whatever an earlier entry's database was.
			r.cur.Schema, r.schema = val, val
		case "Query_time":
			r.cur.Duration, err = seconds(val)
		case "Rows_sent":
			r.cur.RowsSent, err = strconv.ParseInt(val, 10, 64)
		case "Rows_examined":
			r.cur.RowsExamined, err = strconv.ParseInt(val, 10, 64)
		case "Errno", "Last_errno":
			// MySQL's log_slow_extra, Percona Server's extended fields: the error the statement
			// ended with (0: none).
			var n int64
			n, err = strconv.ParseInt(val, 10, 32)
			r.cur.Error = int(n)
		case "Start":
			var ok bool
			if r.curStart, _, ok = parseLogTime(val); !ok {
				return r.l.errorf(r.l.n, "cannot read Start: %q", val)
			}
		}
		if err != nil {
			return r.l.errorf(r.l.n, "cannot read %s: %q", key, val)
		}
	}
	return nil
}

// fields yields the "Key: value" pairs of a header line. A value is one word or nothing:
// MariaDB writes "Schema:   QC_hit: No" and Percona "Schema:   Last_errno: 0" for a session
// with no default database, so a word shaped like a key (letters, digits and _, then a colon)
// starts the next pair instead of being the value. The log does not quote names, so a
// database really named like "QC_hit:" cannot be told from an empty one; no server is known
// to carry such a name, while sessions without a database are common.
func fields(h string) func(func(string, string) bool) {
	return func(yield func(string, string) bool) {
		f := strings.Fields(h)
		for i := 0; i < len(f); i++ {
			k, ok := keyWord(f[i])
			if !ok {
				continue
			}
			val := ""
			if i+1 < len(f) {
				if _, next := keyWord(f[i+1]); !next {
					val = f[i+1]
					i++
				}
			}
			if !yield(k, val) {
				return
			}
		}
	}
}

// keyWord reports whether w is a header field's name with its colon, and the name.
func keyWord(w string) (string, bool) {
	k, ok := strings.CutSuffix(w, ":")
	if !ok || k == "" {
		return "", false
	}
	for i, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return "", false
		}
	}
	return k, true
}

func seconds(v string) (time.Duration, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return -1, strconv.ErrSyntax
	}
	return time.Duration(f * float64(time.Second)), nil
}

// parseLogTime reads the times servers write in their logs: ISO 8601 with microseconds
// (MySQL 5.7+), or "YYMMDD HH:MM:SS" in local time (MariaDB, MySQL 5.6; hours may be
// space-padded). precise says the time has sub-second digits.
func parseLogTime(v string) (t time.Time, precise, ok bool) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, strings.Contains(v, "."), true
	}
	if t, err := time.Parse("2006-01-02T15:04:05.999999", v); err == nil {
		return t, strings.Contains(v, "."), true
	}
	f := strings.Fields(v)
	if len(f) == 2 {
		hms := f[1]
		if strings.IndexByte(hms, ':') == 1 {
			hms = "0" + hms
		}
		// Percona Server 5.x adds microseconds to this layout ("130601  8:01:06.058915").
		if t, err := time.ParseInLocation("060102 15:04:05.999999", f[0]+" "+hms, time.Local); err == nil {
			return t, strings.Contains(hms, "."), true
		}
	}
	return time.Time{}, false, false
}
