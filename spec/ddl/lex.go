package ddl

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pos is a place in a schema file: 1-based line and column (in characters).
type Pos struct {
	Line, Col int
}

// token kinds
const (
	tWord   = 'w' // an unquoted word: keyword or name
	tName   = 'q' // a `quoted` name
	tString = 's' // a '...' or "..." string, its value unescaped
	tNumber = 'n'
	tPunct  = 'p'
)

type token struct {
	kind byte
	text string
	pos  Pos
}

// is says whether t is the unquoted word w (case-insensitive): a backquoted `key` is a name,
// never the keyword.
func (t token) is(w string) bool { return t.kind == tWord && strings.EqualFold(t.text, w) }

// statement is the tokens of one statement, its position that of its first token.
type statement struct {
	toks []token
	// broken is set when the text ended inside a quote or comment: the statement is not read.
	broken bool
	// varies is set when a versioned comment in it is read differently by MariaDB and MySQL,
	// and the server is not known (AnyServer).
	varies bool
}

// Server is the server whose reading of executable comments a schema file gets: both run
// /*! ... */ and /*!NNNNN ... */ up to version 5.7 (NNNNN < 50700); MariaDB skips
// /*!50700 ... */ to /*!99999 ... */ (MySQL 5.7 and 8 syntax it may not know, such as
// /*!80003 SRID 0 */ or a /*!50705 ... GEOMETRY */ column) and runs /*M! ... */ and
// six-digit versions (its own, 100500 and up), which MySQL skips as ordinary comments
// (MySQL 8.0 reads five digits).
type Server int

const (
	// AnyServer is a server not known when the file is read: a statement with a comment the
	// two servers read differently leaves the tables it creates or alters unread, to the
	// run, which checks what the server made of it.
	AnyServer Server = iota
	MariaDB
	MySQL
)

// runs says whether the server runs an executable comment (/*M! when mariaOnly) of version
// (0 when none), and whether MariaDB and MySQL differ on it. A version above the server's
// own is taken as not above it (the file is written for the server it runs on).
func (srv Server) runs(mariaOnly bool, version int) (runs, varies bool) {
	maria := mariaOnly || version < 50700 || version > 99999
	mysql := !mariaOnly && version <= 99999
	switch srv {
	case MariaDB:
		return maria, false
	case MySQL:
		return mysql, false
	}
	return true, maria != mysql
}

// lexer cuts a script into statements as the mysql client does: DELIMITER lines, quotes,
// -- # /* */ comments dropped, and /*! */ /*M! */ executable comments read as SQL where the
// server runs them (mysqldump wraps table options and more in them), dropped where it
// does not (see Server).
type lexer struct {
	src       string
	i         int
	line, col int
	delim     string
	inExec    bool // inside an executable comment: its closing */ is dropped
	srv       Server
	varies    bool // the statement has a comment MariaDB and MySQL read differently
}

func lexStatements(src string, srv Server) []statement {
	lx := &lexer{src: src, line: 1, col: 1, delim: ";", srv: srv}
	var out []statement
	for {
		st, more := lx.statement()
		if len(st.toks) > 0 {
			out = append(out, st)
		}
		if !more {
			return out
		}
	}
}

func (lx *lexer) advance(n int) {
	for k := 0; k < n && lx.i < len(lx.src); k++ {
		c := lx.src[lx.i]
		lx.i++
		switch {
		case c == '\n':
			lx.line, lx.col = lx.line+1, 1
		case c < utf8.RuneSelf || utf8.RuneStart(c):
			lx.col++
		}
	}
}

func (lx *lexer) rest() string { return lx.src[lx.i:] }

