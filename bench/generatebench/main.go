// Command generatebench weighs a generate: step against `sysbench oltp_read_write prepare` on
// the same sandbox: an sbtest-shaped table (id AUTO_INCREMENT, k, c CHAR(120), pad CHAR(60),
// INDEX k) of -rows rows with -threads threads, alternated in ABBA order, rows per second of
// each, then generate's peak Go heap at -rows/10 and -rows (flat: the rows are never held).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/bench/internal/benchrun"
	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

const schema = `CREATE TABLE sbtest1 (
  id INT NOT NULL AUTO_INCREMENT,
  k INT NOT NULL DEFAULT 0,
  c CHAR(120) NOT NULL DEFAULT '',
  pad CHAR(60) NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  KEY k_1 (k)
) ENGINE=InnoDB;
`

func main() {
	rows := flag.Int64("rows", 400_000, "rows of the table")
	threads := flag.Int("threads", 2, "loading threads of both")
	pairs := flag.Int("pairs", 2, "alternated pairs")
	method := flag.String("method", generate.MethodAuto, "generate's method: auto, insert or load_data")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the generate runs to this file")
	flag.Parse()
	if err := run(*rows, *threads, *pairs, *method, *cpuprofile); err != nil {
		fmt.Fprintln(os.Stderr, "generatebench:", err)
		os.Exit(1)
	}
}

func run(rows int64, threads, pairs int, method, cpuprofile string) error {
	ctx := context.Background()
	c, stop, err := sandbox.StartTemp(ctx, "generatebench-", sandbox.Options{Name: "gen", Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "512M"}, {Name: "innodb_flush_log_at_trx_commit", Value: "2"},
	}, Logf: func(string, ...any) {}})
	if err != nil {
		return err
	}
	defer stop()
	db, err := sql.Open("mysql", c.Primary.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	cfg, err := mysql.ParseDSN(c.Primary.DSN(""))
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "generatebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	schemaFile := filepath.Join(dir, "sbtest.sql")
	if err := os.WriteFile(schemaFile, []byte(schema), 0o644); err != nil {
		return err
	}
	var prof *os.File
	if cpuprofile != "" {
		if prof, err = os.Create(cpuprofile); err != nil {
			return err
		}
	}
	reset := func() error {
		for _, q := range []string{"DROP DATABASE IF EXISTS sbtest", "CREATE DATABASE sbtest"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
	quadrant := func(n int64) (time.Duration, uint64, error) {
		if err := reset(); err != nil {
			return 0, 0, err
		}
		gdb, err := sql.Open("mysql", c.Primary.DSN("sbtest"))
		if err != nil {
			return 0, 0, err
		}
		defer gdb.Close()
		runtime.GC()
		if prof != nil {
			if err := pprof.StartCPUProfile(prof); err != nil {
				return 0, 0, err
			}
		}
		peak, done := benchrun.HeapPeak()
		t0 := time.Now()
		_, err = generate.Run(ctx, gdb, generate.Options{Schema: schemaFile, Seed: 1, Threads: threads, Method: method,
			Tables: []generate.Table{{Name: "sbtest1", Rows: n}}, Logf: func(string, ...any) {}})
		took := time.Since(t0)
		if prof != nil {
			// the first run only: a profile file holds one
			pprof.StopCPUProfile()
			prof.Close()
			prof = nil
		}
		close(done)
		return took, <-peak, err
	}
	sysbench := func(n int64) (time.Duration, error) {
		if err := reset(); err != nil {
			return 0, err
		}
		host, port, _ := strings.Cut(cfg.Addr, ":")
		cmd := exec.CommandContext(ctx, "sysbench", "oltp_read_write", "--db-driver=mysql", "--mysql-host="+host, "--mysql-port="+port,
			"--mysql-user="+cfg.User, "--mysql-password="+cfg.Passwd, "--mysql-db=sbtest", "--tables=1", fmt.Sprintf("--table-size=%d", n),
			fmt.Sprintf("--threads=%d", threads), "prepare")
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("sysbench prepare: %v: %s", err, out)
		}
		return time.Since(t0), nil
	}
	var q, s []float64
	for i := 0; i < pairs; i++ {
		order := []string{"quadrant", "sysbench"}
		if i%2 == 1 {
			order = []string{"sysbench", "quadrant"}
		}
		for _, who := range order {
			var took time.Duration
			var err error
			if who == "quadrant" {
				took, _, err = quadrant(rows)
			} else {
				took, err = sysbench(rows)
			}
			if err != nil {
				return err
			}
			rate := float64(rows) / took.Seconds()
			fmt.Printf("pair %d %-8s %8d rows in %6.2fs: %8.0f rows/s\n", i+1, who, rows, took.Seconds(), rate)
			if who == "quadrant" {
				q = append(q, rate)
			} else {
				s = append(s, rate)
			}
		}
	}
	fmt.Printf("medians: generate (method %s) %.0f rows/s, sysbench prepare %.0f rows/s, ratio %.2f (%d rows, %d threads)\n", method, median(q), median(s), median(q)/median(s), rows, threads)
	for _, n := range []int64{rows / 10, rows} {
		_, peak, err := quadrant(n)
		if err != nil {
			return err
		}
		fmt.Printf("generate %8d rows: peak Go heap in use %.1f MiB\n", n, float64(peak)/(1<<20))
	}
	return nil
}

func median(x []float64) float64 {
	sort.Float64s(x)
	switch n := len(x); {
	case n == 0:
		return 0
	case n%2 == 0:
		return (x[n/2-1] + x[n/2]) / 2
	default:
		return x[n/2]
	}
}
