package target

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Privilege is what one action needs of an account: any one of Names, on DB.Table. DB ""
// is global (*.*); Table "" is the whole schema.
type Privilege struct {
	Names     []string
	DB, Table string
}

func (p Privilege) String() string {
	on := "*.*"
	switch {
	case p.DB != "" && p.Table != "":
		on = p.DB + "." + p.Table
	case p.DB != "":
		on = p.DB + ".*"
	}
	return strings.Join(p.Names, " or ") + " on " + on
}

// Grants are an account's privileges as SHOW GRANTS lists them: global, per schema (a
// schema name may be a LIKE pattern: `app\_%`), per table, and what MySQL's partial
// revokes take back from the global ones. Column and routine grants are kept out: no
// action quadrant checks is satisfied by them.
type Grants struct {
	global  privSet
	schemas []schemaGrant
	tables  map[[2]string]privSet
	revoked []schemaGrant // MySQL partial_revokes: REVOKE X ON db.* FROM ...
	// Roles are the roles granted to the account (`GRANT r TO u`), whether or not they are
	// active: MariaDB lists the active role's own grants too, MySQL needs SHOW GRANTS ... USING.
	Roles []string
}

type privSet map[string]bool

type schemaGrant struct {
	pattern string
	privs   privSet
}

// Has reports whether the account holds p.
func (g *Grants) Has(p Privilege) bool {
	for _, name := range p.Names {
		if g.has(canonicalPriv(name), p.DB, p.Table) {
			return true
		}
	}
	return false
}

func (g *Grants) has(name, db, table string) bool {
	if g.global.covers(name) && (db == "" || !g.revokedOn(name, db)) {
		return true
	}
	if db == "" {
		return false
	}
	for _, s := range g.schemas {
		if s.privs.covers(name) && likeMatch(s.pattern, db) {
			return true
		}
	}
	if table != "" {
		if t, ok := g.tables[[2]string{db, table}]; ok && t.covers(name) {
			return true
		}
	}
	return false
}

func (g *Grants) revokedOn(name, db string) bool {
	for _, r := range g.revoked {
		if r.privs.covers(name) && r.pattern == db {
			return true
		}
	}
	return false
}

// covers: ALL [PRIVILEGES] at a level is every privilege of that level. At the global
// level MySQL 8 lists each privilege instead (dynamic ones on lines of their own).
func (s privSet) covers(name string) bool { return s[name] || s["ALL"] }

// canonicalPriv spells a privilege one way: upper case, single spaces, and MariaDB's
// aliases folded (10.5.9+ prints SLAVE MONITOR for REPLICA MONITOR, and REPLICATION
// CLIENT is BINLOG MONITOR there; MySQL has neither of the MariaDB names).
func canonicalPriv(s string) string {
	s = strings.ToUpper(strings.Join(strings.Fields(s), " "))
	switch s {
	case "ALL PRIVILEGES":
		return "ALL"
	case "REPLICA MONITOR":
		return "SLAVE MONITOR"
	case "BINLOG MONITOR":
		return "REPLICATION CLIENT"
	}
	return s
}

// ParseGrants reads SHOW GRANTS output, one statement a line, in MariaDB's and MySQL's forms:
//
//	GRANT USAGE ON *.* TO `app`@`%` IDENTIFIED BY PASSWORD '*...'
//	GRANT ALL PRIVILEGES ON `app`.* TO `app`@`%`
//	GRANT SELECT, INSERT ON `app\_%`.* TO ...
//	GRANT SELECT (`k`, `id`) ON `app`.`sbtest1` TO ...
//	GRANT BACKUP_ADMIN,SYSTEM_VARIABLES_ADMIN ON *.* TO `root`@`localhost` WITH GRANT OPTION
//	GRANT `r1`@`%`,`r2`@`%` TO `u1`@`localhost`
//	REVOKE INSERT ON `world`.* FROM `u1`@`%`
//
// Lines it does not know (SET DEFAULT ROLE, GRANT PROXY) are skipped; a GRANT it cannot
// read is an error naming the line.
func ParseGrants(lines []string) (*Grants, error) {
	g := &Grants{global: privSet{}, tables: map[[2]string]privSet{}}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := g.parseLine(line); err != nil {
			return nil, fmt.Errorf("SHOW GRANTS line %q: %w", line, err)
		}
	}
	return g, nil
}

func (g *Grants) parseLine(line string) error {
	toks, err := lexGrant(line)
	if err != nil {
		return err
	}
	if len(toks) == 0 || !toks[0].is("GRANT") && !toks[0].is("REVOKE") {
		return nil
	}
	revoke := toks[0].is("REVOKE")
	toks = toks[1:]
	on, to := -1, -1
	for i, t := range toks {
		switch {
		case on < 0 && t.is("ON"):
			on = i
		case t.is("TO") || t.is("FROM"):
			to = i
		}
		if to >= 0 {
			break
		}
	}
	if to < 0 {
		return fmt.Errorf("no TO or FROM")
	}
	if on < 0 || on > to {
		if !revoke {
			g.Roles = append(g.Roles, roleNames(toks[:to])...)
		}
		return nil
	}
	// A column grant gives the privilege on those columns only, not on the table: left out.
	privs, _, err := privList(toks[:on])
	if err != nil {
		return err
	}
	if privs["PROXY"] {
		return nil
	}
	obj := toks[on+1 : to]
	for len(obj) > 0 && obj[0].bare && (obj[0].is("TABLE")) {
		obj = obj[1:]
	}
	if len(obj) > 0 && obj[0].bare && (obj[0].is("FUNCTION") || obj[0].is("PROCEDURE") || obj[0].is("PACKAGE")) {
		return nil // routine grants: nothing quadrant runs needs them
	}
	db, table, err := object(obj)
	if err != nil {
		return err
	}
	switch {
	case revoke && table == "*" && db != "*":
		g.revoked = append(g.revoked, schemaGrant{pattern: db, privs: privs})
	case revoke:
		// A plain REVOKE is never listed by SHOW GRANTS; nothing to take back.
	case db == "*" && table == "*":
		for p := range privs {
			g.global[p] = true
		}
	case table == "*":
		g.schemas = append(g.schemas, schemaGrant{pattern: db, privs: privs})
	default:
		key := [2]string{db, table}
		if g.tables[key] == nil {
			g.tables[key] = privSet{}
		}
		for p := range privs {
			g.tables[key][p] = true
		}
	}
	return nil
}

