package ddl

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
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
	f.Add("CREATE TABLE a (id INT, /*!50705 g GEOMETRY, */ /*M!100301 m INT, */ /*!100500 s INT, */ z INT) /*!80016 DEFAULT ENCRYPTION='N' */; /*!50705")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 64<<10 {
			t.Skip("over 64 KiB: keeps the fuzzer's memory bounded")
		}
		// an endless loop fails too: the fuzzer itself never times an input out
		watchdog := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("hang on %q", src)) })
		defer watchdog.Stop()
		for _, srv := range []Server{MariaDB, MySQL} {
			ParseFor(src, srv) // each server's reading of executable comments, without a panic
		}
		s := Parse(src)
		lines := strings.Count(src, "\n") + 1
		for _, tb := range s.Tables {
			if tb.Pos.Line < 1 || tb.Pos.Line > lines || tb.Pos.Col < 1 {
				t.Errorf("table %q at %v, outside the %d lines of %q", tb.Name, tb.Pos, lines, src)
			}
			for _, c := range tb.Columns {
				// a column may be declared before its table: CREATE TABLE ... LIKE copies them
				if c.Pos.Line < 1 || c.Pos.Line > lines || c.Pos.Col < 1 {
					t.Errorf("column %q at %v, outside the %d lines of %q", c.Name, c.Pos, lines, src)
				}
			}
		}
	})
}
