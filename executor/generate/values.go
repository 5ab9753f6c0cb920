package generate

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// Settings are a column's optional settings (genplan.GenerateColumn).
type Settings struct {
	Distribution string
	Values       []string
	Weights      []float64
	Min, Max     string
	NullFraction float64
	Length       int
	Pattern      string
	FromSample   string
	Expr         string // an expression over the row's columns and its parent's (genplan.CompileGenerateExpr)

	sample *sample    // what FromSample read, set by Run before planning
	rows   *rowSample // the table's from_sample, when it draws this column
}

// rule is s as spec/ddl's rules (shared with validate) take it.
func (s Settings) rule() ddl.Settings {
	return ddl.Settings{Distribution: s.Distribution, Values: len(s.Values), Min: s.Min, Max: s.Max, NullFraction: s.NullFraction, Length: s.Length}
}

// epoch anchors generated dates (spec/ddl's, which validate counts unique dates from).
var epoch = ddl.Epoch

// intRange is the range of an integer type, by the rule validate uses too.
func intRange(c *column) (lo, hi int64, ok bool) { return ddl.IntRange(c.dataType, c.unsigned) }

func isString(c *column) bool { return ddl.IsString(c.dataType) }

func isBinary(c *column) bool { return ddl.IsBinary(c.dataType) }

// maxLen is the longest string a column takes (text types: what a default row should hold).
func maxLen(c *column) int64 {
	switch c.dataType {
	case "tinytext", "tinyblob", "text", "blob", "mediumtext", "mediumblob", "longtext", "longblob":
		return min(c.charLen, 255)
	}
	return c.charLen
}

// valueGen appends one column's value at a row as an SQL literal.
type valueGen func(dst []byte, row int64, r *stream) []byte

const letters = "abcdefghijklmnopqrstuvwxyz"

func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '\'')
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'', '\\':
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '\'')
}

func appendLetters(dst []byte, n int64, r *stream) []byte {
	for range n {
		dst = append(dst, letters[r.intn(26)])
	}
	return dst
}

