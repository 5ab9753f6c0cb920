package generate

import (
	"errors"
	"testing"

	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// TestKnownTypes: every type validate takes as known (spec/ddl's list) gets values here, and
// a type off the list is refused as unknown whatever freeGen's cases, so that validate and
// the run say the same of a column.
func TestKnownTypes(t *testing.T) {
	for _, typ := range ddl.KnownTypes() {
		c := &column{name: "c", dataType: typ, columnType: typ, charLen: 10, precision: 5, scale: 2, members: []string{"a", "b"}}
		g, err := freeGen(c, Settings{}, 1000)
		if err != nil {
			t.Errorf("%s is on ddl's list of known types, but freeGen says: %v", typ, err)
			continue
		}
		if v := g(nil, 3, &stream{}); len(v) == 0 {
			t.Errorf("%s: an empty literal", typ)
		}
	}
	for _, typ := range []string{"point", "geometry", "inet6", "uuid", "vector"} {
		if _, err := freeGen(&column{name: "c", dataType: typ, columnType: typ}, Settings{}, 1000); !errors.Is(err, errUnknownType) {
			t.Errorf("%s: freeGen gave %v, want it unknown", typ, err)
		}
		if _, err := freeGen(&column{name: "c", dataType: typ, columnType: typ}, Settings{Values: []string{"x"}}, 1000); err != nil {
			t.Errorf("%s with values: %v", typ, err)
		}
	}
}
