package generate

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/spec/pattern"
)

func varchar(n int64) *column {
	return &column{name: "c", dataType: "varchar", columnType: "varchar(" + itoa(n) + ")", charLen: n}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// values makes rows values of a free pattern column, unquoted.
func values(t *testing.T, c *column, src string, rows int64, key uint64) []string {
	t.Helper()
	g, err := newPattern(c, src, rows)
	if err != nil {
		t.Fatal(err)
	}
	gen := g.free()
	out := make([]string, rows)
	for i := range rows {
		r := newStream(key, i)
		v := string(gen(nil, i, &r))
		out[i] = strings.Trim(v, "'")
	}
	return out
}

func TestPatternValues(t *testing.T) {
	for src, re := range map[string]string{
		`[A-Z]{2}-[0-9]{6}`:           `^[A-Z]{2}-[0-9]{6}$`,
		`[a-z0-9]{3,8}`:               `^[a-z0-9]{3,8}$`,
		`{email}`:                     `^[a-z]+\.[a-z]+[0-9]{0,2}@example\.(com|org|net)$`,
		`{first_name} {last_name}`:    `^[A-Z][a-z]+ [A-Z][a-z]+$`,
		`{uuid}`:                      `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`,
		`{ipv4}`:                      `^([0-9]{1,3}\.){3}[0-9]{1,3}$`,
		`{phone}`:                     `^\+1 [2-9][0-9]{2} 555-01[0-9]{2}$`,
		`INV-{row}`:                   `^INV-[0-9]+$`,
		`{street}, {city}, {country}`: `^[0-9]{1,3} [A-Za-z]+ [A-Za-z]+, [A-Za-z ]+, [A-Za-z ]+$`,
		`\[{word}\]`:                  `^\[[a-z]+\]$`,
	} {
		g, err := newPattern(varchar(200), src, 1000)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		most := g.longest()
		vals := values(t, varchar(200), src, 1000, 7)
		again := values(t, varchar(200), src, 1000, 7)
		other := values(t, varchar(200), src, 1000, 8)
		distinct := map[string]bool{}
		for i, v := range vals {
			if !regexp.MustCompile(re).MatchString(v) {
				t.Errorf("%s made %q, which is not %s", src, v, re)
			}
			if int64(len(v)) > most {
				t.Errorf("%s made %q, longer than its longest %d", src, v, most)
			}
			if again[i] != v {
				t.Errorf("%s: row %d is %q, then %q with the same key", src, i, v, again[i])
			}
			distinct[v] = true
		}
		if !strings.Contains(src, "{row}") && strings.Join(vals, ",") == strings.Join(other, ",") {
			t.Errorf("%s: another key made the same values", src)
		}
		if len(distinct) < 10 {
			t.Errorf("%s made %d distinct values in 1000 rows", src, len(distinct))
		}
	}
	if got := values(t, varchar(10), "n{row}", 3, 1); strings.Join(got, ",") != "n1,n2,n3" {
		t.Errorf("{row} gave %v, want n1,n2,n3", got)
	}
}

func TestPatternNames(t *testing.T) {
	for _, n := range pattern.NameList() {
		if generators[n].gen == nil {
			t.Errorf("spec/pattern knows {%s}, which has no generator", n)
		}
	}
	if len(generators) != len(pattern.Names) {
		t.Errorf("%d generators for %d names", len(generators), len(pattern.Names))
	}
}

func TestPatternErrors(t *testing.T) {
	for _, tc := range []struct {
		c    *column
		src  string
		want string
	}{
		{varchar(8), "[A-Z]{2}-[0-9]{6}", `makes values up to 9 characters long, and varchar(8) holds 8`},
		{varchar(9), "{email}", `makes values up to`},
		{&column{name: "n", dataType: "int", columnType: "int(11)"}, "[0-9]{3}", "pattern makes strings, and the column is int(11)"},
		{varchar(9), "[a-z", "no ] closes it"},
	} {
		_, err := newPattern(tc.c, tc.src, 100)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %s: %v, want an error saying %q", tc.src, tc.c.columnType, err, tc.want)
		}
	}
	if _, err := newPattern(varchar(9), "[A-Z]{2}-[0-9]{6}", 100); err != nil {
		t.Errorf("a 9-character pattern in varchar(9): %v", err)
	}
}

