package traffic

import (
	"strings"

	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// ReadOnly is the read-only rule over captured traffic: which statements may change data
// or the server. A read_only replay skips them and quadrant verify keeps only the others,
// through this one rule, so what verify runs is what a read_only replay runs. Statements go
// through it in captured order: it follows each session's PREPAREs and temporary tables.
type ReadOnly struct {
	// prepared are the text-protocol prepared statements that write, per session, so their
	// EXECUTE and DEALLOCATE write too.
	prepared map[uint64]map[string]bool
	// temps are each session's temporary tables: a replica takes them, and later
	// statements of the session use them.
	temps map[uint64]map[string]bool
}

// NewReadOnly starts the rule with no session seen.
func NewReadOnly() *ReadOnly {
	return &ReadOnly{prepared: map[uint64]map[string]bool{}, temps: map[uint64]map[string]bool{}}
}

// Writes says s may change data or the server. It errs on the side of writing: a
// read_only replay runs against replicas.
func (r *ReadOnly) Writes(s *Statement) bool {
	words := strings.Fields(strings.ToUpper(sqltext.SkipComments(s.Text)))
	if len(words) == 0 {
		return false
	}
	switch strings.TrimLeft(words[0], "(") {
	case "SELECT", "WITH", "TABLE", "VALUES":
		up := " " + strings.Join(words, " ") + " "
		for _, w := range []string{" INTO ", " FOR UPDATE", " UPDATE ", " DELETE ", " INSERT ", " REPLACE "} {
			if strings.Contains(up, w) {
				return true
			}
		}
		return false
	case "SHOW", "DESC", "DESCRIBE", "EXPLAIN", "USE", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "DO", "HELP", "CHECKSUM":
		return false
	case "START":
		return len(words) < 2 || words[1] != "TRANSACTION"
	case "SET":
		return len(words) > 1 && (words[1] == "GLOBAL" || words[1] == "PERSIST" || words[1] == "PERSIST_ONLY" || words[1] == "PASSWORD" ||
			strings.HasPrefix(words[1], "@@GLOBAL."))
	case "PREPARE":
		return r.prepare(s, words)
	case "CREATE":
		if len(words) > 3 && words[1] == "TEMPORARY" && words[2] == "TABLE" {
			name := words[3]
			if name == "IF" && len(words) > 6 {
				name = words[6]
			}
			if r.temps[s.Session] == nil {
				r.temps[s.Session] = map[string]bool{}
			}
			r.temps[s.Session][tableName(name)] = true
			return false
		}
	case "INSERT", "REPLACE", "UPDATE", "DELETE", "TRUNCATE", "DROP":
		// Into one of the session's temporary tables: not a write to the server's data.
		for _, w := range words[1:] {
			switch w {
			case "INTO", "FROM", "IGNORE", "LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "QUICK", "TABLE", "TEMPORARY", "IF", "EXISTS":
				continue
			}
			return !r.temps[s.Session][tableName(w)]
		}
	case "EXECUTE", "DEALLOCATE":
		name := strings.ToLower(words[len(words)-1])
		if words[0] == "EXECUTE" && len(words) > 1 {
			name = strings.ToLower(words[1])
		}
		return r.prepared[s.Session][strings.TrimSuffix(name, ";")]
	}
	return true
}

// prepare: PREPARE name FROM 'text' writes when its text does, and then so do its EXECUTEs.
func (r *ReadOnly) prepare(s *Statement, words []string) bool {
	if len(words) < 4 {
		return true
	}
	name := strings.ToLower(words[1])
	body := s.Text[min(len(s.Text), strings.Index(strings.ToUpper(s.Text), " FROM ")+6):]
	body = strings.Trim(strings.TrimSpace(body), `'"`)
	w := r.Writes(&Statement{Text: body})
	if w {
		if r.prepared[s.Session] == nil {
			r.prepared[s.Session] = map[string]bool{}
		}
		r.prepared[s.Session][name] = true
	}
	return w
}

// tableName is an upper-cased table name as a statement writes it, without quotes, a column
// list or a database.
func tableName(w string) string {
	if i := strings.IndexByte(w, '('); i >= 0 {
		w = w[:i]
	}
	w = strings.ReplaceAll(w, "`", "")
	if i := strings.LastIndexByte(w, '.'); i >= 0 {
		w = w[i+1:]
	}
	return w
}