// parseTime reads a min/max of a temporal column.
func parseTime(s string) (time.Time, error) {
	for _, f := range []string{"2006-01-02 15:04:05.999999", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(f, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2024-01-31) or datetime (2024-01-31 12:00:00)", s)
}

// freeGen is how a column with no key role gets its values, from its type and settings;
// rows is the table's.
func freeGen(c *column, s Settings, rows int64) (valueGen, error) {
	if s.rows != nil {
		return s.rows.gen(c)
	}
	if s.sample != nil {
		return s.sample.gen(c)
	}
	if s.Pattern != "" {
		g, err := newPattern(c, s.Pattern, rows)
		if err != nil {
			return nil, err
		}
		return g.free(), nil
	}
	if len(s.Values) > 0 {
		return listedGen(s), nil
	}
	if !ddl.Known(c.dataType) {
		return nil, errUnknownType // the list validate checks columns against
	}
	if lo, hi, ok := intRange(c); ok {
		return intGen(c, s, lo, hi)
	}
	switch c.dataType {
	case "decimal", "numeric", "float", "double", "real":
		return numberGen(c, s)
	case "date", "datetime", "timestamp":
		return timeGen(c, s)
	case "time", "year", "enum", "set", "bit", "json":
		return otherGen(c, s), nil
	}
	if isString(c) || isBinary(c) {
		return stringGen(c, s, rows)
	}
	return nil, errUnknownType
}

// listedGen picks one of the listed values, by weight when weights are given.
func listedGen(s Settings) valueGen {
	vals, dist := s.Values, s.Distribution
	if len(s.Weights) > 0 {
		cum := make([]float64, len(s.Weights))
		total := 0.0
		for i, w := range s.Weights {
			total += w
			cum[i] = total
		}
		return func(dst []byte, _ int64, r *stream) []byte {
			x := r.float() * total
			i := sort.Search(len(cum), func(i int) bool { return cum[i] > x })
			return appendQuoted(dst, vals[min(i, len(vals)-1)])
		}
	}
	return func(dst []byte, row int64, r *stream) []byte {
		return appendQuoted(dst, vals[r.pick(dist, uint64(len(vals)), row)])
	}
}

// intGen is an integer column's: within [lo, hi], by default values that look real (not
// negative, and not the whole of a bigint).
func intGen(c *column, s Settings, lo, hi int64) (valueGen, error) {
	dist := s.Distribution
	a, b := int64(0), min(hi, 1_000_000)
	if strings.HasPrefix(c.columnType, "tinyint(1)") {
		b = 1
	}
	var err error
	if s.Min != "" {
		if a, err = strconv.ParseInt(s.Min, 10, 64); err != nil || a < lo {
			return nil, fmt.Errorf("min %q is not a whole number of %s", s.Min, c.columnType)
		}
		b = max(b, a)
	}
	if s.Max != "" {
		if b, err = strconv.ParseInt(s.Max, 10, 64); err != nil || b > hi || b < a {
			return nil, fmt.Errorf("max %q is not a whole number of %s at least min", s.Max, c.columnType)
		}
	}
	span := uint64(b-a) + 1
	return func(dst []byte, row int64, r *stream) []byte {
		return strconv.AppendInt(dst, a+int64(r.pick(dist, span, row)), 10)
	}, nil
}

// numberGen is a decimal or floating-point column's, in steps of its scale (2 digits for
// floats).
func numberGen(c *column, s Settings) (valueGen, error) {
	dist := s.Distribution
	scale := c.scale
	if c.dataType != "decimal" && c.dataType != "numeric" {
		scale = 2
	}
	top := 10000.0
	if c.dataType == "decimal" || c.dataType == "numeric" {
		top = min(top, decimalTop(c.precision-c.scale))
	}
	a, b := 0.0, top
	var err error
	if s.Min != "" {
		if a, err = strconv.ParseFloat(s.Min, 64); err != nil {
			return nil, fmt.Errorf("min %q is not a number", s.Min)
		}
		b = max(b, a)
	}
	if s.Max != "" {
		if b, err = strconv.ParseFloat(s.Max, 64); err != nil {
			return nil, fmt.Errorf("max %q is not a number", s.Max)
		}
	}
	unit := math.Pow10(-int(scale))
	steps := uint64(math.Floor((b-a)/unit)) + 1
	return func(dst []byte, row int64, r *stream) []byte {
		return strconv.AppendFloat(dst, a+float64(r.pick(dist, steps, row))*unit, 'f', int(scale), 64)
	}, nil
}

// decimalTop is where a DECIMAL with digits whole digits stops by default: at half its
// digits (rounded up), as a column is sized with room to spare: DECIMAL(5,2) amounts go to
// 100, not 999.99, DECIMAL(4,2) to 10, DECIMAL(10,2) to 10,000. A column with no whole digit
// (DECIMAL(2,2)) stays below 1.
func decimalTop(digits int64) float64 {
	if digits <= 0 {
		return 1 - 1e-9
	}
	return min(math.Pow10(int(digits+1)/2), math.Pow10(int(digits))-1)
}

// timeGen is a date, datetime or timestamp column's: by default the year before epoch,
// in whole seconds (days for a date).
func timeGen(c *column, s Settings) (valueGen, error) {
	dist := s.Distribution
	from, to := epoch.AddDate(-1, 0, 0), epoch.Add(-time.Second)
	var err error
	if s.Min != "" {
		if from, err = ddl.ParseTime(s.Min); err != nil {
			return nil, err
		}
	}
	if s.Max != "" {
		if to, err = ddl.ParseTime(s.Max); err != nil {
			return nil, err
		}
	}
	unit, layout := time.Second, "2006-01-02 15:04:05"
	if c.dataType == "date" {
		unit, layout = 24*time.Hour, "2006-01-02"
	}
	steps := uint64(to.Sub(from)/unit) + 1
	return func(dst []byte, row int64, r *stream) []byte {
		t := from.Add(time.Duration(r.pick(dist, steps, row)) * unit)
		return appendQuoted(dst, t.Format(layout))
	}, nil
}

// otherGen is the generator of a time, year, enum, set, bit or json column: none takes
// settings beyond the distribution.
func otherGen(c *column, s Settings) valueGen {
	dist := s.Distribution
	switch c.dataType {
	case "time":
		return func(dst []byte, row int64, r *stream) []byte {
			x := r.pick(dist, 86400, row)
			return appendQuoted(dst, fmt.Sprintf("%02d:%02d:%02d", x/3600, x/60%60, x%60))
		}
	case "year":
		return func(dst []byte, row int64, r *stream) []byte {
			return strconv.AppendUint(dst, 2000+r.pick(dist, 26, row), 10)
		}
	case "enum":
		m := c.members
		return func(dst []byte, row int64, r *stream) []byte {
			return appendQuoted(dst, m[r.pick(dist, uint64(len(m)), row)])
		}
	case "set":
		m := c.members
		return func(dst []byte, _ int64, r *stream) []byte {
			var picked []string
			for _, x := range m {
				if r.intn(2) == 1 {
					picked = append(picked, x)
				}
			}
			return appendQuoted(dst, strings.Join(picked, ","))
		}
	case "bit":
		n := uint64(1) << min(c.precision, 63)
		return func(dst []byte, row int64, r *stream) []byte {
			return strconv.AppendUint(dst, r.pick(dist, n, row), 10)
		}
	default: // json
		return func(dst []byte, row int64, r *stream) []byte {
			return append(strconv.AppendUint(append(dst, `'{"n": `...), r.intn(1_000_000), 10), `}'`...)
		}
	}
}

// stringGen is a string or binary column's: letters of the set length, else a pattern
// its name suggests, else a quarter of its length up to all of it (all for char and
// binary).
func stringGen(c *column, s Settings, rows int64) (valueGen, error) {
	most := maxLen(c)
	if most <= 0 {
		most = 1
	}
	least := most
	if c.dataType != "char" && c.dataType != "binary" {
		least = max(1, most/4)
	}
	if s.Length > 0 {
		if int64(s.Length) > c.charLen {
			return nil, fmt.Errorf("length %d is longer than the column's %d", s.Length, c.charLen)
		}
		least, most = int64(s.Length), int64(s.Length)
	} else if isString(c) {
		for _, p := range defaultPatterns(c.table, c.name) {
			if g, err := newPattern(c, p, rows); err == nil {
				return g.free(), nil
			}
		}
	}
	return func(dst []byte, _ int64, r *stream) []byte {
		n := least + int64(r.intn(uint64(most-least+1)))
		dst = append(dst, '\'')
		return append(appendLetters(dst, n, r), '\'')
	}, nil
}

var errUnknownType = fmt.Errorf("unknown type")

// uniqueGen maps k of [0, n) into the column's domain, one value per k: what makes a
// column unique by itself (k from a permutation) or counts lines within a parent.
func uniqueGen(c *column, s Settings, n int64) (func(dst []byte, k uint64, r *stream) []byte, error) {
	if len(s.Values) > 0 {
		if int64(len(s.Values)) < n {
			return nil, fmt.Errorf("values lists %d, fewer than the %d distinct values the key needs (each is used once); list at least %d or lower rows", len(s.Values), n, n)
		}
		if a, b, dup := ddl.Repeated(s.Values); dup {
			return nil, fmt.Errorf("values lists %q and %q, which the key takes as one; remove one", a, b)
		}
		if len(s.Weights) > 0 {
			return nil, errors.New("weights do not apply: each value is used once; remove them")
		}
		vals := s.Values
		return func(dst []byte, k uint64, _ *stream) []byte { return appendQuoted(dst, vals[k]) }, nil
	}
	if _, _, isInt := intRange(c); isInt {
		lo, hi, _ := ddl.UniqueNumbers(c.spec(), s.rule())
		a := int64(lo)
		if n > 0 && hi-lo < float64(n-1) {
			return nil, fmt.Errorf("%s from %d%s cannot hold %d distinct values; widen the column, lower rows%s", c.columnType, a, upTo(s), n, orMax(s))
		}
		return func(dst []byte, k uint64, _ *stream) []byte { return strconv.AppendInt(dst, a+int64(k), 10) }, nil
	}
	if lo, hi, ok := ddl.UniqueNumbers(c.spec(), s.rule()); ok {
		if float64(n) > math.Floor(hi-lo)+1 {
			return nil, fmt.Errorf("%s cannot hold %d distinct whole values from %g%s; widen it, lower rows%s", c.columnType, n, lo, upTo(s), orMax(s))
		}
		return func(dst []byte, k uint64, _ *stream) []byte {
			return strconv.AppendFloat(dst, lo+float64(k), 'f', 0, 64)
		}, nil
	}
	if from, to, unit, ok := ddl.UniqueTimes(c.dataType, s.rule()); ok {
		layout := "2006-01-02 15:04:05"
		if c.dataType == "date" {
			layout = "2006-01-02"
		}
		if n > 0 && to.Sub(from)/unit < time.Duration(n-1) {
			return nil, fmt.Errorf("%s from %s to %s cannot hold %d distinct values one %s apart; widen the range, lower rows%s", c.columnType, from.Format(layout), to.Format(layout), n, unitName(unit), orMax(s))
		}
		from, step := spreadTimes(c.dataType, s, n, from, unit)
		return func(dst []byte, k uint64, r *stream) []byte {
			at := int64(k) * step
			if step > 1 {
				at += int64(r.intn(uint64(step)))
			}
			return appendQuoted(dst, from.Add(time.Duration(at)*unit).Format(layout))
		}, nil
	}
	switch c.dataType {
	case "enum":
		if n > int64(len(c.members)) {
			return nil, fmt.Errorf("%s has %d members, fewer than the %d distinct values a unique key needs", c.columnType, len(c.members), n)
		}
		m := c.members
		return func(dst []byte, k uint64, _ *stream) []byte { return appendQuoted(dst, m[k]) }, nil
	}
	if s.Pattern != "" {
		g, err := newPattern(c, s.Pattern, n)
		if err != nil {
			return nil, err
		}
		return g.unique(n)
	}
	if isString(c) || isBinary(c) {
		// Letters, then the number: two different numbers never make the same string,
		// whatever the letters, and no collation folds digits together.
		suffix := ""
		if strings.Contains(strings.ToLower(c.name), "email") {
			suffix = "@example.com"
		}
		digits := int64(len(strconv.FormatInt(max(n-1, 0), 10)))
		most := maxLen(c)
		if s.Length > 0 {
			most = int64(s.Length)
		}
		if suffix != "" && s.Length == 0 && int64(longest(firstNames)+1+longest(lastNames))+digits+int64(len(suffix)) <= most {
			// an address that looks like one, first.last then the number: a name ends in
			// a letter, so the number's digits are told apart and the address is unique
			return func(dst []byte, k uint64, r *stream) []byte {
				dst = appendLower(append(dst, '\''), pick(firstNames, r))
				dst = appendLower(append(dst, '.'), pick(lastNames, r))
				return append(append(strconv.AppendUint(dst, k, 10), suffix...), '\'')
			}, nil
		}
		if digits+int64(len(suffix)) > most {
			suffix = ""
		}
		if digits > most {
			return nil, fmt.Errorf("%s is too short for %d distinct values; widen it or lower rows", c.columnType, n)
		}
		room := min(most-digits-int64(len(suffix)), 12)
		return func(dst []byte, k uint64, r *stream) []byte {
			dst = append(dst, '\'')
			dst = appendLetters(dst, room, r)
			dst = strconv.AppendUint(dst, k, 10)
			return append(append(dst, suffix...), '\'')
		}, nil
	}
	return nil, fmt.Errorf("%s cannot be made unique by generate yet", c.columnType)
}

// spreadTimes is where the n distinct values of a unique date or datetime start and how
// many units apart their slots are: value k is in slot k, [from + k*step, from + (k+1)*step)
// units, so they never repeat and spread over the range instead of one unit apart from its
// start (issue 47: 16,044 rentals within 45 seconds). The range is min to max when both are
// given, else the year before Epoch (as free dates), ending there and starting earlier when
// n values one unit apart do not fit in it; with min alone, one unit apart from min as
// before, and so where the year cannot start early enough for the type (a TIMESTAMP before
// 1970).
func spreadTimes(typ string, s Settings, n int64, from time.Time, unit time.Duration) (time.Time, int64) {
	if n <= 0 || time.Duration(n) > time.Duration(math.MaxInt64)/unit {
		return from, 1 // beyond what a time.Duration spans (292 years): one unit apart
	}
	var to time.Time
	switch {
	case s.Min != "" && s.Max != "":
		t, err := ddl.ParseTime(s.Max)
		if err != nil {
			return from, 1
		}
		to = t
	case s.Min == "" && s.Max == "":
		to = epoch.Add(-unit)
		start := epoch.AddDate(-1, 0, 0)
		if early := to.Add(-time.Duration(n-1) * unit); early.Before(start) {
			start = early
		}
		lowest := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
		if typ == "timestamp" {
			lowest = time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC)
		}
		if start.Before(lowest) || to.Sub(start) < 0 {
			return from, 1
		}
		from = start
	default:
		return from, 1
	}
	return from, max(int64(to.Sub(from)/unit+1)/n, 1)
}

