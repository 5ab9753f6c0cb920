package ddl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What a schema file does, read without a server: the database its last USE leaves current
// (what the shards other than the leader fill), its statements' kinds and whether it
// declares a foreign key (what the privilege pre-flight asks for). Comments, executable
// comments and DELIMITER blocks are read as the server reads them.
func TestReadSchemaFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sql")
	text := "-- USE nothere;\n/*!40101 SET NAMES utf8mb4 */;\nCREATE DATABASE IF NOT EXISTS a;\nUSE a;\n" +
		"CREATE TABLE p (id INT PRIMARY KEY);\nUSE `b`;\nCREATE TABLE c (id INT, pid INT, FOREIGN KEY (pid) REFERENCES a.p (id));\n" +
		"create unique index ci on c (pid);\nALTER TABLE c ADD COLUMN v INT;\nDELIMITER //\nCREATE TRIGGER tr BEFORE INSERT ON c FOR EACH ROW BEGIN SET NEW.v = 1; END//\nDELIMITER ;\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sf, err := ReadSchemaFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(sf.Verbs, ","), "SET,CREATE DATABASE,USE,CREATE TABLE,CREATE INDEX,ALTER,CREATE TRIGGER"; sf.Database != "b" || got != want || !sf.ForeignKeys {
		t.Errorf("database %q, verbs %s (want b, %s), foreign keys %v", sf.Database, got, want, sf.ForeignKeys)
	}
	if err := os.WriteFile(path, []byte("CREATE TABLE t (id INT);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sf, err := ReadSchemaFile(path, nil); err != nil || sf.Database != "" || sf.ForeignKeys {
		t.Errorf("a file without USE nor foreign key: %+v, %v", sf, err)
	}
}
