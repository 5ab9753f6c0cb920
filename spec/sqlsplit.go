package spec

import (
	"strings"
)

// SplitStatements splits SQL text into statements the way the mysql client does:
// on the delimiter (";" unless changed by a DELIMITER line), outside quotes, backticks and comments.
// Statements are trimmed, line comments before a statement are dropped, and so are statements
// that are only comments.
func SplitStatements(text string) []string {
	var out []string
	delim := ";"
	var cur strings.Builder
	flush := func() {
		s := trimLeadingLineComments(cur.String())
		cur.Reset()
		if s != "" && !onlyComments(s) {
			out = append(out, s)
		}
	}
	lineStart := true
	for i := 0; i < len(text); {
		c := text[i]
		if lineStart {
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if len(text)-j >= 10 && strings.EqualFold(text[j:j+9], "DELIMITER") && (text[j+9] == ' ' || text[j+9] == '\t') {
				end := strings.IndexByte(text[j:], '\n')
				if end < 0 {
					end = len(text) - j
				}
				if d := strings.TrimSpace(text[j+10 : j+end]); d != "" && onlyComments(cur.String()) {
					flush()
					delim = d
					i = j + end
					continue
				}
			}
			lineStart = false
		}
		switch {
		case c == '\n':
			lineStart = true
			cur.WriteByte(c)
			i++
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(text) {
				if text[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if text[j] == c {
					if j+1 < len(text) && text[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(text))
			cur.WriteString(text[i:j])
			i = j
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			j := len(text)
			if end >= 0 {
				j = i + 2 + end + 2
			}
			cur.WriteString(text[i:j])
			i = j
		case c == '#' || strings.HasPrefix(text[i:], "-- ") || strings.HasPrefix(text[i:], "--\n") || text[i:] == "--":
			end := strings.IndexByte(text[i:], '\n')
			j := len(text)
			if end >= 0 {
				j = i + end
			}
			cur.WriteString(text[i:j])
			i = j
		case strings.HasPrefix(text[i:], delim):
			flush()
			i += len(delim)
		default:
			cur.WriteByte(c)
			i++
		}
	}
	flush()
	return out
}

// trimLeadingLineComments drops the "-- ..." and "# ..." lines before a statement: they are
// notes for the reader of the file (/* */ comments stay: /*! ... */ and hints mean something).
func trimLeadingLineComments(s string) string {
	for {
		s = strings.TrimSpace(s)
		if !strings.HasPrefix(s, "#") && !strings.HasPrefix(s, "-- ") && !strings.HasPrefix(s, "--\n") {
			return s
		}
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			return ""
		}
		s = s[nl+1:]
	}
}

// onlyComments reports whether s holds nothing but comments.
func onlyComments(s string) bool {
	return stripComments(s) == ""
}

// stripComments removes comments (outside quotes) from s.
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return s
			}
			b.WriteString(s[i : i+j+2])
			i += j + 2
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += end + 4
			}
		case c == '#' || strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				i = len(s)
			} else {
				i += end
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return strings.TrimSpace(b.String())
}
