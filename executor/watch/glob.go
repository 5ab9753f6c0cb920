package watch

import (
	"fmt"
	"path"
	"strings"
)

// Globs is a list of shell-style patterns (`*`, `?`, `[...]`) matched case-insensitively, as MySQL compares
// status variable names.
type Globs []string

// ParseGlobs validates patterns; field names the plan field for the error message.
func ParseGlobs(field string, patterns []string) (Globs, error) {
	g := make(Globs, 0, len(patterns))
	for i, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("%s[%d]: empty pattern", field, i)
		}
		lp := strings.ToLower(p)
		if _, err := path.Match(lp, ""); err != nil {
			return nil, fmt.Errorf("%s[%d]: bad pattern %q: %v (use * and ? as wildcards)", field, i, p, err)
		}
		g = append(g, lp)
	}
	return g, nil
}

// Match reports whether name matches any pattern.
func (g Globs) Match(name string) bool {
	n := strings.ToLower(name)
	for _, p := range g {
		if ok, _ := path.Match(p, n); ok {
			return true
		}
	}
	return false
}

// IsLiteral reports whether a pattern has no wildcard: it names exactly one variable.
func IsLiteral(pattern string) bool { return !strings.ContainsAny(pattern, "*?[") }
