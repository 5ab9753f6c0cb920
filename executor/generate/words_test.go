package generate

import (
	"regexp"
	"strings"
	"testing"
)

// TestNameLists: the lists hold no value twice, and 10,000 people get at least 95% distinct
// full names from two columns drawn as generate draws them (issue 47: 50 first and 50 last
// names gave 599 customers 525 distinct full names, so duplicate emails).
func TestNameLists(t *testing.T) {
	word := regexp.MustCompile(`^[A-Z][a-z]+$`)
	for name, list := range map[string][]string{"first names": firstNames, "last names": lastNames, "nouns": nouns, "adjectives": adjectives, "cities": cities, "countries": countries} {
		seen := map[string]bool{}
		for _, v := range list {
			k := strings.ToLower(v)
			if seen[k] {
				t.Errorf("%s list %s twice", name, v)
			}
			seen[k] = true
			if (name == "first names" || name == "last names") && (!word.MatchString(v) || len(v) > 12) {
				t.Errorf("%s: %q is not a capitalised ASCII word of at most 12 letters", name, v)
			}
		}
	}
	c := varchar(45)
	const people = 10000
	first := values(t, c, "{first_name}", people, hashName("1", "customer", "first_name"))
	last := values(t, c, "{last_name}", people, hashName("1", "customer", "last_name"))
	full := map[string]bool{}
	for i := range first {
		full[first[i]+" "+last[i]] = true
	}
	share := float64(len(full)) / people
	t.Logf("%d first names, %d last names: %d of %d full names distinct (%.1f%%)", len(firstNames), len(lastNames), len(full), people, 100*share)
	if share < 0.95 {
		t.Errorf("%.1f%% distinct full names at %d people, want at least 95%%", 100*share, people)
	}
}
