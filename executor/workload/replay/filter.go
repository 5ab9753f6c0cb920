package replay

import (
	"slices"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// filter is a replay's include/exclude lists and read_only, applied to each captured statement.
type filter struct {
	readOnly         bool
	include, exclude *matcher
	// prepared are the text-protocol prepared statements skipped per session, so their
	// EXECUTE and DEALLOCATE are skipped too.
	prepared map[uint64]map[string]bool
	// temps are each session's temporary tables: a replica takes them (read_only does not
	// cover them), and later statements of the session use them.
	temps map[uint64]map[string]bool
}

type matcher struct {
	schemas, users []string
	ids            map[string]bool // fingerprint ids
}

func newMatcher(f *ReplayFilter) *matcher {
	if f == nil {
		return nil
	}
	m := &matcher{schemas: f.Schemas, users: f.Users}
	if len(f.Fingerprints) > 0 {
		m.ids = map[string]bool{}
		for _, fp := range f.Fingerprints {
			if isID(fp) {
				m.ids[fp] = true
			} else {
				m.ids[traffic.FingerprintID(traffic.Fingerprint(fp))] = true
			}
		}
	}
	return m
}

func isID(s string) bool {
	if len(s) != 13 || s[0] != 'q' {
		return false
	}
	for _, c := range s[1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// all: every list given matches; any: one of them does.
func (m *matcher) match(s *traffic.Statement, id string, all bool) bool {
	results := []bool{}
	if len(m.schemas) > 0 {
		results = append(results, slices.Contains(m.schemas, s.Schema))
	}
	if len(m.users) > 0 {
		results = append(results, slices.Contains(m.users, s.User))
	}
	if m.ids != nil {
		results = append(results, m.ids[id])
	}
	if all {
		return !slices.Contains(results, false)
	}
	return slices.Contains(results, true)
}

func newFilter(r *Replay) *filter {
	return &filter{readOnly: r.ReadOnly, include: newMatcher(r.Include), exclude: newMatcher(r.Exclude), prepared: map[uint64]map[string]bool{}, temps: map[uint64]map[string]bool{}}
}

// id is the fingerprint's id when a list names fingerprints ("" otherwise: hashing every
// statement costs the replay's reader time for nothing).
func (f *filter) id(fp string) string {
	if f.include != nil && f.include.ids != nil || f.exclude != nil && f.exclude.ids != nil {
		return traffic.FingerprintID(fp)
	}
	return ""
}

// skip names the filter that leaves s out ("" keeps it). Called once per statement in
// captured order: it follows PREPARE and DEALLOCATE.
func (f *filter) skip(s *traffic.Statement, id string) string {
	switch {
	case f.include != nil && !f.include.match(s, id, true):
		return "include"
	case f.exclude != nil && f.exclude.match(s, id, false):
		return "exclude"
	case f.readOnly && f.writes(s):
		return "read_only"
	}
	return ""
}

// writes says a statement may change data or the server. It errs on the side of writing:
// read_only replays against replicas.
func (f *filter) writes(s *traffic.Statement) bool {
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
		// PREPARE name FROM 'text': skipped with its EXECUTEs when the text writes.
		if len(words) < 4 {
			return true
		}
		name := strings.ToLower(words[1])
		body := s.Text[min(len(s.Text), strings.Index(strings.ToUpper(s.Text), " FROM ")+6):]
		body = strings.Trim(strings.TrimSpace(body), `'"`)
		w := f.writes(&traffic.Statement{Text: body})
		if w {
			if f.prepared[s.Session] == nil {
				f.prepared[s.Session] = map[string]bool{}
			}
			f.prepared[s.Session][name] = true
		}
		return w
	case "CREATE":
		if len(words) > 3 && words[1] == "TEMPORARY" && words[2] == "TABLE" {
			name := words[3]
			if name == "IF" && len(words) > 6 {
				name = words[6]
			}
			if f.temps[s.Session] == nil {
				f.temps[s.Session] = map[string]bool{}
			}
			f.temps[s.Session][tableName(name)] = true
			return false
		}
	case "INSERT", "REPLACE", "UPDATE", "DELETE", "TRUNCATE", "DROP":
		// Into one of the session's temporary tables: not a write to the server's data.
		for _, w := range words[1:] {
			switch w {
			case "INTO", "FROM", "IGNORE", "LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "QUICK", "TABLE", "TEMPORARY", "IF", "EXISTS":
				continue
			}
			return !f.temps[s.Session][tableName(w)]
		}
	case "EXECUTE", "DEALLOCATE":
		name := strings.ToLower(words[len(words)-1])
		if words[0] == "EXECUTE" && len(words) > 1 {
			name = strings.ToLower(words[1])
		}
		return f.prepared[s.Session][strings.TrimSuffix(name, ";")]
	}
	return true
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

// ReadOnly is read_only's rule for callers that keep only the captured reads (quadrant
// verify): one rule, so what verify runs is what a read_only replay runs. Statements go
// through it in captured order, as through the replay's filter: it follows each session's
// PREPAREs and temporary tables.
type ReadOnly struct{ f *filter }

// NewReadOnly starts the rule with no session seen.
func NewReadOnly() *ReadOnly {
	return &ReadOnly{f: &filter{readOnly: true, prepared: map[uint64]map[string]bool{}, temps: map[uint64]map[string]bool{}}}
}

// Writes says s may change data or the server, erring on the side of writing.
func (r *ReadOnly) Writes(s *traffic.Statement) bool { return r.f.writes(s) }
