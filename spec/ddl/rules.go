package ddl

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The rules below are the generator's, shared by spec (at validate, on the columns a schema
// file defines) and executor/generate (when the step runs, on the columns the server
// reports), so that both say the same thing about the same column.

// Settings are a column's settings in a generate: step, as far as the rules need them.
type Settings struct {
	Distribution string
	Values       int // how many values: lists
	Min, Max     string
	NullFraction float64
	Length       int
}

func (s Settings) any() bool {
	return s.Distribution != "" || s.Values > 0 || s.Min != "" || s.Max != "" || s.NullFraction > 0 || s.Length > 0
}

// Role is the part a column plays in the keys the generator builds.
type Role int

const (
	Free          Role = iota
	AutoIncrement      // 1..N
	Unique             // made unique by itself: a permutation mapped into its type
	Line               // numbers the rows of each parent in a key with a foreign key
	Foreign            // takes a parent row's value
)

// Problem is a setting that cannot apply to its column: the option at fault ("" for the
// column's settings as a whole) and what to do.
type Problem struct {
	Option string
	Msg    string
}

// Epoch anchors generated dates: a fixed day, not today, so that the same seed gives the
// same rows next month too. Free dates fall in the year before it; unique datetimes and
// timestamps count seconds from that year's start.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ParseTime reads a min/max of a temporal column.
func ParseTime(s string) (time.Time, error) {
	for _, f := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(f, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2024-01-31) or datetime (2024-01-31 12:00:00)", s)
}

// Problems says which of settings s cannot apply to column c (where is "table.column" for
// the messages) in role r.
func Problems(where string, c *Column, r Role, s Settings) []Problem {
	if c.Generated {
		if s.any() {
			return []Problem{{"", where + " is a generated column, which the server computes; remove its settings"}}
		}
		return nil
	}
	var out []Problem
	add := func(opt, format string, args ...any) {
		out = append(out, Problem{opt, fmt.Sprintf(format, args...)})
	}
	if s.NullFraction > 0 && !c.Nullable {
		add("null_fraction", "%s is NOT NULL, so null_fraction cannot apply; remove it or make the column nullable", where)
	}
	if r != Free {
		opt := ""
		switch {
		case s.Values > 0 && r != Unique && r != Line && r != Foreign: // a foreign key's are checked keys
			opt = "values"
		case s.Min != "" && r != Unique && r != Line:
			opt = "min"
		case s.Max != "" && r != Unique && r != Line:
			opt = "max"
		}
		switch {
		case opt != "" && r == Foreign:
			add(opt, "%s is a foreign key, whose values are its parent's keys, so min/max do not apply; remove them (values: can list parent keys)", where)
			return out
		case opt != "":
			add(opt, "%s is part of a key generate builds (auto-increment or foreign), so values and min/max do not apply; remove them", where)
			return out
		}
	}
	text := IsString(c.Type) || IsBinary(c.Type)
	switch {
	case s.Length > 0 && !text:
		add("length", "%s: length applies to strings, and %s is not one; remove it", where, c.TypeText)
	case s.Length > 0 && int64(s.Length) > c.Length:
		add("length", "%s: length %d is longer than the column's %d", where, s.Length, c.Length)
	}
	if s.Values > 0 || s.Min == "" && s.Max == "" || !Known(c.Type) {
		return out // values with min/max is spec's own error; an unknown type gets its own
	}
	opt := "min"
	if s.Min == "" {
		opt = "max"
	}
	if !takesRange(c.Type) {
		add(opt, "%s: min and max apply to numbers, dates and datetimes, and %s is not one; use values: [...] or, for strings, length:", where, c.TypeText)
		return out
	}
	if lo, hi, ok := IntRange(c.Type, c.Unsigned); ok {
		a, b := int64(0), hi
		var err error
		if s.Min != "" {
			if a, err = strconv.ParseInt(s.Min, 10, 64); err != nil || a < lo || a > hi {
				add("min", "%s: min %q is not a whole number of %s", where, s.Min, c.TypeText)
			}
		}
		if s.Max != "" {
			if b, err = strconv.ParseInt(s.Max, 10, 64); err != nil || b > hi || b < lo || b < a {
				add("max", "%s: max %q is not a whole number of %s at least min", where, s.Max, c.TypeText)
			}
		}
		return out
	}
	for _, b := range []struct{ opt, v string }{{"min", s.Min}, {"max", s.Max}} {
		if b.v == "" {
			continue
		}
		switch c.Type {
		case "date", "datetime", "timestamp":
			if _, err := ParseTime(b.v); err != nil {
				add(b.opt, "%s: %s %v", where, b.opt, err)
			}
		default:
			if _, err := strconv.ParseFloat(b.v, 64); err != nil {
				add(b.opt, "%s: %s %q is not a number", where, b.opt, b.v)
			}
		}
	}
	return out
}

