package traffic

import (
	"crypto/sha1"
	"encoding/hex"
	"regexp"
	"strings"
)

var (
	// An in(?+) already collapsed matches too, so a fingerprint's fingerprint is itself.
	inList     = regexp.MustCompile(`\bin ?\( ?\?(?:\+|(?: ?, ?\?)*) ?\)`)
	valuesList = regexp.MustCompile(`\b(values?) ?\([^()]*\)(?: ?, ?\([^()]*\))*`)
)

// Fingerprint normalises a statement to its class, as pt-query-digest does: comments
// dropped, whitespace collapsed, lower case, every literal (string, number, hex) a ?,
// IN-lists and multi-row VALUES collapsed, so `SELECT * FROM t WHERE id IN (1,2,3)` and
// `select * from t where id in (7)` are one class.
func Fingerprint(sql string) string {
	var b strings.Builder
	b.Grow(len(sql))
	space := false
	emit := func(c byte) {
		// "--" then a space would be a comment in the fingerprint where the statement had none
		dashes := c == '-' && b.Len() > 0 && b.String()[b.Len()-1] == '-'
		if space && b.Len() > 0 || dashes {
			b.WriteByte(' ')
		}
		space = false
		b.WriteByte(c)
	}
	prevIdent := func() bool {
		s := b.String()
		if len(s) == 0 || space {
			return false
		}
		c := s[len(s)-1]
		return c == '_' || c == '$' || c == '`' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			i = skipQuoted(sql, i, c)
			emit('?')
		case c == '`':
			j := i + 1
			for j < len(sql) && (sql[j] != '`' || j+1 < len(sql) && sql[j+1] == '`' && func() bool { j++; return true }()) {
				j++
			}
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			// blanks collapsed, as outside: the spacing rules below see one space at most
			b.WriteString(oneBlank(strings.ToLower(sql[i:min(j+1, len(sql))])))
			i = j
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				i = len(sql)
			} else {
				i += end + 3
			}
			space = true
		case c == '#' || c == '-' && dashComment(sql[i+1:]):
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			space = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			space = true
		case (c >= '0' && c <= '9' || c == '.' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9') && !prevIdent():
			j := i
			for j < len(sql) && (isIdent(sql[j]) || sql[j] == '.' ||
				(sql[j] == '-' || sql[j] == '+') && j > i && (sql[j-1] == 'e' || sql[j-1] == 'E')) {
				j++
			}
			// A leading sign belongs to the literal when what precedes it is an operator.
			if s := b.String(); !space && len(s) > 0 && (s[len(s)-1] == '-' || s[len(s)-1] == '+') {
				t := strings.TrimRight(s[:len(s)-1], " ")
				if t == "" || strings.ContainsAny(t[len(t)-1:], "(,=<>*/+-") || strings.HasSuffix(t, " and") || strings.HasSuffix(t, " or") {
					b.Reset()
					b.WriteString(s[:len(s)-1])
				}
			}
			emit('?')
			i = j - 1
		default:
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			emit(c)
		}
	}
	// The regular expressions are most of the cost: run each only where it can match.
	// Trailing semicolons go, comments after them too ("select 1; -- done").
	out := strings.TrimRight(b.String(), "; ")
	if strings.ContainsAny(out, ",=<>") {
		out = tightOps(out)
	}
	if strings.ContainsAny(out, "()") {
		out = strings.ReplaceAll(strings.ReplaceAll(out, "( ", "("), " )", ")")
		out = strings.ReplaceAll(out, " (", "(")
	}
	out = strings.ReplaceAll(out, ",", ", ")
	if strings.Contains(out, "in(") {
		out = strings.ReplaceAll(out, "in(", "in (")
		out = inList.ReplaceAllString(out, "in(?+)")
	}
	if strings.Contains(out, "value") {
		out = valuesList.ReplaceAllString(out, "$1(?+)")
	}
	if db, ok := UseTarget(out); ok && db != "" {
		out = "use ?"
	}
	return out
}

// tightOps drops the spaces around , = < and >.
func tightOps(s string) string {
	op := func(c byte) bool { return c == ',' || c == '=' || c == '<' || c == '>' }
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' && (len(b) > 0 && op(b[len(b)-1]) || i+1 < len(s) && op(s[i+1])) {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

// oneBlank collapses each run of blanks in s to one space.
func oneBlank(s string) string {
	if !strings.Contains(s, "  ") && !strings.ContainsAny(s, "\t\r\n") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			if len(b) == 0 || b[len(b)-1] != ' ' {
				b = append(b, ' ')
			}
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// dashComment says whether rest, what follows a '-', makes it a "-- " comment: as the server's
// lexer has it, a second dash then whitespace, a control character (a newline too) or the end.
func dashComment(rest string) bool {
	return len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] <= ' ' || rest[1] == 0x7f)
}

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// skipQuoted returns the index of the quote closing the literal opened at i.
func skipQuoted(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(s)
}

// FingerprintID is a short stable name for a fingerprint ("q" and 12 hex digits), the same
// on every run and machine, so runs line up by it.
func FingerprintID(fp string) string {
	h := sha1.Sum([]byte(fp))
	return "q" + hex.EncodeToString(h[:6])
}
