package sysbench

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/results/measure"
)

func parseFile(t *testing.T, name string) (*measure.Total, []*measure.Interval) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ivs []*measure.Interval
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := NewParser(start, 2, func(iv *measure.Interval) { ivs = append(ivs, iv) })
	p.Parse(f)
	if p.Total() == nil {
		t.Fatalf("%s: no total", name)
	}
	return p.Total(), ivs
}

func TestParse1020(t *testing.T) {
	tot, ivs := parseFile(t, "oltp_read_write-1.0.20.txt")
	if len(ivs) != 3 {
		t.Fatalf("intervals: %d", len(ivs))
	}
	iv := ivs[1]
	if iv.Index != 2 || iv.Elapsed != 2*time.Second || iv.Threads != 2 || iv.Events != 550 || iv.Reads != 7718 ||
		iv.Writes != 2203 || iv.Other != 1102 || iv.Errors != 1 || iv.Lat.P95 != 4910*time.Microsecond || iv.Lat.P99 != -1 {
		t.Fatalf("interval 2: %+v", iv)
	}
	if tot.Reads != 15106 || tot.Writes != 4312 || tot.Other != 2156 || tot.Events != 1077 || tot.Errors != 2 || tot.Reconnects != 0 {
		t.Fatalf("total counts: %+v", tot.Counts)
	}
	if tot.Lat.Min != 960*time.Microsecond || tot.Lat.Avg != 5570*time.Microsecond || tot.Lat.Max != 175800*time.Microsecond ||
		tot.Lat.P95 != 16710*time.Microsecond || tot.Lat.P50 != -1 {
		t.Fatalf("total latency: %+v", tot.Lat)
	}
	if d := tot.End.Sub(tot.Start); d != 3005700*time.Microsecond {
		t.Fatalf("total time %v", d)
	}
}

func TestParseMaster(t *testing.T) {
	tot, ivs := parseFile(t, "oltp_point_select-master.txt")
	if len(ivs) != 2 || ivs[0].Lat.P99 != 430*time.Microsecond || ivs[0].Lat.P95 != -1 || ivs[0].Events != 15833 {
		t.Fatalf("intervals: %d %+v", len(ivs), ivs[0])
	}
	if tot.Events != 31935 || tot.Reads != 31935 || tot.Lat.P99 != 420*time.Microsecond || tot.End.Sub(tot.Start) != 2000500*time.Microsecond {
		t.Fatalf("total: %+v", tot)
	}
	if r := tot.Rates(); r.TPS < 15963 || r.TPS > 15964 {
		t.Fatalf("tps %v", r.TPS)
	}
}

func TestCommandKeepsPasswordOut(t *testing.T) {
	cfg, err := mysql.ParseDSN("bench:s3cret@tcp(127.0.0.1:3307)/sbtest")
	if err != nil {
		t.Fatal(err)
	}
	args, err := Command(cfg, Options{Script: "oltp_read_write", Threads: 4, Duration: 10 * time.Second,
		ReportInterval: time.Second, Ignore: []int{1213, 1205}, Args: map[string]string{"tables": "4", "table_size": "1000"}}, "/tmp/x.conf")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	if strings.Contains(line, "s3cret") {
		t.Fatalf("password in command line: %s", line)
	}
	for _, want := range []string{"oltp_read_write", "--mysql-host=127.0.0.1", "--mysql-port=3307", "--mysql-user=bench", "--mysql-db=sbtest",
		"--config-file=/tmp/x.conf", "--threads=4", "--time=10", "--report-interval=1", "--mysql-ignore-errors=1213,1205",
		"--table_size=1000", "--tables=4", "run"} {
		if !slices.Contains(args, want) {
			t.Errorf("missing %s in %s", want, line)
		}
	}
	if _, err := Command(cfg, Options{Script: "x", Args: map[string]string{"mysql_password": "x"}}, ""); err == nil {
		t.Fatal("args may not override the target's connection options")
	}
}