func TestPatternUnique(t *testing.T) {
	c := varchar(40)
	for _, tc := range []struct {
		src  string
		rows int64
	}{
		{"[A-Za-z]{2}", 676}, // 26*26 case-insensitively: exactly full
		{"X-[0-9]{3}", 1000},
		{"{first_name}{row}", 5000},
		{"{word}-{row}-[a-z]{2}", 2000},
		{"{row}", 100},
	} {
		g, err := newPattern(c, tc.src, tc.rows)
		if err != nil {
			t.Fatal(err)
		}
		gen, err := g.unique(tc.rows)
		if err != nil {
			t.Fatalf("%s for %d rows: %v", tc.src, tc.rows, err)
		}
		seen := map[string]bool{}
		for k := range uint64(tc.rows) {
			r := newStream(3, int64(k))
			v := strings.ToLower(string(gen(nil, k, &r)))
			if seen[v] {
				t.Fatalf("%s: %s twice (case folded) in %d rows", tc.src, v, tc.rows)
			}
			seen[v] = true
		}
	}
	for _, tc := range []struct {
		src  string
		rows int64
		want string
	}{
		{"[A-Za-z]{2}", 677, "has 676 distinct values (letters counted once whatever their case), fewer than the 677 rows"},
		{"{first_name}", 10, "no named generator but {uuid}"},
		{"[a-z]{1,3}", 10, "one count"},
		{"[0-9]{2}{row}", 10, "right before {row} can end in a digit"},
		{"{row}{word}", 10, "what follows the last {row} must have one width"},
	} {
		g, err := newPattern(c, tc.src, tc.rows)
		if err == nil {
			_, err = g.unique(tc.rows)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("unique %s for %d rows: %v, want an error saying %q", tc.src, tc.rows, err, tc.want)
		}
	}
}

// TestDefaultPattern: a column's default follows its name and its table's (issue 47: a
// category's name came out as "Nora Bernard").
func TestDefaultPattern(t *testing.T) {
	for _, c := range []struct{ table, name, want string }{
		{"customer", "email", "{email}"}, {"shop", "billing_city", "{city}"}, {"customers", "Name", "{name}"},
		{"actor", "name", "{name}"}, {"category", "name", "{category}"}, {"film_category", "name", "{category}"},
		{"language", "name", "{category}"}, {"film", "name", "{title} {category}"}, {"orders", "product_name", "{title} {category}"},
		{"orders", "customer_name", "{name}"}, {"x", "category_name", "{category}"}, {"x", "user_name", ""}, {"x", "username", ""},
		{"x", "last_name", "{last_name}"}, {"x", "phone", "{phone}"}, {"film", "title", "{title} {category}"}, {"x", "job_title", "{title} {category}"},
		{"film", "genre", "{category}"}, {"x", "category", "{category}"}, {"x", "emails", ""}, {"x", "description", ""},
	} {
		if got := strings.Join(defaultPatterns(c.table, c.name), " "); got != c.want {
			t.Errorf("defaultPatterns(%s, %s) = %q, want %q", c.table, c.name, got, c.want)
		}
	}
}

// TestCategoryStride: the first len(nouns) rows of {category} take every noun once.
func TestCategoryStride(t *testing.T) {
	got := values(t, varchar(20), "{category}", int64(len(nouns)), 1)
	seen := map[string]bool{}
	for _, v := range got {
		seen[v] = true
	}
	if len(seen) != len(nouns) {
		t.Errorf("%d rows of {category} took %d distinct nouns, want each once", len(nouns), len(seen))
	}
	for _, v := range values(t, varchar(40), "{title}", 20, 2) {
		if !regexp.MustCompile(`^[A-Z][a-z]+( [A-Z][a-z]+| of the [A-Z][a-z]+)+$`).MatchString(v) {
			t.Errorf("{title} made %q", v)
		}
	}
}
