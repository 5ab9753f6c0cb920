package spec

import (
	"testing"
	"testing/fstest"
)

// TestSchemaFileLimit: a file above the limit is not read at validate (a generate schema
// is left to the run), one within it is.
func TestSchemaFileLimit(t *testing.T) {
	c := &Check{v: &validator{d: &decoder{fsys: fstest.MapFS{"schema.sql": {Data: []byte("CREATE TABLE t (id INT);")}}}}}
	if data, err := c.ReadFile("schema.sql", 10); err != nil || data != nil {
		t.Errorf("a 24-byte file with a limit of 10: %q, %v; want nothing read", data, err)
	}
	if data, err := c.ReadFile("schema.sql", 24); err != nil || len(data) != 24 {
		t.Errorf("a 24-byte file with a limit of 24: %q, %v; want it read", data, err)
	}
}
