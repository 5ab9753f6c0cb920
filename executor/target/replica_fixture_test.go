package target

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readReplicaRow(t *testing.T, file string) ([]string, []sql.NullString) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "replica", file))
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	var row []sql.NullString
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		name, value, _ := strings.Cut(line, "\t")
		cols = append(cols, name)
		row = append(row, sql.NullString{String: value, Valid: value != "NULL"})
	}
	return cols, row
}

// MariaDB's SHOW REPLICA STATUS keeps the Master_/Slave_ names, MySQL 8.0.22+ and 8.4 have
// Source_/Replica_ ones: both read into the same fields, and a wait sees either spelling.
func TestParseReplicaStatusFixtures(t *testing.T) {
	lag0 := 0.0
	cases := []struct {
		file           string
		io, sqlRunning string
		lag            *float64
		file1          string
		read, exec     int64
		sqlErr         string
	}{
		{"mariadb-10.11.tsv", "Yes", "Yes", &lag0, "binlog.000001", 775, 775, ""},
		{"mysql-8.0.tsv", "Yes", "Yes", &lag0, "source-bin.000001", 927, 927, ""},
		{"mysql-8.4.tsv", "Yes", "No", nil, "source-bin.000001", 5230, 927, "Duplicate entry '1'"},
	}
	for _, c := range cases {
		st, err := ParseReplicaStatus(readReplicaRow(t, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if st.IORunning != c.io || st.SQLRunning != c.sqlRunning || st.SourceLogFile != c.file1 || st.RelaySourceLogFile != c.file1 ||
			st.ReadSourceLogPos != c.read || st.ExecSourceLogPos != c.exec {
			t.Errorf("%s: %+v", c.file, st)
		}
		if (st.LagSeconds == nil) != (c.lag == nil) || st.LagSeconds != nil && *st.LagSeconds != *c.lag {
			t.Errorf("%s: lag %v, want %v", c.file, st.LagSeconds, c.lag)
		}
		if c.sqlErr == "" && st.LastSQLError != "" || !strings.Contains(st.LastSQLError, c.sqlErr) {
			t.Errorf("%s: Last_SQL_Error %q", c.file, st.LastSQLError)
		}
		both := st.BothSpellings()
		for _, name := range []string{"Seconds_Behind_Master", "Seconds_Behind_Source", "Slave_IO_Running", "Replica_IO_Running", "Exec_Master_Log_Pos", "Exec_Source_Log_Pos"} {
			if _, ok := both[name]; !ok {
				t.Errorf("%s: a wait cannot read replica.%s", c.file, name)
			}
		}
		if both["Seconds_Behind_Master"] != both["Seconds_Behind_Source"] {
			t.Errorf("%s: the two spellings of the lag differ", c.file)
		}
	}
}
