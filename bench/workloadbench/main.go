// Command workloadbench compares quadrant's workload engine with the reference
// clients on one throwaway sandbox:
//
//	-mode oltp:   quadrant's builtin vs the sysbench binary, alternating A/B pairs, same server and data
//	-mode replay: quadrant replay vs `mariadb < file` on a generated file of single-row INSERTs
//
// It prints each run, the medians and the ratio quadrant/reference.
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
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/bench/internal/benchrun"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/workload/builtin"
	"github.com/quadrant-bench/quadrant/executor/workload/replay"
	"github.com/quadrant-bench/quadrant/executor/workload/sysbench"
)

var showStatus *bool

func main() {
	mode := flag.String("mode", "oltp", "oltp | replay")
	script := flag.String("script", "oltp_read_write", "builtin / sysbench script (oltp mode)")
	pairs := flag.Int("pairs", 3, "A/B pairs (oltp) or runs of each (replay)")
	dur := flag.Duration("time", 10*time.Second, "length of each run (oltp)")
	threads := flag.Int("threads", 4, "threads (oltp)")
	tables := flag.Int("tables", 4, "tables (oltp)")
	size := flag.Int("table-size", 10000, "rows per table (oltp)")
	rows := flag.Int("rows", 50000, "INSERT statements in the file (replay)")
	kinds := flag.String("kinds", "sysbench,quadrant", "which clients to run in each pair (oltp)")
	showStatus = flag.Bool("status", false, "print server status counters per transaction (oltp)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole bench to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "workloadbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*mode, *script, strings.Split(*kinds, ","), *pairs, *dur, *threads, *tables, *size, *rows); err != nil {
		fmt.Fprintln(os.Stderr, "workloadbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(mode, script string, kinds []string, pairs int, dur time.Duration, threads, tables, size, rows int) error {
	ctx := context.Background()
	dir, err := sandbox.TempDir("workloadbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c, err := sandbox.Start(ctx, sandbox.Options{Name: "bench", Dir: dir, Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "512M"},
		{Name: "innodb_flush_log_at_trx_commit", Value: "2"},
		{Name: "max_connections", Value: "500"},
	}, Logf: func(string, ...any) {}})
	if err != nil {
		return err
	}
	defer c.Stop(context.Background())
	db, err := sql.Open("mysql", c.Primary.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
		return err
	}
	cfg, err := mysql.ParseDSN(c.Primary.DSN("sbtest"))
	if err != nil {
		return err
	}
	fmt.Printf("server %s, %d CPUs\n", c.Primary.RedactedDSN(""), numCPU())
	if mode == "replay" {
		return replayBench(ctx, cfg, c, dir, pairs, rows)
	}
	return oltpBench(ctx, cfg, db, c.Primary.Pid(), script, kinds, pairs, dur, threads, tables, size)
}

