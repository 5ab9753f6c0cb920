package generate

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quadrant-bench/quadrant/spec/pattern"
)

// patGen makes a column's strings from a `pattern:` (spec/pattern reads its syntax).
type patGen struct {
	p    *pattern.Pattern
	rows int64 // the table's: {row} is 1..rows
}

// named makes one named generator's value; row is the number {row} writes, from 0.
type named struct {
	longest int
	gen     func(dst []byte, row uint64, r *stream) []byte
}

func pick(list []string, r *stream) string { return list[r.intn(uint64(len(list)))] }

func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

const hexDigits = "0123456789abcdef"

var generators = map[string]named{
	"first_name": {longest(firstNames), func(dst []byte, _ uint64, r *stream) []byte { return append(dst, pick(firstNames, r)...) }},
	"last_name":  {longest(lastNames), func(dst []byte, _ uint64, r *stream) []byte { return append(dst, pick(lastNames, r)...) }},
	"name": {longest(firstNames) + 1 + longest(lastNames), func(dst []byte, _ uint64, r *stream) []byte {
		return append(append(append(dst, pick(firstNames, r)...), ' '), pick(lastNames, r)...)
	}},
	"email":   {longest(firstNames) + 1 + longest(lastNames) + 2 + 1 + longest(domains), appendEmail},
	"city":    {longest(cities), func(dst []byte, _ uint64, r *stream) []byte { return append(dst, pick(cities, r)...) }},
	"country": {longest(countries), func(dst []byte, _ uint64, r *stream) []byte { return append(dst, pick(countries, r)...) }},
	"street": {3 + 1 + longest(streets) + 1 + longest(streetKinds), func(dst []byte, _ uint64, r *stream) []byte {
		dst = strconv.AppendUint(dst, 1+r.intn(999), 10)
		return append(append(append(append(dst, ' '), pick(streets, r)...), ' '), pick(streetKinds, r)...)
	}},
	"word":     {longest(words), func(dst []byte, _ uint64, r *stream) []byte { return append(dst, pick(words, r)...) }},
	"category": {longest(nouns), appendCategory},
	"title":    {titleLongest(), appendTitle},
	// 555-0100 to 555-0199 are the numbers North America keeps for fiction: none is anyone's
	"phone": {len("+1 999 555-0199"), func(dst []byte, _ uint64, r *stream) []byte {
		dst = strconv.AppendUint(append(dst, "+1 "...), 200+r.intn(800), 10)
		return fmt.Appendf(dst, " 555-01%02d", r.intn(100))
	}},
	"uuid": {36, func(dst []byte, _ uint64, r *stream) []byte {
		a, b := r.next(), r.next()
		b = b&^(0xf<<12) | 4<<12 // version 4 in the 13th digit
		a = a&^(0x3<<62) | 2<<62 // the RFC 4122 variant in the 17th
		for i, v := 0, b; i < 16; i++ {
			if i == 8 || i == 12 {
				dst = append(dst, '-')
			}
			dst = append(dst, hexDigits[v>>60])
			v <<= 4
		}
		for i, v := 0, a; i < 16; i++ {
			if i == 0 || i == 4 {
				dst = append(dst, '-')
			}
			dst = append(dst, hexDigits[v>>60])
			v <<= 4
		}
		return dst
	}},
	"ipv4": {15, func(dst []byte, _ uint64, r *stream) []byte {
		for i := range 4 {
			if i > 0 {
				dst = append(dst, '.')
			}
			dst = strconv.AppendUint(dst, 1+r.intn(254), 10)
		}
		return dst
	}},
	"row": {0, func(dst []byte, row uint64, _ *stream) []byte { return strconv.AppendUint(dst, row+1, 10) }},
}

// appendCategory writes a capitalised noun: a category, genre or tag. The first rows of a
// table take distinct ones (a stride through the list), as a table of categories lists
// each once; the rows past the list's length draw.
func appendCategory(dst []byte, row uint64, r *stream) []byte {
	n := uint64(len(nouns))
	if row < n {
		return appendTitled(dst, nouns[(row*categoryStride+7)%n])
	}
	return appendTitled(dst, pick(nouns, r))
}

// categoryStride is prime to len(nouns) (TestCategoryStride), so that rows 0..n-1 take
// every noun once, in an order that is not the list's.
const categoryStride = 101

// appendTitle writes a title: "The Silent Harbor", "Golden Lantern" or "Harbor of the
// Moon", each word capitalised: about 68,000 of them, so that a thousand films rarely
// share one (TestDefaults: 992 distinct of 1,000).
func appendTitle(dst []byte, _ uint64, r *stream) []byte {
	switch r.intn(3) {
	case 0:
		dst = appendTitled(append(dst, "The "...), pick(adjectives, r))
		return appendTitled(append(dst, ' '), pick(nouns, r))
	case 1:
		dst = appendTitled(dst, pick(adjectives, r))
		return appendTitled(append(dst, ' '), pick(nouns, r))
	}
	dst = appendTitled(dst, pick(nouns, r))
	return appendTitled(append(dst, " of the "...), pick(nouns, r))
}

