// Package pattern reads the templates of a generate column's `pattern:`, such as
// `[A-Z]{2}-[0-9]{6}` or `{first_name}.{last_name}@example.com`: literal text, character
// classes with a count, and named generators. It only reads and checks them (validate needs
// that without a server); executor/generate makes the values.
package pattern

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is what a part of a pattern is.
type Kind int

const (
	Literal Kind = iota // Text as written
	Class               // Min to Max characters, each one of Chars
	Named               // a named generator, Name
)

// Part is one piece of a pattern.
type Part struct {
	Kind     Kind
	Text     string // Literal
	Chars    []byte // Class: distinct, sorted
	Min, Max int    // Class: how many characters
	Name     string // Named
	Offset   int    // byte offset in the pattern, for messages
}

// Pattern is a parsed template.
type Pattern struct {
	Source string
	Parts  []Part
}

// Names are the named generators, with what each makes (docs/generate.md lists them too).
var Names = map[string]string{
	"first_name": "a first name (Emma, Noah...)",
	"last_name":  "a last name (Smith, Garcia...)",
	"name":       "a first and a last name",
	"email":      "first.last, maybe a number, at example.com/.org/.net (reserved domains: no real address)",
	"city":       "a city",
	"country":    "a country",
	"street":     "a house number and a street (12 Oak Street)",
	"word":       "an English word",
	"category":   "a capitalised noun, for a category, genre or tag (Harbor, Lantern...); the first rows of a table take distinct ones",
	"title":      "a title-like phrase: The Silent Harbor, Golden Lantern, Harbor of the Moon",
	"phone":      "a phone number, 555-0100 to 555-0199 style (+1 ddd 555-01dd)",
	"uuid":       "a random UUID (version 4 format)",
	"ipv4":       "an IPv4 address",
	"row":        "the row's number, 1 to rows (on a unique column each row's own, in shuffled order)",
}

// maxCount bounds a class's count: a pattern makes column values, not documents.
const maxCount = 10000

// Error is a syntax error at a byte offset of the pattern.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("at character %d: %s", e.Offset+1, e.Msg)
}

func errAt(off int, format string, args ...any) *Error {
	return &Error{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a pattern. Errors are *Error.
func Parse(src string) (*Pattern, error) {
	p := &Pattern{Source: src}
	if src == "" {
		return nil, errAt(0, "the pattern is empty; write e.g. [A-Z]{2}-[0-9]{6} or {email}")
	}
	var lit strings.Builder
	litAt := 0
	flush := func() {
		if lit.Len() > 0 {
			p.Parts = append(p.Parts, Part{Kind: Literal, Text: lit.String(), Offset: litAt})
			lit.Reset()
		}
	}
	addLit := func(off int, s string) {
		if lit.Len() == 0 {
			litAt = off
		}
		lit.WriteString(s)
	}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 == len(src) {
				return nil, errAt(i, `a \ ends the pattern; write \\ for a backslash`)
			}
			_, size := utf8.DecodeRuneInString(src[i+1:])
			addLit(i, src[i+1:i+1+size])
			i += 1 + size
		case c == '[':
			flush()
			part, next, err := parseClass(src, i)
			if err != nil {
				return nil, err
			}
			p.Parts = append(p.Parts, part)
			i = next
		case c == '{' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			// a count after a single literal character makes it a one-character class
			s := lit.String()
			if s == "" {
				return nil, errAt(i, "a count {n} must follow a character class like [a-z] or a character; write \\{ for a literal {")
			}
			r, size := utf8.DecodeLastRuneInString(s)
			if r >= utf8.RuneSelf {
				return nil, errAt(i, "a count applies to ASCII characters only; write the character out, or use a class")
			}
			lit.Reset()
			if len(s) > size {
				lit.WriteString(s[:len(s)-size])
			}
			flush()
			part := Part{Kind: Class, Chars: []byte{byte(r)}, Min: 1, Max: 1, Offset: i - size}
			next, err := parseCount(src, i, &part)
			if err != nil {
				return nil, err
			}
			p.Parts = append(p.Parts, part)
			i = next
		case c == '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, errAt(i, "a { opens a name like {email} but no } closes it; write \\{ for a literal {")
			}
			name := src[i+1 : i+end]
			if _, ok := Names[name]; !ok {
				return nil, errAt(i+1, "unknown generator {%s}; known: %s", name, strings.Join(NameList(), ", "))
			}
			flush()
			p.Parts = append(p.Parts, Part{Kind: Named, Name: name, Offset: i})
			i += end + 1
			if i < len(src) && src[i] == '{' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' {
				return nil, errAt(i, "a count applies to a character class or a character, not to {%s}; write it twice instead", name)
			}
		case c == ']' || c == '}':
			return nil, errAt(i, "unmatched %c; write \\%c for a literal %c", c, c, c)
		default:
			_, size := utf8.DecodeRuneInString(src[i:])
			addLit(i, src[i:i+size])
			i += size
		}
	}
	flush()
	return p, nil
}