// Distinct is how many distinct values the generator can give c when it makes it unique (a
// key column by itself, or the line numbers within a parent), from its settings; why says
// why it cannot make c unique at all (then n is 0). Strings are letters then a number, so
// a string of length L holds 10^L; a list of values its count; numbers, dates and datetimes are the span of
// UniqueNumbers and UniqueTimes (from min, to max when given).
func Distinct(c *Column, s Settings) (n float64, why string) {
	if s.Values > 0 {
		return float64(s.Values), "" // each once: the list's own duplicates are refused
	}
	if lo, hi, ok := UniqueNumbers(c, s); ok {
		return max(math.Floor(hi-lo)+1, 0), ""
	}
	if from, to, unit, ok := UniqueTimes(c.Type, s); ok {
		return max(float64(to.Sub(from)/unit)+1, 0), ""
	}
	switch c.Type {
	case "enum":
		return float64(len(c.Members)), ""
	}
	if IsString(c.Type) || IsBinary(c.Type) {
		most := c.Length
		if textLength[c.Type] > 0 {
			most = min(most, 255)
		}
		if s.Length > 0 {
			most = int64(s.Length)
		}
		return math.Pow10(int(min(most, 308))), ""
	}
	return 0, fmt.Sprintf("%s cannot be made unique by generate yet", c.TypeText)
}

// UniqueNumbers is the span of whole numbers the generator gives a unique integer, decimal or
// floating-point column, one apart: from min (default 1) to max (default the type's largest
// whole value; floats 2^53, past which whole numbers are not all there). A min or max that
// does not parse is left to Problems (the default stands).
func UniqueNumbers(c *Column, s Settings) (lo, hi float64, ok bool) {
	lo = 1
	if a, b, isInt := IntRange(c.Type, c.Unsigned); isInt {
		hi = float64(b)
		if v, err := strconv.ParseInt(s.Min, 10, 64); err == nil && v >= a {
			lo = float64(v)
		}
		if v, err := strconv.ParseInt(s.Max, 10, 64); err == nil && v <= b {
			hi = float64(v)
		}
		return lo, hi, true
	}
	switch c.Type {
	case "decimal", "numeric":
		hi = math.Pow10(int(c.Precision-c.Scale)) - 1
	case "float", "double", "real":
		hi = 1 << 53
	default:
		return 0, 0, false
	}
	if v, err := strconv.ParseFloat(s.Min, 64); err == nil {
		lo = math.Ceil(v)
	}
	if v, err := strconv.ParseFloat(s.Max, 64); err == nil {
		hi = math.Min(hi, math.Floor(v))
	}
	return lo, hi, true
}

// UniqueTimes is the span the generator gives a unique date (one day apart, from 1970-01-01),
// datetime or timestamp (one second apart, from the year before Epoch): from min to max when
// given, else to the type's last value.
func UniqueTimes(typ string, s Settings) (from, to time.Time, unit time.Duration, ok bool) {
	switch typ {
	case "date":
		from, to, unit = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), 24*time.Hour
	case "datetime":
		from, to, unit = Epoch.AddDate(-1, 0, 0), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), time.Second
	case "timestamp":
		from, to, unit = Epoch.AddDate(-1, 0, 0), time.Date(2038, 1, 19, 3, 14, 7, 0, time.UTC), time.Second
	default:
		return from, to, unit, false
	}
	if t, err := ParseTime(s.Min); err == nil {
		from = t
	}
	if t, err := ParseTime(s.Max); err == nil {
		to = t
	}
	return from, to, unit, true
}

