package builtin

import (
	"strings"
	"testing"
)

func TestDefaultsAreSysbench1020(t *testing.T) {
	p, err := ParseParams("oltp_read_write", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Tables != 1 || p.TableSize != 10000 || p.RangeSize != 100 || p.PointSelects != 10 || p.SimpleRanges != 1 ||
		p.IndexUpdates != 1 || p.DeleteInserts != 1 || !p.RangeSelects || !p.AutoInc || p.SkipTrx || p.Secondary ||
		!p.CreateSecondary || p.Engine != "innodb" || !p.Prepared || p.Rand.Type != "special" {
		t.Fatalf("defaults: %+v", p)
	}
}

func TestParseParams(t *testing.T) {
	p, err := ParseParams("oltp_read_only", map[string]string{"tables": "4", "table-size": "500", "skip_trx": "on",
		"rand_type": "uniform", "ps_mode": "disable", "mysql_storage_engine": "MyISAM"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Tables != 4 || p.TableSize != 500 || !p.SkipTrx || p.Rand.Type != "uniform" || p.Prepared || p.Engine != "MyISAM" {
		t.Fatalf("%+v", p)
	}
	_, err = ParseParams("oltp_read_only", map[string]string{"table_sise": "1", "tables": "x", "skip_trx": "maybe"})
	for _, want := range []string{`unknown option "table_sise"`, "table_size", `option tables: "x"`, `option skip_trx: "maybe"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if _, err := ParseParams("select_random_points", map[string]string{"tables": "2"}); err == nil {
		t.Error("select_random_points with tables=2 accepted (sysbench asserts tables == 1)")
	}
	if _, err := ParseParams("oltp_nope", nil); err == nil || !strings.Contains(err.Error(), "oltp_read_write") {
		t.Errorf("unknown builtin: %v", err)
	}
}

func TestCreateTableMatchesSysbench(t *testing.T) {
	p := DefaultParams()
	want := "CREATE TABLE sbtest3(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n" +
		"  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */ "
	if got := CreateTableSQL(p, 3); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	p.AutoInc, p.Secondary = false, true
	if got := CreateTableSQL(p, 1); !strings.Contains(got, "id INTEGER NOT NULL,") || !strings.Contains(got, "KEY xid (id)") {
		t.Fatalf("%s", got)
	}
}