// parseClass reads [...] at src[i] and an optional count after it.
func parseClass(src string, i int) (Part, int, error) {
	part := Part{Kind: Class, Min: 1, Max: 1, Offset: i}
	set := map[byte]bool{}
	j := i + 1
	read := func() (byte, error) {
		c := src[j]
		if c == '\\' && j+1 < len(src) {
			j++
			c = src[j]
		}
		if c < 0x20 || c > 0x7e {
			return 0, errAt(j, "a character class holds printable ASCII characters only")
		}
		j++
		return c, nil
	}
	for {
		if j >= len(src) {
			return part, 0, errAt(i, "a [ opens a character class but no ] closes it; write \\[ for a literal [")
		}
		if src[j] == ']' {
			j++
			break
		}
		at := j
		lo, err := read()
		if err != nil {
			return part, 0, err
		}
		hi := lo
		if j+1 < len(src) && src[j] == '-' && src[j+1] != ']' {
			j++
			if hi, err = read(); err != nil {
				return part, 0, err
			}
			if hi < lo {
				return part, 0, errAt(at, "range %c-%c runs backwards; write %c-%c", lo, hi, hi, lo)
			}
		}
		for c := int(lo); c <= int(hi); c++ {
			set[byte(c)] = true
		}
	}
	if len(set) == 0 {
		return part, 0, errAt(i, "the character class [] is empty; list its characters, e.g. [a-z0-9]")
	}
	for c := range set {
		part.Chars = append(part.Chars, c)
	}
	sort.Slice(part.Chars, func(a, b int) bool { return part.Chars[a] < part.Chars[b] })
	if j+1 < len(src) && src[j] == '{' && src[j+1] >= '0' && src[j+1] <= '9' {
		next, err := parseCount(src, j, &part)
		return part, next, err
	}
	return part, j, nil
}

// parseCount reads {n} or {m,n} at src[i].
func parseCount(src string, i int, part *Part) (int, error) {
	end := strings.IndexByte(src[i:], '}')
	if end < 0 {
		return 0, errAt(i, "a count {n} or {m,n} is not closed by }")
	}
	body := src[i+1 : i+end]
	lo, hi, isRange := strings.Cut(body, ",")
	m, err1 := strconv.Atoi(lo)
	n := m
	var err2 error
	if isRange {
		n, err2 = strconv.Atoi(hi)
	}
	if err1 != nil || err2 != nil || m < 0 {
		return 0, errAt(i, "count {%s} is not {n} or {m,n} with whole numbers", body)
	}
	if n < m {
		return 0, errAt(i, "count {%s} has its larger number first; write {%d,%d}", body, n, m)
	}
	if n > maxCount {
		return 0, errAt(i, "count {%s} is above %d", body, maxCount)
	}
	part.Min, part.Max = m, n
	return i + end + 1, nil
}

// NameList is the named generators, sorted.
func NameList() []string {
	out := make([]string, 0, len(Names))
	for n := range Names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Has says whether the pattern uses the named generator name.
func (p *Pattern) Has(name string) bool {
	for _, part := range p.Parts {
		if part.Kind == Named && part.Name == name {
			return true
		}
	}
	return false
}

// FixedWidth says whether every part but {row} always has the same length: literals and
// classes with a count {n}. Such a pattern can be made unique by construction.
func (p *Pattern) FixedWidth() bool {
	for _, part := range p.Parts {
		switch {
		case part.Kind == Class && part.Min != part.Max:
			return false
		case part.Kind == Named && part.Name != "row" && part.Name != "uuid":
			return false
		}
	}
	return true
}