// UnknownType says that column where has a type the generator does not know.
func UnknownType(where, typeText string) string {
	return fmt.Sprintf("%s has type %s, which generate does not know yet; give it values: [...] (literals the server accepts for it), or leave it out of the table", where, typeText)
}

// Order lists names parents first, parents(n) being the tables n's foreign keys reference
// (all among names); otherwise in the order given. Without such an order, cycle is the
// first cycle met, from a table back to it.
func Order(names []string, parents func(string) []string) (order, cycle []string) {
	const (
		unseen = iota
		visiting
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(n string) []string
	visit = func(n string) []string {
		switch state[n] {
		case done:
			return nil
		case visiting:
			i := len(path) - 1
			for path[i] != n {
				i--
			}
			return append(append([]string(nil), path[i:]...), n)
		}
		state[n] = visiting
		path = append(path, n)
		ps := append([]string(nil), parents(n)...)
		sort.Strings(ps)
		for _, p := range ps {
			if c := visit(p); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		order = append(order, n)
		return nil
	}
	for _, n := range names {
		if c := visit(n); c != nil {
			return nil, c
		}
	}
	return order, nil
}

// CycleMessage says why a cycle of foreign keys stops generate, and what to do.
func CycleMessage(cycle []string) string {
	return fmt.Sprintf("the foreign keys of %s form a cycle (%s): generate fills parents before children and cannot order them; drop one of these foreign keys before generating (leave it out of the schema file, or ALTER TABLE ... DROP FOREIGN KEY) and add it back once the rows are in with after: FILE (ALTER TABLE ... ADD FOREIGN KEY ...; quadrant generate --after FILE)", cycle[0], strings.Join(cycle, " -> "))
}

// UnlistedParent says that foreign key cols of table references parent, which the step
// does not fill.
func UnlistedParent(table string, cols []string, parent string) string {
	return fmt.Sprintf("%s.%s references %s, which is not in tables:; generate takes foreign keys from the rows it makes: add %s: {rows: N} to tables:", table, strings.Join(cols, ","), parent, parent)
}

// Repeated finds two values of a list a unique key takes as one: equal but for letter case or
// trailing spaces, as the usual case-insensitive collations compare them (a binary collation
// would take them apart, but refusing them there too costs nothing).
func Repeated(values []string) (a, b string, found bool) {
	seen := map[string]string{}
	for _, v := range values {
		k := strings.ToLower(strings.TrimRight(v, " "))
		if first, ok := seen[k]; ok {
			return first, v, true
		}
		seen[k] = v
	}
	return "", "", false
}

// AutoIncrementFits says, when it does not, that an auto-increment column of type typ
// (unsigned or not) cannot number rows rows: generate gives it 1..rows, as the server's
// counter would, so the load would stop at the type's largest value ("Out of range value")
// with the table part-filled. why is "" when it fits.
// about says rows is an estimate (a per_parent table's).
func AutoIncrementFits(where, typeText, typ string, unsigned bool, rows int64, about bool) (why string) {
	_, hi, ok := IntRange(typ, unsigned)
	if !ok || rows <= hi {
		return ""
	}
	n := fmt.Sprintf("the %d rows", rows)
	if about {
		n = fmt.Sprintf("at least about %d rows (per_parent: the parent's rows times the mean count, less 3 standard deviations)", rows)
	}
	return fmt.Sprintf("%s is AUTO_INCREMENT, so generate numbers %s 1, 2, 3..., and %s holds at most %d; widen it (%s) or lower rows", where, n, typeText, hi, wider(rows))
}

// wider names the narrowest integer type that holds n.
func wider(n int64) string {
	for _, t := range []struct {
		name string
		typ  string
	}{{"SMALLINT UNSIGNED", "smallint"}, {"MEDIUMINT UNSIGNED", "mediumint"}, {"INT UNSIGNED", "int"}} {
		if _, hi, _ := IntRange(t.typ, true); n <= hi {
			return t.name + " holds " + strconv.FormatInt(hi, 10)
		}
	}
	return "BIGINT"
}
