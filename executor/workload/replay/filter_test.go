package replay

import (
	"testing"

	"github.com/quadrant-bench/quadrant/executor/traffic"
)

func TestFilter(t *testing.T) {
	st := func(session uint64, schema, user, text string) *traffic.Statement {
		return &traffic.Statement{Session: session, Schema: schema, User: user, Text: text}
	}
	f := newFilter(&Replay{
		Include: &ReplayFilter{Schemas: []string{"shop"}, Users: []string{"app", "batch"}},
		Exclude: &ReplayFilter{Fingerprints: []string{"SELECT SLEEP(5)", traffic.FingerprintID("delete from t where id=?")}},
	})
	for _, c := range []struct {
		s    *traffic.Statement
		want string
	}{
		{st(1, "shop", "app", "SELECT 1"), ""},
		{st(1, "shop", "monitor", "SELECT 1"), "include"},
		{st(1, "other", "app", "SELECT 1"), "include"},
		{st(1, "shop", "batch", "SELECT SLEEP(1)"), "exclude"},
		{st(1, "shop", "batch", "DELETE FROM t WHERE id = 7"), "exclude"},
	} {
		fp := traffic.Fingerprint(c.s.Text)
		if got := f.skip(c.s, f.id(fp)); got != c.want {
			t.Errorf("%+v: skipped by %q, want %q", c.s, got, c.want)
		}
	}
	ro := newFilter(&Replay{ReadOnly: true})
	for _, c := range []struct {
		text   string
		writes bool
	}{
		{"SELECT * FROM t", false},
		{"/* app */ select * from t where id = 1", false},
		{"SELECT * FROM t FOR UPDATE", true},
		{"SELECT a INTO @x FROM t", true},
		{"SET SESSION sql_mode = ''", false},
		{"SET GLOBAL max_connections = 10", true},
		{"BEGIN", false},
		{"START TRANSACTION READ ONLY", false},
		{"COMMIT", false},
		{"SHOW STATUS", false},
		{"INSERT INTO t VALUES (1)", true},
		{"CREATE TEMPORARY TABLE tmp (a INT)", false},
		{"INSERT INTO tmp VALUES (1)", false},
		{"UPDATE `tmp` SET a = 2", false},
		{"DROP TEMPORARY TABLE tmp", false},
		{"CREATE TABLE x (a INT)", true},
		{"PREPARE p FROM 'UPDATE t SET a = 1'", true},
		{"EXECUTE p", true},
		{"PREPARE q FROM 'SELECT 1'", false},
		{"EXECUTE q", false},
		{"CALL proc()", true},
		{"-- app\nSELECT * FROM t", false},
		{"#app\nSELECT * FROM t", false},
		// The server runs an executable comment: MariaDB's /*M! */ is no comment to skip.
		{"/*M!100100 UPDATE t SET a = 1 */", true},
		{"/*!40101 SET NAMES utf8 */", false},
		// "--" without a blank after it is not a comment (the server's rule): then nothing
		// tells a read, and read_only errs on the side of writing.
		{"--x\nSELECT * FROM t", true},
	} {
		if got := ro.skip(st(1, "", "", c.text), "") == "read_only"; got != c.writes {
			t.Errorf("read_only on %q: skipped %v, want %v", c.text, got, c.writes)
		}
	}
	// Another session's temporary table of the same name is a real table here.
	if ro.skip(st(2, "", "", "INSERT INTO tmp VALUES (1)"), "") != "read_only" {
		t.Error("a table that is temporary in another session was taken as this session's")
	}
}
