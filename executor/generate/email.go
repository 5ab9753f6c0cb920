package generate

import (
	"strconv"
	"strings"
)

// deriveEmail makes the email column of a table that also has name columns from the row's
// own names: first.last, the row's number, @example.com (mary.smith42@example.com). The
// number makes it unique whatever the names (its digits follow a letter), so a unique email
// column takes it too, and in a table keyed by auto-increment it is the row's id. Only an
// email without settings, long enough, beside first and last name columns that get names by
// default (no settings, no key).
func (pl *planner) deriveEmail() {
	var email, first, last *colPlan
	for _, cp := range pl.tp.gens {
		c := cp.col
		role := pl.roles[c.name]
		_, set := pl.t.Columns[c.name]
		_, inFK := pl.fkOf[c.name]
		if set || inFK || !isString(c) {
			continue
		}
		switch strings.Join(defaultPatterns(c.table, c.name), " ") {
		case "{email}":
			if role == free || role == unique { // unique: the row's number makes it so
				email = cp
			}
		case "{first_name}":
			if role == free {
				first = cp
			}
		case "{last_name}":
			if role == free {
				last = cp
			}
		}
	}
	if email == nil || first == nil || last == nil {
		return
	}
	const domain = "@example.com"
	digits := len(strconv.FormatInt(max(pl.tp.rows, 1), 10))
	if int64(longest(firstNames)+1+longest(lastNames)+digits+len(domain)) > email.col.charLen || int64(longest(firstNames)) > first.col.charLen || int64(longest(lastNames)) > last.col.charLen {
		return // a column too short for some name: it did not get names
	}
	email.base = func(dst []byte, row int64, _ *stream) []byte {
		dst = appendName(dst, first, row, false)
		dst = appendName(append(dst[:len(dst)-1], '.'), last, row, true) // drop the closing quote
		dst = strconv.AppendInt(dst[:len(dst)-1], row+1, 10)
		return append(append(dst, domain...), '\'')
	}
}

// appendName appends name column cp's value at row, in lower case, as a quoted literal
// (the names have no quote), without its opening quote when it continues an open one.
func appendName(dst []byte, cp *colPlan, row int64, continues bool) []byte {
	at := len(dst)
	dst = cp.emit(dst, row)
	if continues {
		copy(dst[at:], dst[at+1:])
		dst = dst[:len(dst)-1]
	}
	for i := at; i < len(dst); i++ {
		if c := dst[i]; c >= 'A' && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}
