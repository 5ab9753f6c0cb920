package sqltext

import (
	"strings"
)

// token is one word, quoted string or punctuation of a statement, for the server-change
// check: comments are dropped, an executable comment's content is kept (the server runs it).
type token struct {
	text   string // a word as written, a string's content, or one punctuation character
	str    bool   // a quoted string ('...' or "...")
	quoted bool   // a `quoted` identifier
}

// upper is a word's text in capitals ("" for a string): keywords are case-insensitive.
func (t token) upper() string {
	if t.str || t.quoted {
		return ""
	}
	return strings.ToUpper(t.text)
}

// tokens splits a statement into tokens.
func tokens(stmt string) []token {
	var out []token
	s := stmt
	for len(s) > 0 {
		c := s[0]
		switch {
		case isSpace(c):
			s = s[1:]
		case strings.HasPrefix(s, "/*!"), strings.HasPrefix(s, "/*M!"):
			s = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(s, "/*"), "M"), "!0123456789")
		case strings.HasPrefix(s, "*/"):
			s = s[2:] // the end of an executable comment
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return out
			}
			s = s[i+4:]
		case c == '#', LineComment(s):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return out
			}
			s = s[i+1:]
		case c == '\'' || c == '"' || c == '`':
			text, rest := quotedText(s)
			out = append(out, token{text: text, str: c != '`', quoted: c == '`'})
			s = rest
		case isWord(c):
			i := 1
			for i < len(s) && isWord(s[i]) {
				i++
			}
			out = append(out, token{text: s[:i]})
			s = s[i:]
		default:
			out = append(out, token{text: s[:1]})
			s = s[1:]
		}
	}
	return out
}

func isWord(c byte) bool {
	return c == '_' || c == '$' || c == '@' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// quotedText is the content of the quoted string or identifier s starts with (a doubled
// quote or, in a string, a backslash escapes) and what follows it.
func quotedText(s string) (string, string) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q != '`' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i++
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case s[i] == q:
			return b.String(), s[i+1:]
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), ""
}

// Own is what a plan's SQL made its own, read in the plan's order: the databases and the
// routines it created with a CREATE that fails when they exist already (IF NOT EXISTS
// could take the user's own). The zero value owns nothing.
type Own struct {
	dbs, routines map[string]bool
}

// systemSchemas are the server's own: writing them changes accounts, instrumentation, the
// server's settings.
var systemSchemas = []string{"mysql", "performance_schema", "sys", "information_schema"}

// ServerChanges says, one phrase each, what stmt does to the server beyond the databases the
// plan's SQL owns (o, which it updates): settings for every session (SET GLOBAL/PERSIST),
// accounts and grants, plugins, replication, binary logs, shutdown, files of the server's
// host, other databases. The check is conservative: what it cannot read (dynamic SQL from a
// variable, a procedure the plan did not create) counts as a change.
func (o *Own) ServerChanges(stmt string) []string {
	var out []string
	toks := tokens(stmt)
	start := 0
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && !boundary(toks, i) {
			continue
		}
		if i > start {
			out = append(out, o.one(toks[start:i])...)
		}
		start = i
		if i < len(toks) && toks[i].text == ";" {
			start = i + 1
		}
	}
	return out
}

// boundary says a statement of a compound body (a procedure's, an event's) starts at
// toks[i]: after ';' or one of the keywords that open a body.
func boundary(toks []token, i int) bool {
	if toks[i].text == ";" {
		return true
	}
	if i == 0 {
		return false
	}
	switch toks[i-1].upper() {
	case "BEGIN", "THEN", "ELSE", "DO", "LOOP", "REPEAT":
		return toks[i].upper() != "WORK" && toks[i].text != ";"
	}
	return false
}

// word is the i-th token's keyword, "" past the end.
func word(toks []token, i int) string {
	if i < len(toks) {
		return toks[i].upper()
	}
	return ""
}

