package pattern

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	p, err := Parse(`[A-Z]{2}-[0-9]{6}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Parts) != 3 || p.Parts[0].Kind != Class || len(p.Parts[0].Chars) != 26 || p.Parts[0].Min != 2 ||
		p.Parts[1].Kind != Literal || p.Parts[1].Text != "-" || len(p.Parts[2].Chars) != 10 || p.Parts[2].Max != 6 {
		t.Errorf("parts %+v", p.Parts)
	}
	if !p.FixedWidth() {
		t.Error("[A-Z]{2}-[0-9]{6} is fixed width")
	}
	p, err = Parse(`{first_name}.x{2,5}\{é\}[a\-]{1,3}`)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, part := range p.Parts {
		kinds = append(kinds, map[Kind]string{Literal: "lit:" + part.Text, Class: "class:" + string(part.Chars), Named: "name:" + part.Name}[part.Kind])
	}
	if got := strings.Join(kinds, " "); got != "name:first_name lit:. class:x lit:{é} class:-a" {
		t.Errorf("parts %s", got)
	}
	if p.FixedWidth() || !p.Has("first_name") || p.Has("row") {
		t.Errorf("FixedWidth %v Has %v", p.FixedWidth(), p.Has("first_name"))
	}
	if p, _ := Parse("INV-{row}-[0-9]{4}"); p == nil || !p.FixedWidth() {
		t.Error("INV-{row}-[0-9]{4} is fixed width but for {row}")
	}
}

func TestParseErrors(t *testing.T) {
	for src, want := range map[string]string{
		"":           "at character 1: the pattern is empty",
		"[a-z":       "at character 1: a [ opens a character class but no ] closes it",
		"ab[]":       "at character 3: the character class [] is empty",
		"[z-a]":      "at character 2: range z-a runs backwards; write a-z",
		"{2}":        "at character 1: a count {n} must follow",
		"[a]{3,1}":   "at character 4: count {3,1} has its larger number first; write {1,3}",
		"[a]{x}":     "at character 5: unknown generator {x}",
		"a{emial}":   "at character 3: unknown generator {emial}; known: category, city, country, email,",
		"{email}{2}": "at character 8: a count applies to a character class or a character, not to {email}",
		"a}":         "at character 2: unmatched }",
		"[a]{99999}": "above 10000",
		`tail\`:      `at character 5: a \ ends the pattern`,
		"{name":      "no } closes it",
		"[\x01]":     "printable ASCII",
	} {
		_, err := Parse(src)
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an *Error saying %q", src, err, want)
		}
	}
}
