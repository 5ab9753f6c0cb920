package ddl

import (
	"os"
	"testing"
)

// FuzzParse: no text makes the parser panic or loop; what it cannot read it leaves unread.
func FuzzParse(f *testing.F) {
	for _, p := range []string{"testdata/dump.sql", "testdata/mariadb-dump.sql", "../../examples/shop.sql"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("CREATE TABLE t (a INT, UNIQUE (a), FOREIGN KEY (a) REFERENCES t (a)); ALTER TABLE t DROP FOREIGN KEY t_ibfk_1, ADD b INT")
	f.Add("DELIMITER //\nCREATE TABLE `x``y` (c ENUM('a''b', \"c\\\"d\")) // DELIMITER ;\n/*!40101 CREATE TABLE u (v SERIAL) */;")
	f.Fuzz(func(t *testing.T, src string) {
		s := Parse(src) // a panic or an endless loop fails the fuzz
		for _, tb := range s.Tables {
			if tb.Pos.Line < 1 {
				t.Errorf("table %q without a position in %q", tb.Name, src)
			}
			for _, c := range tb.Columns {
				if c.Pos.Line < 1 {
					t.Errorf("column %q without a position in %q", c.Name, src)
				}
			}
		}
	})
}
