package verify

import (
	"context"
	"database/sql/driver"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// setContext is a captured session's settings at one of its statements: the session-scope
// SET assignments seen before it, each variable's last, in the order they were last made.
// A context is never changed once made, so the statements of a session between two SETs
// share one. Contexts are not interned: a session setting a user variable per request would
// make one per statement, kept only while a sample or the session holds it.
type setContext struct {
	key  string // the assignments joined: equal keys are equal contexts
	sets []setAssign
}

// setAssign is one assignment: name is what it sets ("sql_mode", "@a", "names" for SET
// NAMES and SET CHARACTER SET, which set the same variables), text what SET runs again.
type setAssign struct{ name, text string }

// Bounds on what a captured session carries: a session setting more variables, or longer
// ones, than an application's connection setup does is left with those it set first.
const (
	maxSessionSets     = 64
	maxSetText         = 1024
	maxSessionPrepared = 256
)

// capturedSessions follows, in captured order, each session's SETs and text-protocol
// PREPAREs, so that a sample runs in its session's context and an EXECUTE as the text it
// prepared.
type capturedSessions struct {
	byID map[uint64]*capturedSession
	// dropped counts assignments left out by the bounds, for log.txt.
	dropped int64
}

type capturedSession struct {
	set      *setContext
	prepared map[string]string // lower-cased name -> the prepared text
}

func newCapturedSessions() *capturedSessions {
	return &capturedSessions{byID: map[uint64]*capturedSession{}}
}

func (cs *capturedSessions) session(id uint64) *capturedSession {
	s := cs.byID[id]
	if s == nil {
		s = &capturedSession{}
		cs.byID[id] = s
	}
	return s
}

// follow takes a statement that does not write, in captured order: SET, PREPARE and
// DEALLOCATE change its session; an EXECUTE of a statement the session prepared comes back
// as that statement's text. It returns the session's context and the text to run.
func (cs *capturedSessions) follow(s *traffic.Statement) (*setContext, string) {
	body := sqltext.SkipComments(s.Text)
	word := firstWord(body)
	switch word {
	case "SET":
		cs.set(s.Session, strings.TrimSpace(body[3:]))
	case "PREPARE":
		name, text, ok := parsePrepare(body)
		if !ok {
			break
		}
		ss := cs.session(s.Session)
		if ss.prepared == nil {
			ss.prepared = map[string]string{}
		}
		if _, ok := ss.prepared[name]; ok || len(ss.prepared) < maxSessionPrepared {
			ss.prepared[name] = text
		} else {
			cs.dropped++
		}
	case "DEALLOCATE", "DROP":
		// DEALLOCATE PREPARE name, DROP PREPARE name
		w := strings.Fields(strings.TrimSuffix(strings.TrimSpace(body), ";"))
		if len(w) == 3 && strings.EqualFold(w[1], "PREPARE") {
			if ss := cs.byID[s.Session]; ss != nil {
				delete(ss.prepared, unquoteIdent(w[2]))
			}
		}
	}
	ss := cs.byID[s.Session]
	if ss == nil {
		return nil, s.Text
	}
	if word == "EXECUTE" {
		if text, ok := ss.execute(body); ok {
			return ss.set, text
		}
	}
	return ss.set, s.Text
}

// setTarget reads the start of one assignment: what it sets, whether that is a session's
// (not GLOBAL, PERSIST) and where the value starts.
var setTarget = regexp.MustCompile(`(?is)^\s*(?:(GLOBAL|PERSIST|PERSIST_ONLY|SESSION|LOCAL)\s+|@@(GLOBAL|PERSIST|PERSIST_ONLY|SESSION|LOCAL)\.|@@)?(@?` + "`[^`]+`" + `|@?'[^']+'|@?"[^"]+"|@?[\w$.]+)\s*(:?=)\s*`)

// set adds one SET statement's assignments (body is what follows SET) to the session.
// SET TRANSACTION (the next transaction's), ROLE, PASSWORD and STATEMENT ... FOR are not a
// session's lasting settings.
func (cs *capturedSessions) set(id uint64, body string) {
	w := strings.Fields(strings.ToUpper(body))
	if len(w) == 0 {
		return
	}
	switch w[0] {
	case "TRANSACTION", "ROLE", "DEFAULT", "PASSWORD", "STATEMENT":
		return
	case "SESSION", "LOCAL":
		if len(w) > 1 && w[1] == "TRANSACTION" {
			return
		}
	}
	ss := cs.session(id)
	sets := ss.set.assignments()
	changed := false
	for _, a := range splitTop(strings.TrimSuffix(strings.TrimSpace(body), ";")) {
		a = strings.TrimSpace(a)
		var name, text string
		up := strings.ToUpper(a)
		switch {
		case strings.HasPrefix(up, "NAMES ") || strings.HasPrefix(up, "CHARACTER SET ") || strings.HasPrefix(up, "CHARSET "):
			name, text = "names", a
		default:
			m := setTarget.FindStringSubmatchIndex(a)
			if m == nil {
				// not an assignment this reads: the session's context would be a guess
				cs.dropped++
				continue
			}
			scope := ""
			for g := 1; g <= 2; g++ {
				if m[2*g] >= 0 {
					scope = strings.ToUpper(a[m[2*g]:m[2*g+1]])
				}
			}
			if scope == "GLOBAL" || scope == "PERSIST" || scope == "PERSIST_ONLY" {
				continue
			}
			v := a[m[6]:m[7]]
			if strings.HasPrefix(v, "@") {
				name = "@" + strings.ToLower(unquoteIdent(v[1:]))
				text = a[m[6]:]
			} else {
				name = strings.ToLower(unquoteIdent(v))
				text = "SESSION " + v + " = " + a[m[1]:]
			}
		}
		if len(text) > maxSetText {
			cs.dropped++
			continue
		}
		// The last assignment of a variable is the one in effect; moving it to the end keeps
		// the order of what follows it (SET NAMES after SET collation_connection wins).
		at := -1
		for i, s := range sets {
			if s.name == name {
				at = i
			}
		}
		if at < 0 && len(sets) >= maxSessionSets {
			cs.dropped++
			continue
		}
		if at >= 0 {
			sets = append(sets[:at], sets[at+1:]...)
		}
		sets = append(sets, setAssign{name: name, text: text})
		changed = true
	}
	if changed {
		ss.set = newSetContext(sets)
	}
}

func (c *setContext) assignments() []setAssign {
	if c == nil {
		return nil
	}
	return append([]setAssign(nil), c.sets...)
}

func newSetContext(sets []setAssign) *setContext {
	texts := make([]string, len(sets))
	for i, s := range sets {
		texts[i] = s.text
	}
	key := strings.Join(texts, ", ")
	return &setContext{key: key, sets: sets}
}

// parsePrepare reads PREPARE name FROM 'text'; a statement prepared from a user variable
// (FROM @sql) is not followed: its text is not in the capture.
func parsePrepare(body string) (name, text string, ok bool) {
	m := prepareStmt.FindStringSubmatch(body)
	if m == nil {
		return "", "", false
	}
	text, ok = unquoteString(strings.TrimSuffix(strings.TrimSpace(m[2]), ";"))
	return unquoteIdent(m[1]), text, ok
}

var prepareStmt = regexp.MustCompile("(?is)^\\s*PREPARE\\s+(`[^`]+`|\\w+)\\s+FROM\\s+(.+)$")

var executeStmt = regexp.MustCompile("(?is)^\\s*EXECUTE\\s+(`[^`]+`|\\w+)\\s*(?:USING\\s+(.+?))?\\s*;?\\s*$")

// literal is a value SET may give a user variable that can stand in a statement as it is.
var literal = regexp.MustCompile(`(?is)^(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|'(?:[^'\\]|\\.|'')*'|NULL|TRUE|FALSE)$`)

// execute is the text an EXECUTE runs: the prepared text with each ? replaced by its USING
// variable's value when the session set it to a literal, else by the variable itself (which
// the sample's context sets).
func (ss *capturedSession) execute(body string) (string, bool) {
	m := executeStmt.FindStringSubmatch(body)
	if m == nil {
		return "", false
	}
	text, ok := ss.prepared[unquoteIdent(m[1])]
	if !ok {
		return "", false
	}
	var args []string
	if m[2] != "" {
		for _, a := range splitTop(m[2]) {
			a = strings.TrimSpace(a)
			v := a
			if strings.HasPrefix(a, "@") {
				name := "@" + strings.ToLower(unquoteIdent(a[1:]))
				for _, s := range ss.set.assignments() {
					if s.name != name {
						continue
					}
					if i := strings.Index(s.text, "="); i >= 0 {
						if val := strings.TrimSpace(s.text[i+1:]); literal.MatchString(val) {
							v = val
						}
					}
				}
			}
			args = append(args, v)
		}
	}
	out, n := replacePlaceholders(text, args)
	if n != len(args) {
		// the server would refuse it (wrong number of parameters): run it as captured
		return "", false
	}
	return out, true
}

// replacePlaceholders puts args in place of the ? outside quotes and comments, in order; n is
// how many ? there were.
func replacePlaceholders(text string, args []string) (string, int) {
	var b strings.Builder
	n := 0
	scan(text, func(i int, c byte, code bool) {
		if code && c == '?' {
			if n < len(args) {
				b.WriteString(args[n])
			} else {
				b.WriteByte('?')
			}
			n++
			return
		}
		b.WriteByte(c)
	})
	return b.String(), n
}

// splitTop splits at the commas outside quotes and parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	scan(s, func(i int, c byte, code bool) {
		if !code {
			return
		}
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	})
	return append(out, s[start:])
}