func oltpBench(ctx context.Context, cfg *mysql.Config, db *sql.DB, serverPid int, script string, kinds []string, pairs int, dur time.Duration, threads, tables, size int) error {
	opts := map[string]string{"tables": fmt.Sprint(tables), "table_size": fmt.Sprint(size)}
	t0 := time.Now()
	if _, err := benchrun.Workload(ctx, cfg, benchrun.Timed(builtin.Workload(script, "prepare", benchrun.Settings(opts)), threads, 0)); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	fmt.Printf("prepared %d x %d rows with quadrant in %.1fs\n", tables, size, time.Since(t0).Seconds())
	// Warm the buffer pool once so the first run is not penalised.
	if _, err := benchrun.Workload(ctx, cfg, benchrun.Timed(builtin.Workload(script, "run", benchrun.Settings(opts)), threads, 3*time.Second)); err != nil {
		return fmt.Errorf("warm: %w", err)
	}
	var sb, qd []float64
	for i := 1; i <= pairs; i++ {
		for _, kind := range kinds {
			o := builtin.Workload(script, "run", benchrun.Settings(opts))
			if kind == "sysbench" {
				o = sysbench.Workload(script, benchrun.Settings(opts))
			}
			o = benchrun.Timed(o, threads, dur)
			cpu0, srv0, st0 := cpuTime(), procCPU(serverPid), benchrun.Status(ctx, db)
			tot, err := benchrun.Workload(ctx, cfg, o)
			if err != nil {
				return fmt.Errorf("%s run %d: %w", kind, i, err)
			}
			cpu := cpuTime() - cpu0 // the sysbench child's or our own: only one runs at a time
			srv := procCPU(serverPid) - srv0
			if *showStatus {
				st1 := benchrun.Status(ctx, db)
				var keys []string
				for k, v := range st1 {
					if d := v - st0[k]; d > 0 && !strings.HasPrefix(k, "Innodb_") || strings.HasPrefix(k, "Innodb_rows") || strings.HasPrefix(k, "Innodb_row_lock") {
						keys = append(keys, k)
					}
				}
				sort.Strings(keys)
				for _, k := range keys {
					if d := float64(st1[k]-st0[k]) / float64(max(tot.Events, 1)); d >= 0.5 || strings.Contains(k, "lock") {
						fmt.Printf("    %-40s %10.1f per transaction\n", k, d)
					}
				}
			}
			r := tot.Rates()
			ev := float64(max(tot.Events, 1))
			fmt.Printf("pair %d %-8s tps %9.2f qps %10.2f p95 %6.2f ms errors %d CPU us/transaction: client %.0f server %.0f\n",
				i, kind, r.TPS, r.QPS, float64(tot.Lat.P95)/1e6, tot.Errors, cpu.Seconds()*1e6/ev, srv.Seconds()*1e6/ev)
			if kind == "sysbench" {
				sb = append(sb, r.TPS)
			} else {
				qd = append(qd, r.TPS)
			}
		}
	}
	ms, mq := median(sb), median(qd)
	fmt.Printf("%s threads=%d: median tps sysbench %.2f quadrant %.2f ratio quadrant/sysbench %.3f\n", script, threads, ms, mq, mq/ms)
	return nil
}

func replayBench(ctx context.Context, cfg *mysql.Config, c *sandbox.Cluster, dir string, runs, rows int) error {
	file := filepath.Join(dir, "inserts.sql")
	var b strings.Builder
	b.WriteString("DROP TABLE IF EXISTS replay_t;\nCREATE TABLE replay_t (id INT PRIMARY KEY, k INT, c CHAR(60)) ENGINE=InnoDB;\n")
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&b, "INSERT INTO replay_t VALUES (%d, %d, 'row %d of the replay file');\n", i, i*7%rows, i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return err
	}
	client, err := exec.LookPath("mariadb")
	if err != nil {
		if client, err = exec.LookPath("mysql"); err != nil {
			return fmt.Errorf("no mariadb or mysql client: %w", err)
		}
	}
	var cl, qd []float64
	for i := 1; i <= runs; i++ {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, client, "--no-defaults", "-uroot", "-h127.0.0.1", fmt.Sprintf("-P%d", c.Primary.Port()), "sbtest")
		cmd.Env = append(os.Environ(), "MYSQL_PWD="+c.Password()) // the sandbox's random password, kept off the command line
		cmd.Stdin = f
		cmd.Stderr = os.Stderr
		t0 := time.Now()
		err = cmd.Run()
		f.Close()
		if err != nil {
			return fmt.Errorf("mariadb client: %w", err)
		}
		sec := time.Since(t0).Seconds()
		cl = append(cl, sec)
		t0 = time.Now()
		tot, err := benchrun.Workload(ctx, cfg, replay.Workload(file, replay.Replay{Connections: 1}))
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		qsec := time.Since(t0).Seconds()
		qd = append(qd, qsec)
		fmt.Printf("run %d: mariadb client %.2fs, quadrant replay %.2fs (%d statements, p99 %.3f ms) goroutines %d threads %d\n",
			i, sec, qsec, tot.Events, float64(tot.Lat.P99)/1e6, runtime.NumGoroutine(), threadCount())
	}
	mc, mq := median(cl), median(qd)
	fmt.Printf("replay %d INSERTs: median mariadb %.2fs quadrant %.2fs ratio quadrant/mariadb %.3f (<= 1 keeps up)\n", rows, mc, mq, mq/mc)
	return nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cpuTime is the user+system time of this process and its finished children.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

func threadCount() int {
	e, _ := os.ReadDir("/proc/self/task")
	return len(e)
}

// procCPU is the user+system time of a process (the server), from /proc.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

func numCPU() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "processor\t:")
}
