package sqltext

import (
	"slices"
	"strings"
	"testing"
)

// What a folder's SQL does to the server beyond its own databases, statement by statement;
// the plan's own databases and routines are those its SQL created, in order.
func TestServerChanges(t *testing.T) {
	changes := []string{
		"SET GLOBAL general_log=ON",
		"set global max_connections = 5",
		"SET @@global.max_connections=5",
		"SET SESSION sql_mode='', GLOBAL max_connections=5",
		"SET PERSIST max_connections=5",
		"SET PERSIST_ONLY innodb_log_file_size=1",
		"/*!40101 SET GLOBAL max_connections=5 */",
		"SET GLOBAL TRANSACTION ISOLATION LEVEL READ COMMITTED",
		"SET PASSWORD FOR root@localhost = PASSWORD('x')",
		"CREATE USER evil@'%' IDENTIFIED BY 'x'",
		"create or replace user evil",
		"DROP USER root@localhost",
		"ALTER USER root@localhost IDENTIFIED BY 'x'",
		"RENAME USER a TO b",
		"GRANT ALL ON *.* TO evil@'%'",
		"REVOKE SUPER ON *.* FROM app",
		"INSTALL PLUGIN server_audit SONAME 'server_audit'",
		"INSTALL SONAME 'ha_blackhole'",
		"UNINSTALL PLUGIN x",
		"CHANGE MASTER TO MASTER_HOST='evil'",
		"CHANGE REPLICATION SOURCE TO SOURCE_HOST='evil'",
		"START SLAVE", "STOP REPLICA", "RESET MASTER", "RESET SLAVE ALL",
		"PURGE BINARY LOGS BEFORE NOW()",
		"SHUTDOWN", "RESTART", "KILL 12",
		"FLUSH PRIVILEGES", "FLUSH LOGS", "FLUSH TABLES WITH READ LOCK",
		"LOAD DATA INFILE '/etc/passwd' INTO TABLE t",
		"SELECT * FROM t INTO OUTFILE '/tmp/x'",
		"SELECT LOAD_FILE('/etc/shadow')",
		"CREATE FUNCTION f RETURNS STRING SONAME 'evil.so'",
		"DROP DATABASE production",
		"DROP SCHEMA IF EXISTS production",
		"ALTER DATABASE production CHARACTER SET latin1",
		"CREATE OR REPLACE DATABASE production",
		"INSERT INTO mysql.user VALUES (1)",
		"UPDATE performance_schema.setup_consumers SET enabled='NO'",
		"DELETE FROM `mysql`.`db`",
		"USE mysql",
		"CALL sys.ps_setup_disable_consumer('events')",
		"PREPARE s FROM @sql",
		"PREPARE s FROM 'SET GLOBAL max_connections=5'",
		"EXECUTE IMMEDIATE 'DROP USER x'",
		"CREATE PROCEDURE p() BEGIN SELECT 1; SET GLOBAL max_connections=5; END",
		"CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO SET GLOBAL max_connections=5",
		"CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (HOST 'x')",
	}
	for _, stmt := range changes {
		var own Own
		if got := own.ServerChanges(stmt); len(got) == 0 {
			t.Errorf("%q: no change found", stmt)
		}
	}
	fine := []string{
		"SELECT 1", "SET @x = 1", "SET SESSION sql_mode = ''", "SET sql_mode = 'GLOBAL'",
		"SET NAMES utf8mb4", "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
		"SELECT @@global.max_connections", "SHOW GLOBAL STATUS", "SHOW GLOBAL VARIABLES LIKE 'x'",
		"START TRANSACTION", "FLUSH STATUS", "FLUSH TABLES", "FLUSH LOCAL TABLES t1",
		"LOAD DATA LOCAL INFILE 'x.csv' INTO TABLE t",
		"CREATE TABLE t (id INT)", "CREATE DATABASE IF NOT EXISTS sbtest", "INSERT INTO t VALUES ('SET GLOBAL x=1')",
		"SELECT * FROM mysql.user", "-- SET GLOBAL x=1\nSELECT 1",
		"/* GRANT ALL */ SELECT 1", "ANALYZE TABLE t", "SET autocommit=0",
	}
	for _, stmt := range fine {
		var own Own
		if got := own.ServerChanges(stmt); len(got) != 0 {
			t.Errorf("%q: %q, want nothing", stmt, got)
		}
	}
	// a database the plan created with a CREATE that fails were it there is the plan's
	var own Own
	for _, stmt := range []string{"CREATE DATABASE bench", "USE bench", "CREATE PROCEDURE bench.p() SELECT 1", "CALL bench.p()", "DROP DATABASE bench"} {
		if got := own.ServerChanges(stmt); len(got) != 0 {
			t.Errorf("%q after the plan created bench: %q, want nothing", stmt, got)
		}
	}
	if got := own.ServerChanges("DROP DATABASE other"); len(got) != 1 || !strings.Contains(got[0], "other") {
		t.Errorf("DROP DATABASE other: %q", got)
	}
	// IF NOT EXISTS may find the user's own: it creates or does nothing, and owns nothing
	own.ServerChanges("CREATE DATABASE IF NOT EXISTS prod")
	if got := own.ServerChanges("DROP DATABASE prod"); len(got) != 1 {
		t.Errorf("DROP DATABASE prod after CREATE DATABASE IF NOT EXISTS prod: %q, want a change", got)
	}
}

func TestSetGlobals(t *testing.T) {
	for stmt, want := range map[string][]string{
		"SET GLOBAL general_log=ON, max_connections = 5":    {"general_log", "max_connections"},
		"SET @@global.Max_Connections=5, @@session.x=1":     {"max_connections"},
		"SET SESSION a=1, GLOBAL b=2, SESSION c=3, d=(1,2)": {"b"},
		"SET @x = 1":                         nil,
		"SELECT 1":                           nil,
		"/*!40101 SET GLOBAL sql_mode='' */": {"sql_mode"},
		"SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE": nil,
	} {
		if got := SetGlobals(stmt); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", stmt, got, want)
		}
	}
}