// statement reads the next statement; more is false at the end of the text.
func (lx *lexer) statement() (st statement, more bool) {
	lx.varies = false
	defer func() { st.varies = lx.varies }()
	for {
		lx.skipBlank()
		if lx.i >= len(lx.src) {
			return st, false
		}
		r := lx.rest()
		if len(st.toks) == 0 && len(r) > 10 && strings.EqualFold(r[:9], "delimiter") && (r[9] == ' ' || r[9] == '\t') {
			end := strings.IndexByte(r, '\n')
			if end < 0 {
				end = len(r)
			}
			if f := strings.Fields(r[10:end]); len(f) > 0 {
				lx.delim = f[0]
			}
			lx.advance(end)
			continue
		}
		if strings.HasPrefix(r, lx.delim) {
			lx.advance(len(lx.delim))
			return st, true
		}
		t, ok := lx.token()
		if !ok {
			st.broken = true
			return st, false
		}
		st.toks = append(st.toks, t)
	}
}

// skipBlank skips blanks and comments, and the opening and closing of executable comments.
func (lx *lexer) skipBlank() {
	for lx.i < len(lx.src) {
		r := lx.rest()
		switch {
		case r[0] == ' ' || r[0] == '\t' || r[0] == '\n' || r[0] == '\r' || r[0] == '\f' || r[0] == '\v':
			lx.advance(1)
		case strings.HasPrefix(r, "/*!") || strings.HasPrefix(r, "/*M!"):
			n := 3
			if r[2] == 'M' {
				n = 4
			}
			d := n
			for n < len(r) && n-d < 6 && r[n] >= '0' && r[n] <= '9' {
				n++
			}
			version, _ := strconv.Atoi(r[d:n])
			runs, varies := lx.srv.runs(r[2] == 'M', version)
			lx.varies = lx.varies || varies
			if !runs {
				end := strings.Index(r[2:], "*/")
				if end < 0 {
					lx.advance(len(r))
					return
				}
				lx.advance(end + 4)
				continue
			}
			lx.advance(n)
			lx.inExec = true
		case lx.inExec && strings.HasPrefix(r, "*/"):
			lx.advance(2)
			lx.inExec = false
		case strings.HasPrefix(r, "/*"):
			end := strings.Index(r[2:], "*/")
			if end < 0 {
				lx.advance(len(r))
				return
			}
			lx.advance(end + 4)
		case r[0] == '#' || strings.HasPrefix(r, "--") && (len(r) == 2 || r[2] <= ' ' || r[2] == 0x7f):
			end := strings.IndexByte(r, '\n')
			if end < 0 {
				end = len(r)
			}
			lx.advance(end)
		default:
			return
		}
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}

// token reads one token at a non-blank; false when a quote is not closed.
func (lx *lexer) token() (token, bool) {
	r := lx.rest()
	t := token{pos: Pos{lx.line, lx.col}}
	c := r[0]
	switch {
	case c == '`' || c == '\'' || c == '"':
		val, n, ok := unquote(r)
		if !ok {
			lx.advance(len(r))
			return t, false
		}
		t.kind, t.text = tString, val
		if c == '`' {
			t.kind = tName
		}
		lx.advance(n)
	case c >= '0' && c <= '9' || c == '.' && len(r) > 1 && r[1] >= '0' && r[1] <= '9':
		n := 0
		for n < len(r) && (isWordByte(r[n]) || r[n] == '.' || (r[n] == '+' || r[n] == '-') && n > 0 && (r[n-1] == 'e' || r[n-1] == 'E')) {
			n++
		}
		t.kind, t.text = tNumber, r[:n]
		lx.advance(n)
	case isWordByte(c):
		n := 0
		for n < len(r) && isWordByte(r[n]) {
			n++
		}
		t.kind, t.text = tWord, r[:n]
		lx.advance(n)
	default:
		t.kind, t.text = tPunct, r[:1]
		lx.advance(1)
	}
	return t, true
}

// unquote reads the quoted text at the start of s: its value and length. Backslash escapes
// hold in strings, not in `names`; a doubled quote stands for one.
func unquote(s string) (string, int, bool) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && q != '`' && i+1 < len(s):
			i++
			b.WriteByte(unescape(s[i]))
		case c == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case c == q:
			return b.String(), i + 1, true
		default:
			b.WriteByte(c)
		}
	}
	return "", len(s), false
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	}
	return c
}