func titleLongest() int {
	return max(len("The ")+longest(adjectives)+1+longest(nouns), 2*longest(nouns)+len(" of the "))
}

// appendTitled writes w with its first letter in upper case.
func appendTitled(dst []byte, w string) []byte {
	if w == "" {
		return dst
	}
	c := w[0]
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	return append(append(dst, c), w[1:]...)
}

// appendEmail writes first.last@domain, in one address of three with a number after the
// name, as people add one when first.last is taken.
func appendEmail(dst []byte, _ uint64, r *stream) []byte {
	dst = appendLower(dst, pick(firstNames, r))
	dst = appendLower(append(dst, '.'), pick(lastNames, r))
	if r.intn(3) == 0 {
		dst = strconv.AppendUint(dst, 1+r.intn(99), 10)
	}
	return append(append(dst, '@'), pick(domains, r)...)
}

// newPattern reads a column's pattern and checks it against the column: a string type, long
// enough for the pattern's longest value.
func newPattern(c *column, src string, rows int64) (*patGen, error) {
	p, err := pattern.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("pattern %q %w", src, err)
	}
	if !isString(c) && !isBinary(c) {
		return nil, fmt.Errorf("pattern makes strings, and the column is %s; give it min/max or values: [...] instead", c.columnType)
	}
	g := &patGen{p: p, rows: rows}
	if most := g.longest(); most > c.charLen {
		return nil, fmt.Errorf("pattern %q makes values up to %d characters long, and %s holds %d; shorten the pattern or widen the column", src, most, c.columnType, c.charLen)
	}
	return g, nil
}

// longest is the length of the pattern's longest value, in characters.
func (g *patGen) longest() int64 {
	n := int64(0)
	for _, part := range g.p.Parts {
		switch part.Kind {
		case pattern.Literal:
			n += int64(utf8.RuneCountInString(part.Text))
		case pattern.Class:
			n += int64(part.Max)
		case pattern.Named:
			if part.Name == "row" {
				n += int64(len(strconv.FormatInt(max(g.rows, 1), 10)))
			} else {
				n += int64(generators[part.Name].longest)
			}
		}
	}
	return n
}

// appendValue writes one value; row is what {row} writes (from 0), digits what the classes'
// characters are where the caller chose them (unique columns), nil to draw them.
func (g *patGen) appendValue(dst []byte, row uint64, digits []uint64, folded [][]byte, r *stream) []byte {
	slot := 0
	for _, part := range g.p.Parts {
		switch part.Kind {
		case pattern.Literal:
			dst = append(dst, part.Text...)
		case pattern.Class:
			n := part.Min
			if part.Max > part.Min {
				n += int(r.intn(uint64(part.Max - part.Min + 1)))
			}
			for range n {
				if digits == nil {
					dst = append(dst, part.Chars[r.intn(uint64(len(part.Chars)))])
					continue
				}
				// the chosen letter in whichever of its cases the class has
				cases := folded[slot]
				c := cases[digits[slot]]
				if up := c - ('a' - 'A'); c >= 'a' && c <= 'z' && hasByte(part.Chars, up) && (!hasByte(part.Chars, c) || r.intn(2) == 1) {
					c = up
				}
				dst = append(dst, c)
				slot++
			}
		case pattern.Named:
			dst = generators[part.Name].gen(dst, row, r)
		}
	}
	return dst
}

func hasByte(s []byte, c byte) bool { return strings.IndexByte(string(s), c) >= 0 }

// free is the generator of a column with no key role.
func (g *patGen) free() valueGen {
	return func(dst []byte, row int64, r *stream) []byte {
		dst = append(dst, '\'')
		dst = g.appendValue(dst, uint64(row), nil, nil, r)
		return append(dst, '\'')
	}
}

// unique maps k of [0, n) to a value no other k gets, under any collation that folds case:
// either by {row} (k+1, with nothing around it that could run into its digits), or by
// writing k in the pattern's character classes as a number whose digits are the classes'
// letters, case folded.
func (g *patGen) unique(n int64) (func(dst []byte, k uint64, r *stream) []byte, error) {
	parts := g.p.Parts
	if last := lastRow(parts); last >= 0 {
		if err := rowDelimited(parts, last); err != nil {
			return nil, fmt.Errorf("pattern %q on a column that must be unique: %w", g.p.Source, err)
		}
		return func(dst []byte, k uint64, r *stream) []byte {
			return append(g.appendValue(append(dst, '\''), k, nil, nil, r), '\'')
		}, nil
	}
	if !g.p.FixedWidth() {
		return nil, fmt.Errorf("pattern %q on a column that must be unique: generate makes it unique by construction from its character classes, which needs each to have one count ([A-Z]{3}, not {1,3}) and no named generator but {uuid}; or put {row} in it (e.g. {first_name}{row}), or leave the column without a pattern", g.p.Source)
	}
	var folded [][]byte
	capacity := uint64(1)
	for _, part := range parts {
		if part.Kind != pattern.Class {
			continue
		}
		var f []byte
		for _, c := range part.Chars {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if !hasByte(f, c) {
				f = append(f, c)
			}
		}
		for range part.Max {
			folded = append(folded, f)
			hi, lo := bits.Mul64(capacity, uint64(len(f)))
			if hi != 0 {
				lo = 1 << 63
			}
			capacity = lo
		}
	}
	if uint64(n) > capacity {
		return nil, fmt.Errorf("pattern %q has %d distinct values (letters counted once whatever their case), fewer than the %d rows its unique column needs; add characters to it or put {row} in it", g.p.Source, capacity, n)
	}
	return func(dst []byte, k uint64, r *stream) []byte {
		digits := make([]uint64, len(folded))
		for i := len(folded) - 1; i >= 0; i-- {
			radix := uint64(len(folded[i]))
			digits[i], k = k%radix, k/radix
		}
		return append(g.appendValue(append(dst, '\''), 0, digits, folded, r), '\'')
	}, nil
}

