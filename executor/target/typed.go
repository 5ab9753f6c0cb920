package target

import "strconv"

// Typed gives a status or replica field the type an expression wants: a number when it
// is one; text (ON, Yes, a binlog file name) stays text.
func Typed(v string) any {
	if IsNumber(v) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return v
}

// IsNumber says v is a decimal number (no exponent).
func IsNumber(v string) bool {
	if v == "" {
		return false
	}
	dot := false
	for i, c := range v {
		switch {
		case c >= '0' && c <= '9':
		case c == '-' && i == 0:
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return true
}
