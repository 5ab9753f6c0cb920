package generate

import (
	"os"
	"path/filepath"
	"testing"
)

const estimateSchema = "-- a mysqldump-like table, and one with a type the estimate does not know\n" +
	"CREATE TABLE IF NOT EXISTS `shop`.`t` (\n" +
	"  `id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n" +
	"  `code` char(12) NOT NULL,\n" +
	"  `name` varchar(40) COMMENT 'a, b (c)',\n" +
	"  `price` decimal(10,2),\n" +
	"  `status` enum('a','b,c'),\n" +
	"  `twice` int AS (id * 2) VIRTUAL,\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `k` (`code`, `name`)\n" +
	") ENGINE=InnoDB;\n" +
	"CREATE TABLE geo (id INT PRIMARY KEY, p POINT);\n"

// The columns' average widths as generate fills them: INT 4, CHAR(12) 12, VARCHAR(40) from
// a quarter to all of it (25 on average, 1 length byte) or its length: setting, DECIMAL(10,2)
// 5, ENUM 1, a generated column nothing; a type it does not know makes the width unknown.
func TestRowWidth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sql")
	if err := os.WriteFile(path, []byte(estimateSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	cols := schemaColumns(path)
	if len(cols["t"]) != 6 || len(cols["geo"]) != 2 {
		t.Fatalf("columns read: %v", cols)
	}
	if w := rowWidth(cols["t"], nil); w != 4+12+26+5+1 {
		t.Errorf("row width %d, want 48", w)
	}
	if w := rowWidth(cols["geo"], nil); w != 0 {
		t.Errorf("a POINT column: width %d, want 0 (unknown)", w)
	}
}