// spreads says a line column's values spread over a range (dates and datetimes: see
// spreadTimes) rather than count 1, 2, 3.
func spreads(c *column) bool {
	switch c.dataType {
	case "date", "datetime", "timestamp":
		return true
	}
	return false
}

// spreadLines gives each parent's lines slots spread over all lay.most of them: line l of a
// parent with n lines takes the slot at the middle of its n-th of them, (2l+1)*most/(2n),
// increasing in l by at least one, so still distinct. A parent with few rows then has dates
// over the whole range, not only its start.
func spreadLines(lay *layout, g func(dst []byte, k uint64, r *stream) []byte) valueGen {
	return func(dst []byte, row int64, r *stream) []byte {
		p, l := lay.at(row)
		n := lay.start[p+1] - lay.start[p]
		hi, lo := bits.Mul64(uint64(2*l+1), uint64(lay.most))
		slot, _ := bits.Div64(hi, lo, uint64(2*n)) // l < n: the quotient fits
		return g(dst, slot, r)
	}
}

func upTo(s Settings) string {
	if s.Max != "" {
		return " to max " + s.Max
	}
	return ""
}

func orMax(s Settings) string {
	if s.Max != "" {
		return " or raise max"
	}
	return ""
}

func unitName(u time.Duration) string {
	if u == 24*time.Hour {
		return "day"
	}
	return "second"
}