// one classifies one statement.
func (o *Own) one(t []token) []string {
	w0, w1 := word(t, 0), word(t, 1)
	var out []string
	switch w0 {
	case "SET":
		out = append(out, setChanges(t)...)
	case "GRANT", "REVOKE", "SHUTDOWN", "RESTART", "KILL", "PURGE", "RESET", "INSTALL", "UNINSTALL", "CLONE", "BINLOG":
		out = append(out, w0+" "+w1)
	case "CHANGE":
		out = append(out, "CHANGE "+w1)
	case "START", "STOP":
		if w1 != "TRANSACTION" {
			out = append(out, w0+" "+w1)
		}
	case "FLUSH":
		if !harmlessFlush(t[1:]) {
			out = append(out, "FLUSH "+w1)
		}
	case "LOAD":
		if (w1 == "DATA" || w1 == "XML") && !hasWord(t, "LOCAL") {
			out = append(out, "LOAD "+w1+" INFILE, which reads a file on the server's host")
		}
	case "USE":
		if isSystem(nameOf(t, 1)) {
			out = append(out, "USE "+nameOf(t, 1))
		}
	case "CREATE", "DROP", "ALTER", "RENAME":
		out = append(out, o.ddl(t)...)
	case "CALL":
		if name := strings.ToLower(nameOf(t, 1)); !o.routines[name] {
			out = append(out, "CALL "+name+", a procedure the plan did not create")
		}
	case "PREPARE", "EXECUTE":
		out = append(out, o.dynamic(t)...)
	}
	if hasWords(t, "INTO", "OUTFILE") || hasWords(t, "INTO", "DUMPFILE") {
		out = append(out, "SELECT ... INTO OUTFILE, which writes a file on the server's host")
	}
	if hasWord(t, "LOAD_FILE") {
		out = append(out, "LOAD_FILE, which reads a file on the server's host")
	}
	if hasWord(t, "SONAME") {
		out = append(out, "SONAME, which loads a library into the server")
	}
	if w0 != "SELECT" && w0 != "SHOW" && w0 != "WITH" && w0 != "EXPLAIN" && w0 != "DESC" && w0 != "DESCRIBE" && w0 != "USE" {
		if s := systemName(t); s != "" {
			out = append(out, w0+" on "+s+", the server's own schema")
		}
	}
	return out
}

// setChanges are the variables a SET statement sets for the whole server: after GLOBAL,
// PERSIST or PERSIST_ONLY (which hold for the assignments after them until SESSION or
// LOCAL), or written @@global.NAME; and SET PASSWORD, SET DEFAULT ROLE.
func setChanges(t []token) []string {
	switch w := word(t, 1); {
	case w == "PASSWORD":
		return []string{"SET PASSWORD"}
	case w == "DEFAULT" && word(t, 2) == "ROLE":
		return []string{"SET DEFAULT ROLE"}
	}
	var out []string
	for _, name := range globalAssignments(t) {
		out = append(out, "SET GLOBAL "+name)
	}
	if hasWords(t, "GLOBAL", "TRANSACTION") {
		out = append(out, "SET GLOBAL TRANSACTION")
	}
	return out
}

// SetGlobals are the variables the SET statement stmt sets globally (or persists), by
// name, as a run must read them before it changes them to put them back at its end; nil
// for any other statement.
func SetGlobals(stmt string) []string {
	t := tokens(SkipComments(stmt))
	if word(t, 0) != "SET" {
		return nil
	}
	return globalAssignments(t)
}

// globalAssignments are the names a SET statement's tokens assign globally.
func globalAssignments(t []token) []string {
	var out []string
	global, depth, lhs := false, 0, true
	for i := 1; i < len(t); i++ {
		switch tx := t[i].text; {
		case tx == "(":
			depth++
		case tx == ")":
			depth--
		case depth == 0 && tx == ",":
			lhs = true
		case depth == 0 && (tx == "=" || tx == ":"):
			lhs = false
		case !lhs || t[i].str:
		default:
			switch u := t[i].upper(); {
			case u == "GLOBAL" || u == "PERSIST" || u == "PERSIST_ONLY":
				global = true
			case u == "SESSION" || u == "LOCAL":
				global = false
			case strings.HasPrefix(u, "@@GLOBAL.") || strings.HasPrefix(u, "@@PERSIST.") || strings.HasPrefix(u, "@@PERSIST_ONLY."):
				out = append(out, strings.ToLower(t[i].text[strings.IndexByte(t[i].text, '.')+1:]))
				lhs = false
			case strings.HasPrefix(u, "@"):
				lhs = false // a user variable or @@session.NAME
			case u == "TRANSACTION":
				lhs = false // SET [GLOBAL] TRANSACTION ISOLATION LEVEL ...: no variable by name
			default:
				if global {
					out = append(out, strings.ToLower(t[i].text))
				}
				lhs = false
			}
		}
	}
	return out
}

