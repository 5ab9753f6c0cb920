package traffic

import "strings"

// Tables are the tables ("db.table") a statement names, read from its fingerprint (lower
// case, literals and comments gone, so no quoted word can pass for a name): each name after
// FROM, JOIN, INTO and UPDATE (not FOR UPDATE, not ON DUPLICATE KEY UPDATE), and the comma lists after FROM and UPDATE, in the
// session's default database schema when a name has none. A derived table's own FROM is
// read as every FROM is. What a statement touches beyond its text (a view's tables, a
// trigger's, a foreign key's parent) is not here: the caller knows the schema. ok is false
// when the statement is not one whose tables its text tells (CALL, LOCK, DO, HANDLER, DDL
// ...) or names none: the caller must then assume it may touch any table.
func Tables(fp, schema string) (tables []string, ok bool) {
	words := strings.Fields(strings.NewReplacer("(", " ( ", ")", " ) ", ",", " , ", ";", " ").Replace(fp))
	if len(words) == 0 {
		return nil, false
	}
	switch words[0] {
	case "select", "insert", "update", "delete", "replace", "with", "(", "load":
	default:
		return nil, false
	}
	for i := 0; i < len(words); i++ {
		list := words[i] == "from" || words[i] == "update" && (i == 0 || words[i-1] != "for" && words[i-1] != "key")
		if !list && words[i] != "join" && words[i] != "straight_join" && words[i] != "into" {
			continue
		}
		for i+1 < len(words) {
			i = skipModifiers(words, i+1)
			if i >= len(words) || words[i] == "(" || tableWords[words[i]] {
				break
			}
			if t, ok := qualify(words[i], schema); ok {
				tables = append(tables, t)
			}
			if !list {
				break
			}
			// An alias, then a comma and the next table of the list.
			j := i + 1
			if j < len(words) && words[j] == "as" {
				j++
			}
			if j < len(words) && words[j] != "," && !tableWords[words[j]] && words[j] != "(" && words[j] != ")" {
				j++
			}
			if j >= len(words) || words[j] != "," {
				break
			}
			i = j
		}
	}
	return tables, len(tables) > 0
}

// skipModifiers returns the index of the first word from i that is not a modifier between a
// keyword and its table (INSERT LOW_PRIORITY IGNORE INTO, DELETE QUICK FROM, LOAD DATA ...).
func skipModifiers(words []string, i int) int {
	for i < len(words) {
		switch words[i] {
		case "low_priority", "ignore", "quick", "delayed", "high_priority", "only", "lateral", "table":
			i++
		default:
			return i
		}
	}
	return i
}

// tableWords are the words that end a table list, or that stand where a table would and are
// not one.
var tableWords = map[string]bool{
	"where": true, "set": true, "values": true, "value": true, "select": true, "on": true, "using": true, "join": true,
	"inner": true, "left": true, "right": true, "cross": true, "natural": true, "straight_join": true, "outer": true,
	"group": true, "order": true, "limit": true, "having": true, "for": true, "lock": true, "union": true, "window": true,
	"partition": true, "force": true, "use": true, "dual": true, "procedure": true, "into": true, "from": true, "as": true,
	"with": true, "returning": true, "duplicate": true, "key": true, "default": true, "infile": true, "local": true,
	"concurrent": true, "data": true, "xml": true,
}