func lastRow(parts []pattern.Part) int {
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i].Kind == pattern.Named && parts[i].Name == "row" {
			return i
		}
	}
	return -1
}

// rowDelimited checks that the digits of {row} at parts[i] can be told from what surrounds
// them: a fixed-width rest after it, and before it nothing that can end in a digit. Two
// values of different rows then differ in those digits.
func rowDelimited(parts []pattern.Part, i int) error {
	for _, p := range parts[i+1:] {
		if p.Kind == pattern.Class && p.Min != p.Max || p.Kind == pattern.Named && p.Name != "uuid" {
			return fmt.Errorf("what follows the last {row} must have one width (literals, classes with one count, {uuid}), so that the row's digits are told apart")
		}
	}
	if i == 0 {
		return nil
	}
	before := parts[i-1]
	ok := true
	switch before.Kind {
	case pattern.Literal:
		c := before.Text[len(before.Text)-1]
		ok = c < '0' || c > '9'
	case pattern.Class:
		ok = !strings.ContainsAny(string(before.Chars), "0123456789") || before.Max == 0
	case pattern.Named:
		ok = before.Name != "uuid" && before.Name != "ipv4" && before.Name != "phone" && before.Name != "row"
	}
	if !ok {
		return fmt.Errorf("what comes right before {row} can end in a digit, so two rows could make the same string; put a letter or a separator like - before {row}")
	}
	return nil
}

// byName make the strings of a column named like what people put in one look real
// (when the column is long enough for the pattern); longest names first, as they match more
// precisely.
var byName = []struct{ suffix, pattern string }{
	{"first_name", "{first_name}"}, {"firstname", "{first_name}"},
	{"last_name", "{last_name}"}, {"lastname", "{last_name}"}, {"surname", "{last_name}"},
	{"full_name", "{name}"}, {"email", "{email}"}, {"city", "{city}"}, {"country", "{country}"},
	{"phone", "{phone}"}, {"street", "{street}"}, {"address", "{street}"},
	{"title", "{title}"}, {"category", "{category}"}, {"genre", "{category}"}, {"tag", "{category}"},
	{"label", "{category}"}, {"kind", "{category}"},
}

// Tables whose rows are people (a name there is a person's), and tables of categories (a
// name there is a word), by a word their names contain: customers, film_category,
// staff_members...
var (
	personTables   = []string{"customer", "actor", "staff", "employee", "user", "person", "people", "author", "member", "contact", "client", "student", "patient", "player", "artist", "teacher", "driver", "guest", "owner", "manager", "passenger", "subscriber", "worker", "candidate", "applicant", "volunteer", "doctor", "instructor", "writer", "director"}
	categoryTables = []string{"categor", "genre", "tag", "type", "kind", "language", "label", "class", "group", "status", "role", "department", "region", "brand", "topic"}
	// names that are not things to title: a login, a host, a file...
	plainNames = []string{"user", "login", "host", "file", "db", "schema", "table", "column", "server", "path", "key", "code", "short", "display", "nick", "screen"}
)

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// defaultPatterns is the patterns to try, in order, for a free string column by its name
// and its table's (the first the column is long enough for), or nil. A name is a person's
// in a table of people, a word in a table of categories, else a title; so is COLUMN_name
// by what COLUMN names (customer_name, category_name, product_name).
func defaultPatterns(table, name string) []string {
	n, tb := strings.ToLower(name), strings.ToLower(table)
	if n == "name" {
		n = tb + "_name"
	}
	if what, ok := strings.CutSuffix(n, "name"); ok && n != "name" && !containsAny(n, []string{"first", "last", "sur", "full"}) {
		what = strings.TrimSuffix(what, "_")
		switch {
		case slices.Contains(plainNames, what):
			return nil
		case containsAny(what, personTables):
			return []string{"{name}"}
		case containsAny(what, categoryTables):
			return []string{"{category}"}
		}
		return []string{"{title}", "{category}"}
	}
	for _, d := range byName {
		if n == d.suffix || strings.HasSuffix(n, "_"+d.suffix) {
			if d.pattern == "{title}" {
				return []string{"{title}", "{category}"}
			}
			return []string{d.pattern}
		}
	}
	return nil
}
