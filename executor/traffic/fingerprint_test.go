package traffic

import "testing"

func TestFingerprint(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT * FROM t WHERE id IN (1,2,3)", "select * from t where id in(?+)"},
		{"select *  from t\n where id in ( 7 )", "select * from t where id in(?+)"},
		{"SELECT c FROM sbtest1 WHERE id=5021", "select c from sbtest1 where id=?"},
		{"SELECT c FROM sbtest12 WHERE id = -3.5e-2;", "select c from sbtest12 where id=?"},
		{"INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'it''s')", "insert into t(a, b) values(?+)"},
		{"INSERT INTO t VALUES (1, @v), (2, @v + 1)", "insert into t values(?+)"},
		{"SELECT COUNT(*) FROM tmp_s WHERE v > 'a\\'b' -- trailing", "select count(*) from tmp_s where v>?"},
		{"/* app:42 */ UPDATE `Tbl` SET v = v + 1 WHERE k = 0x1F", "update `tbl` set v=v + ? where k=?"},
		{"USE rt", "use ?"},
		{"SET @v = 30", "set @v=?"},
		{"select a1 from t2 # c", "select a1 from t2"},
	} {
		if got := Fingerprint(c.in); got != c.want {
			t.Errorf("Fingerprint(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// pinned: the same name on every run and machine (folders written before line up by it)
	if got := FingerprintID("select 1"); got != "q3232003928f9" {
		t.Errorf(`FingerprintID("select 1") = %s, want q3232003928f9`, got)
	}
	if FingerprintID("select 1") == FingerprintID("select 2") {
		t.Error("two fingerprints have one FingerprintID")
	}
}

func FuzzFingerprint(f *testing.F) {
	for _, s := range []string{"SELECT 1", "select 'a''", "/* x", "IN (1,2", "-- \n1", "`a``b` 0x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fp := Fingerprint(s)
		if Fingerprint(fp) != fp {
			t.Errorf("not idempotent: %q -> %q -> %q", s, fp, Fingerprint(fp))
		}
	})
}