// harmlessFlush: FLUSH TABLES (without a lock or an export) and FLUSH STATUS change nothing
// that outlives the run.
func harmlessFlush(t []token) bool {
	i := 0
	if w := word(t, 0); w == "LOCAL" || w == "NO_WRITE_TO_BINLOG" {
		i++
	}
	switch word(t, i) {
	case "STATUS":
		return len(t) == i+1
	case "TABLES", "TABLE":
		return !hasWord(t, "WITH") && !hasWord(t, "FOR")
	}
	return false
}

// ddl classifies CREATE, DROP, ALTER and RENAME: of accounts, databases the plan does not
// own, server-wide objects; a database or routine created is the plan's from then on.
func (o *Own) ddl(t []token) []string {
	w0 := word(t, 0)
	i := 1
	replace := false
	for ; i < len(t); i++ {
		w := word(t, i)
		if w == "OR" && word(t, i+1) == "REPLACE" {
			replace = true
			i++
			continue
		}
		if w == "DEFINER" || w == "=" || strings.Contains(t[i].text, "@") || w == "AGGREGATE" || w == "TEMPORARY" || w == "UNIQUE" || w == "FULLTEXT" || w == "SPATIAL" || w == "ONLINE" || w == "OFFLINE" || w == "IGNORE" || t[i].quoted || t[i].str && i > 1 && word(t, i-1) == "=" {
			continue
		}
		break
	}
	obj := word(t, i)
	switch obj {
	case "USER", "ROLE", "SERVER", "TABLESPACE", "LOGFILE", "INSTANCE", "RESOURCE":
		return []string{w0 + " " + obj}
	case "DATABASE", "SCHEMA":
		ifExists := word(t, i+1) == "IF"
		j := i + 1
		if ifExists {
			j += 2
			if word(t, j-1) == "NOT" {
				j++
			}
		}
		name := strings.ToLower(nameOf(t, j))
		if w0 == "CREATE" && !replace {
			if !ifExists {
				o.own(&o.dbs, name) // it failed had it been there
			}
			return nil // a new database, or nothing done to one there
		}
		if o.dbs[name] && !replace {
			return nil
		}
		return []string{w0 + " DATABASE " + name + ", which the plan's SQL did not create"}
	case "PROCEDURE", "FUNCTION", "EVENT", "TRIGGER":
		if w0 == "CREATE" && !replace && word(t, i+1) != "IF" {
			o.own(&o.routines, strings.ToLower(nameOf(t, i+1)))
		}
	}
	return nil
}

func (o *Own) own(m *map[string]bool, name string) {
	if *m == nil {
		*m = map[string]bool{}
	}
	(*m)[name] = true
}

// dynamic classifies PREPARE ... FROM and EXECUTE IMMEDIATE: the SQL of a literal is read
// as any other; from a variable, the check cannot tell, and counts it.
func (o *Own) dynamic(t []token) []string {
	i := 1
	if word(t, 0) == "EXECUTE" {
		if word(t, 1) != "IMMEDIATE" {
			return nil // EXECUTE of a statement PREPARE read
		}
		i = 2
	} else {
		for i < len(t) && word(t, i) != "FROM" {
			i++
		}
		i++
	}
	if i < len(t) && t[i].str && i == len(t)-1 {
		return o.ServerChanges(t[i].text)
	}
	return []string{word(t, 0) + " of SQL the check cannot read (not one literal string)"}
}

// nameOf is the (possibly qualified) name at t[i], without quotes.
func nameOf(t []token, i int) string {
	if i >= len(t) {
		return ""
	}
	name := t[i].text
	for i+2 < len(t) && t[i+1].text == "." {
		name += "." + t[i+2].text
		i += 2
	}
	if i+1 < len(t) && strings.HasPrefix(t[i+1].text, ".") && !t[i+1].str {
		name += t[i+1].text
	}
	return name
}

func isSystem(name string) bool {
	for _, s := range systemSchemas {
		if strings.EqualFold(name, s) {
			return true
		}
	}
	return false
}

// systemName is the first name of t qualified by a system schema ("mysql.user"), "" for none.
func systemName(t []token) string {
	for i := range t {
		if t[i].str {
			continue
		}
		name := nameOf(t, i)
		if schema, _, ok := strings.Cut(name, "."); ok && isSystem(schema) {
			return name
		}
	}
	return ""
}

func hasWord(t []token, w string) bool {
	for _, tk := range t {
		if tk.upper() == w {
			return true
		}
	}
	return false
}

func hasWords(t []token, a, b string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i].upper() == a && t[i+1].upper() == b {
			return true
		}
	}
	return false
}