// privList reads "SELECT, INSERT (a, b), SLAVE MONITOR": the privileges on the whole
// object, and those given only on columns.
func privList(toks []grantTok) (privSet, privSet, error) {
	privs, columns := privSet{}, privSet{}
	var words []string
	depth := 0
	column := false
	flush := func() error {
		if len(words) == 0 {
			return fmt.Errorf("empty privilege in the list")
		}
		p := canonicalPriv(strings.Join(words, " "))
		if column {
			columns[p] = true
		} else {
			privs[p] = true
		}
		words, column = nil, false
		return nil
	}
	for _, t := range toks {
		switch {
		case t.punct("("):
			depth++
			column = true
		case t.punct(")"):
			depth--
		case depth > 0:
		case t.punct(","):
			if err := flush(); err != nil {
				return nil, nil, err
			}
		case t.bare:
			words = append(words, t.text)
		default:
			return nil, nil, fmt.Errorf("unexpected %q in the privilege list", t.text)
		}
	}
	if err := flush(); err != nil {
		return nil, nil, err
	}
	return privs, columns, nil
}

// object reads *.*, db.*, db.table (quoted or not); "*" stands for the wildcards.
func object(toks []grantTok) (db, table string, err error) {
	name := func(t grantTok) string {
		if t.punct("*") {
			return "*"
		}
		return t.text
	}
	if len(toks) == 3 && toks[1].punct(".") {
		return name(toks[0]), name(toks[2]), nil
	}
	return "", "", fmt.Errorf("cannot read the object after ON")
}

func roleNames(toks []grantTok) []string {
	var out []string
	expectName := true
	for _, t := range toks {
		switch {
		case t.punct(","):
			expectName = true
		case expectName && !t.punct("@"):
			out = append(out, t.text)
			expectName = false
		}
	}
	return out
}

// grantTok is a word, a quoted name, or one of , . ( ) @ *.
type grantTok struct {
	text   string
	bare   bool // an unquoted word: a keyword or privilege name
	quoted bool
}

func (t grantTok) is(kw string) bool   { return t.bare && strings.EqualFold(t.text, kw) }
func (t grantTok) punct(p string) bool { return !t.bare && !t.quoted && t.text == p }

func lexGrant(s string) ([]grantTok, error) {
	var out []grantTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case strings.IndexByte(",.()@*", c) >= 0:
			out = append(out, grantTok{text: string(c)})
			i++
		case c == '`' || c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c { // doubled quote
						b.WriteByte(c)
						j++
						continue
					}
					break
				}
				if c != '`' && s[j] == '\\' && j+1 < len(s) { // string escapes; names keep their backslashes (LIKE escapes)
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated %c", c)
			}
			out = append(out, grantTok{text: b.String(), quoted: true})
			i = j + 1
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t,.()@*`'\"", s[j]) < 0 {
				j++
			}
			out = append(out, grantTok{text: s[i:j], bare: true})
			i = j
		}
	}
	return out, nil
}

// likeMatch matches a schema name against a grant's pattern: % any run, _ any one
// character, backslash the escape (`app\_%` is app_ then anything).
func likeMatch(pattern, name string) bool {
	if pattern == "" {
		return name == ""
	}
	switch c := pattern[0]; {
	case c == '%':
		for i := 0; i <= len(name); i++ {
			if likeMatch(pattern[1:], name[i:]) {
				return true
			}
		}
		return false
	case c == '_':
		return name != "" && likeMatch(pattern[1:], name[1:])
	case c == '\\' && len(pattern) > 1:
		return name != "" && name[0] == pattern[1] && likeMatch(pattern[2:], name[1:])
	default:
		return name != "" && name[0] == c && likeMatch(pattern[1:], name[1:])
	}
}

// ReadGrants reads the connected account's grants. MySQL 8 lists a role's privileges only
// with SHOW GRANTS ... USING the role, so its active roles are asked for too; MariaDB lists
// the active role's grants with the account's.
func ReadGrants(ctx context.Context, db *sql.DB, flavor string) (*Grants, []string, error) {
	lines, err := showGrants(ctx, db, "SHOW GRANTS")
	if err != nil {
		return nil, nil, err
	}
	g, err := ParseGrants(lines)
	if err != nil {
		return nil, lines, err
	}
	if len(g.Roles) == 0 || flavor == "MariaDB" {
		return g, lines, nil
	}
	var active sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT CURRENT_ROLE()").Scan(&active); err != nil || !active.Valid || active.String == "NONE" || active.String == "" {
		return g, lines, nil
	}
	// CURRENT_ROLE() gives the roles quoted and comma-separated, as USING takes them.
	withRoles, err := showGrants(ctx, db, "SHOW GRANTS FOR CURRENT_USER() USING "+active.String)
	if err != nil {
		return g, lines, nil // the account's own grants still stand
	}
	if rg, err := ParseGrants(withRoles); err == nil {
		return rg, withRoles, nil
	}
	return g, lines, nil
}

func showGrants(ctx context.Context, db *sql.DB, q string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
		out = append(out, line)
	}
	return out, rows.Err()
}
