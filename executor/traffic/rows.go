package traffic

import (
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// Rows are the rows a single-table statement can lock, as far as its text tells them: its
// WHERE clause's equalities of a column to a literal (a = 1, a IN (1, 2), (a, b) IN ((1, 2),
// (3, 4))) joined by AND, or an INSERT's (REPLACE's) column list and literal VALUES. Which
// of those columns make a row's key is the schema's (Keys): the text alone only says "these
// columns have these values". A term that is not such an equality (a range, a function, a
// subquery) is left out: in a conjunction it can only narrow the rows. A top-level OR, a
// join, INSERT ... SELECT or anything else the text does not tell is not ok: the caller must
// assume the statement may lock any row of its table.
type Rows struct {
	factors []factor
}

// factor is one term of the conjunction: these columns take one of these value tuples.
type factor struct {
	cols   []string
	tuples [][]string // canonical values (canon), one per column
}

// maxKeys bounds the rows a statement is keyed by: a longer IN list is taken as the table.
const maxKeys = 1024

// ParseRows reads what a statement's text says of the rows it locks (Rows). The text is the
// statement as run, literals and all (not the fingerprint).
func ParseRows(text string) (Rows, bool) {
	if strings.Contains(text, "/*!") || strings.Contains(text, "/*M!") {
		return Rows{}, false // an executable comment: SQL the tokens below would not see
	}
	tk := tokens(text)
	if len(tk) == 0 {
		return Rows{}, false
	}
	switch tk[0].word() {
	case "insert", "replace":
		return insertRows(tk)
	case "update", "delete", "select":
		return whereRows(tk)
	}
	return Rows{}, false
}

// Keys are the rows as keys of the given columns (the table's primary key, in order), each
// key its canonical values joined: ok only when every column is given by the text, with at
// most maxKeys keys.
func (r Rows) Keys(key []string) ([]string, bool) {
	if len(key) == 0 || len(r.factors) == 0 {
		return nil, false
	}
	type part struct {
		f    *factor
		cols []int // the factor's column for each key column it gives, -1 for others
	}
	var parts []part
	given := make([]bool, len(key))
	for fi := range r.factors {
		f := &r.factors[fi]
		p := part{f: f, cols: make([]int, len(key))}
		used := false
		for ki, k := range key {
			p.cols[ki] = -1
			if given[ki] {
				continue
			}
			for ci, c := range f.cols {
				if c == k {
					p.cols[ki], given[ki], used = ci, true, true
					break
				}
			}
		}
		if used {
			parts = append(parts, p)
		}
	}
	for _, g := range given {
		if !g {
			return nil, false
		}
	}
	keys := [][]string{make([]string, len(key))}
	for _, p := range parts {
		if len(keys)*len(p.f.tuples) > maxKeys {
			return nil, false
		}
		var next [][]string
		for _, k := range keys {
			for _, t := range p.f.tuples {
				n := append([]string(nil), k...)
				for ki, ci := range p.cols {
					if ci >= 0 {
						n[ki] = t[ci]
					}
				}
				next = append(next, n)
			}
		}
		keys = next
	}
	out := make([]string, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		s := strings.Join(k, "\x00")
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out, true
}

// insertRows reads INSERT [modifiers] INTO t (cols) VALUES (...), (...) [ON DUPLICATE KEY
// UPDATE ...]: one factor of every column, a tuple per row. A value that is not one literal
// is left out of its tuple's column (canonical "", which Keys refuses as part of a key).
func insertRows(tk []token) (Rows, bool) {
	i := 1
	for i < len(tk) && tk[i].kind == tIdent && tk[i].word() != "into" && modifiers[tk[i].word()] {
		i++
	}
	if i < len(tk) && tk[i].word() == "into" {
		i++
	}
	i = skipName(tk, i)
	if i < 0 || i >= len(tk) || !tk[i].is("(") {
		return Rows{}, false // no column list: the columns are the table's order
	}
	var cols []string
	for i++; i < len(tk) && !tk[i].is(")"); i++ {
		if tk[i].kind == tIdent {
			cols = append(cols, lastPart(tk, &i))
			continue
		}
		if !tk[i].is(",") {
			return Rows{}, false
		}
	}
	i++
	if i >= len(tk) || tk[i].word() != "values" && tk[i].word() != "value" || len(cols) == 0 {
		return Rows{}, false // INSERT ... SELECT, SET a = 1: not told here
	}
	f := factor{cols: cols}
	for i++; i < len(tk) && tk[i].is("("); i++ {
		vals, next, ok := tuple(tk, i)
		if !ok || len(vals) != len(cols) {
			return Rows{}, false
		}
		f.tuples = append(f.tuples, vals)
		if i = next; i >= len(tk) || !tk[i].is(",") {
			break
		}
	}
	if len(f.tuples) == 0 || len(f.tuples) > maxKeys {
		return Rows{}, false
	}
	for _, t := range f.tuples {
		for c, v := range t {
			if v == "" {
				f.cols[c] = "" // not a literal in some row: the column tells no key
			}
		}
	}
	return Rows{factors: []factor{f}}, true
}

// modifiers stand between INSERT and INTO.
var modifiers = map[string]bool{"low_priority": true, "delayed": true, "high_priority": true, "ignore": true}

// whereRows reads a single-table UPDATE, DELETE or SELECT's WHERE clause: its terms joined by
// AND at the top level, each an equality of columns to literals or anything else. The table
// list is what stands between FROM (UPDATE) and WHERE (SET): a comma or a join there is more
// than one table.
func whereRows(tk []token) (Rows, bool) {
	w, depth := -1, 0
	list := tk[0].word() != "select" // an UPDATE's list starts at once, a DELETE's FROM is in it
	for i := 1; i < len(tk) && w < 0; i++ {
		switch {
		case tk[i].is("("):
			depth++
		case tk[i].is(")"):
			depth--
		case depth > 0:
			if tk[i].word() == "select" {
				return Rows{}, false // a subquery: its rows are another table's
			}
		case tk[i].word() == "from":
			list = true
		case tk[i].word() == "set":
			list = false
		case tk[i].word() == "where":
			w = i
		case list && (tk[i].is(",") || tk[i].word() == "join" || tk[i].word() == "straight_join" || tk[i].word() == "using"):
			return Rows{}, false // more than one table
		case list && (tk[i].word() == "index" || tk[i].word() == "key" || tk[i].word() == "partition"):
			return Rows{}, false // an index hint: the rows it locks are that index's range
		}
	}
	for i := w + 1; w > 0 && i < len(tk); i++ {
		if tk[i].word() == "select" || tk[i].word() == "union" {
			return Rows{}, false // a subquery in the condition
		}
	}
	if w < 0 {
		return Rows{}, false // every row
	}
	var r Rows
	for i := w + 1; i < len(tk); {
		f, next, ok := term(tk, i)
		if ok {
			r.factors = append(r.factors, f)
		}
		i, depth = next, 0
		for ; i < len(tk); i++ {
			if tk[i].is("(") {
				depth++
			} else if tk[i].is(")") {
				depth--
			} else if depth == 0 && (tk[i].word() == "and" || tk[i].is("&&")) {
				i++
				break
			} else if depth == 0 && (tk[i].word() == "or" || tk[i].is("||") || tk[i].word() == "xor") {
				return Rows{}, false
			} else if depth == 0 && whereEnd[tk[i].word()] {
				return r, len(r.factors) > 0
			}
		}
	}
	return r, len(r.factors) > 0
}

// whereEnd are the words that end a WHERE clause at its top level.
var whereEnd = map[string]bool{"order": true, "limit": true, "for": true, "lock": true, "group": true, "having": true, "returning": true, "window": true, "into": true}

// term reads an equality at i: col = lit, lit = col, col IN (lits), (cols) IN ((lits), ...),
// that the next token ends (AND, OR, the clause's end); next is where it stopped reading.
func term(tk []token, i int) (factor, int, bool) {
	ends := func(j int) bool {
		return j >= len(tk) || tk[j].word() == "and" || tk[j].word() == "or" || tk[j].word() == "xor" || tk[j].is("&&") || tk[j].is("||") || whereEnd[tk[j].word()] || tk[j].is(")")
	}
	if i >= len(tk) {
		return factor{}, i, false
	}
	if tk[i].is("(") { // (a, b) IN ((1, 2), ...)
		var cols []string
		j := i + 1
		for ; j < len(tk) && tk[j].kind == tIdent; j++ {
			cols = append(cols, lastPart(tk, &j))
			if j+1 < len(tk) && tk[j+1].is(",") {
				j++
			}
		}
		if len(cols) == 0 || j+2 >= len(tk) || !tk[j].is(")") || tk[j+1].word() != "in" || !tk[j+2].is("(") {
			return factor{}, i, false
		}
		f := factor{cols: cols}
		for j += 3; j < len(tk) && tk[j].is("("); j++ {
			vals, next, ok := tuple(tk, j)
			if !ok || len(vals) != len(cols) || len(f.tuples) >= maxKeys || slices.Contains(vals, "") {
				return factor{}, i, false
			}
			f.tuples = append(f.tuples, vals)
			if j = next; j >= len(tk) || !tk[j].is(",") {
				break
			}
		}
		if j >= len(tk) || !tk[j].is(")") || !ends(j+1) || len(f.tuples) == 0 {
			return factor{}, i, false
		}
		return f, j + 1, true
	}
	if tk[i].kind == tIdent {
		j := i
		col := lastPart(tk, &j)
		j++
		switch {
		case j+1 < len(tk) && tk[j].is("=") && literal(tk[j+1]) != "" && ends(j+2):
			return factor{cols: []string{col}, tuples: [][]string{{literal(tk[j+1])}}}, j + 2, true
		case j+1 < len(tk) && tk[j].word() == "in" && tk[j+1].is("("):
			vals, next, ok := tuple(tk, j+1)
			if !ok || slices.Contains(vals, "") || len(vals) > maxKeys || !ends(next) {
				return factor{}, i, false
			}
			f := factor{cols: []string{col}}
			for _, v := range vals {
				f.tuples = append(f.tuples, []string{v})
			}
			return f, next, true
		}
		return factor{}, i, false
	}
	if literal(tk[i]) != "" && i+2 < len(tk) && tk[i+1].is("=") && tk[i+2].kind == tIdent {
		j := i + 2
		col := lastPart(tk, &j)
		if ends(j + 1) {
			return factor{cols: []string{col}, tuples: [][]string{{literal(tk[i])}}}, j + 1, true
		}
	}
	return factor{}, i, false
}

// tuple reads ( v, v, ... ) at i: each value's canonical literal, "" for one that is not a
// single literal; next is past the closing parenthesis.
func tuple(tk []token, i int) (vals []string, next int, ok bool) {
	depth, cur, n := 0, "", 0
	for j := i; j < len(tk); j++ {
		switch {
		case tk[j].is("("):
			depth++
			if depth > 1 {
				n = 2 // a nested expression: not a literal
			}
			continue
		case tk[j].is(")"):
			depth--
			if depth == 0 {
				if n != 1 {
					cur = ""
				}
				return append(vals, cur), j + 1, true
			}
			continue
		case depth == 1 && tk[j].is(","):
			if n != 1 {
				cur = ""
			}
			vals, cur, n = append(vals, cur), "", 0
			continue
		}
		n++
		cur = literal(tk[j])
	}
	return nil, len(tk), false
}

// skipName passes a table name (db.t, `db`.`t`) and an optional alias; -1 when there is none.
func skipName(tk []token, i int) int {
	if i >= len(tk) || tk[i].kind != tIdent {
		return -1
	}
	lastPart(tk, &i)
	return i + 1
}

// lastPart reads a dotted name at *i (a.b.c), leaves *i on its last word and returns it.
func lastPart(tk []token, i *int) string {
	for *i+2 < len(tk) && tk[*i+1].is(".") && tk[*i+2].kind == tIdent {
		*i += 2
	}
	return tk[*i].text
}

// literal is a token's canonical value as a key part: a number in one spelling (1, 1.0 and
// '1' alike), a string lower case without trailing blanks (so that a case-insensitive,
// PAD SPACE collation's equal values are equal here: two rows taken for one only orders
// more); "" for a token that is not a literal (NULL, a name, an operator).
func literal(t token) string {
	switch t.kind {
	case tNumber, tString:
		if f, err := strconv.ParseFloat(strings.TrimSpace(t.text), 64); err == nil {
			return "n" + strconv.FormatFloat(f, 'g', -1, 64)
		}
		if t.kind == tString {
			return "s" + strings.ToLower(strings.TrimRight(t.text, " "))
		}
	}
	return ""
}

// A token of a statement's text, as ParseRows reads it.
type token struct {
	kind tokenKind
	text string // a name lower case and unquoted, a string's content unescaped, an operator
}

type tokenKind int8

const (
	tIdent tokenKind = iota
	tNumber
	tString
	tOp
)

func (t token) word() string {
	if t.kind == tIdent {
		return t.text
	}
	return ""
}

func (t token) is(op string) bool { return t.kind == tOp && t.text == op }

// tokens splits a statement into names, numbers, strings and operators, without comments. A
// sign directly before a number where an operand starts (after an operator, a parenthesis,
// a comma or a keyword) is the number's.
func tokens(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || sqltext.LineComment(s[i:]):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			e := strings.Index(s[i+2:], "*/")
			if e < 0 {
				return out
			}
			i += e + 4
		case c == '\'' || c == '"':
			v, n := quoted(s[i:], c)
			out = append(out, token{kind: tString, text: v})
			i += n
		case c == '`':
			v, n := quoted(s[i:], c)
			out = append(out, token{kind: tIdent, text: strings.ToLower(v)})
			i += n
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]) || (c == '-' || c == '+') && i+1 < len(s) && isDigit(s[i+1]) && operandStarts(out):
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '.' || (s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
			out = append(out, token{kind: tNumber, text: s[i:j]})
			i = j
		case isWordByte(c) || c >= 0x80:
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] >= 0x80) {
				j++
			}
			out = append(out, token{kind: tIdent, text: strings.ToLower(s[i:j])})
			i = j
		default:
			n := 1
			if i+1 < len(s) && twoByteOps[s[i:i+2]] {
				n = 2
			}
			out = append(out, token{kind: tOp, text: s[i : i+n]})
			i += n
		}
	}
	return out
}

// twoByteOps are the operators of two bytes that matter here: a comparison (so that "<="
// is not read as "<" then "="), a logical one, an assignment.
var twoByteOps = map[string]bool{"<=": true, ">=": true, "<>": true, "!=": true, "&&": true, "||": true, ":=": true}

// operandStarts says an operand, not an operator, comes after these tokens.
func operandStarts(out []token) bool {
	if len(out) == 0 {
		return true
	}
	last := out[len(out)-1]
	return last.kind == tOp && last.text != ")" || last.kind == tIdent && (last.text == "in" || last.text == "values" || last.text == "value" || last.text == "and" || last.text == "or")
}

// quoted reads a quoted string or name at the start of s: its content, unescaped (a doubled
// quote, a backslash escape in strings), and its length.
func quoted(s string, q byte) (string, int) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q != '`' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i++
			b.WriteByte(q)
		case s[i] == q:
			return b.String(), i + 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z'
}