// scan calls f for each byte of s, code false inside quotes (single, double, backtick;
// backslash escapes in the first two) and slash-star comments.
func scan(s string, f func(i int, c byte, code bool)) {
	var quote byte
	comment := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case comment:
			f(i, c, false)
			if c == '/' && i > 0 && s[i-1] == '*' {
				comment = false
			}
		case quote != 0:
			f(i, c, false)
			if c == '\\' && quote != '`' && i+1 < len(s) {
				i++
				f(i, s[i], false)
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
			f(i, c, false)
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			comment = true
			f(i, c, false)
		default:
			f(i, c, true)
		}
	}
}

func unquoteIdent(s string) string {
	if len(s) >= 2 && (s[0] == '`' || s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		q := string(s[0])
		return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
	}
	return strings.ToLower(s)
}

// unquoteString reads a quoted SQL string literal with the server's escapes.
func unquoteString(s string) (string, bool) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] {
		return "", false
	}
	q := s[0]
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'Z':
				b.WriteByte(26)
			default:
				b.WriteByte(s[i])
			}
		case c == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case c == q:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// equal: the same settings (nil is the defaults).
func (c *setContext) equal(d *setContext) bool {
	if c == nil || d == nil {
		return len(c.assignments()) == len(d.assignments())
	}
	return c == d || c.key == d.key
}

// startOf says the connection's settings c can become d by adding SETs: c's assignments
// begin d's.
func (c *setContext) startOf(d *setContext) bool {
	if c == nil || c.equal(d) {
		return true
	}
	if d == nil || len(c.sets) > len(d.sets) {
		return false
	}
	for i := range c.sets {
		if c.sets[i] != d.sets[i] {
			return false
		}
	}
	return true
}

// readyFor is ready in the sample's captured context as well as its default database. A
// connection whose settings are not the start of the sample's is replaced by a fresh one
// (a new session's defaults: the only reset every server and variable agrees on), then the
// SETs it lacks run. A SET the target refuses is noted in setupErr, compared like the
// statement's own error; the statement still runs.
func (s *session) readyFor(ctx context.Context, smp sample) (code int, ok bool) {
	for attempt := 0; ; attempt++ {
		if !s.applied.startOf(smp.set) {
			s.discard()
		}
		code, ok := s.ready(ctx, smp.schema)
		if !ok || code != 0 {
			return code, ok
		}
		err := s.applyContext(ctx, smp.set)
		if err == nil {
			return 0, true
		}
		if ctx.Err() != nil || attempt > 0 {
			s.lost = err.Error()
			return 0, false
		}
		s.discard()
	}
}

func (s *session) applyContext(ctx context.Context, want *setContext) error {
	if s.applied.equal(want) {
		s.applied = want
		return nil
	}
	have := len(s.applied.assignments())
	var failed []string
	if s.setupErr != "" {
		failed = []string{s.setupErr}
	}
	for _, a := range want.assignments()[have:] {
		if _, err := s.conn.ExecContext(ctx, "SET "+a.text); err != nil {
			code, ok := errorCode(err)
			if !ok {
				return err
			}
			failed = append(failed, fmt.Sprintf("SET %s: error %d", a.text, code))
		}
	}
	s.applied, s.setupErr = want, strings.Join(failed, "; ")
	return nil
}

// discard closes the connection for good instead of giving it back to the pool, where the
// next to take it would inherit its settings.
func (s *session) discard() {
	if s.conn == nil {
		return
	}
	_ = s.conn.Raw(func(any) error { return driver.ErrBadConn })
	s.conn.Close()
	s.conn, s.applied, s.setupErr = nil, nil, ""
}

// groupByContext orders each fingerprint's samples by their settings, the defaults first, so
// that a target's connection is replaced once per settings rather than once per sample. The
// order is the same for every target: their runs stay sample for sample comparable.
func groupByContext(fps []*fingerprint) {
	for _, fp := range fps {
		slices.SortStableFunc(fp.samples, func(a, b sample) int {
			return strings.Compare(a.set.keyOrNone(), b.set.keyOrNone())
		})
	}
}

func (c *setContext) keyOrNone() string {
	if c == nil {
		return ""
	}
	return c.key
}
