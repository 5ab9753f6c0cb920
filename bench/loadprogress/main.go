// Command loadprogress measures what the live progress of a data load costs: the same
// builtin prepare on a sandbox, with and without its rows reported (workload.Env.Loaded),
// alternated, printing the medians of wall time and of quadrant's own CPU time and their
// ratios. Run it with `go run ./bench/loadprogress`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/builtin"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

func main() {
	pairs := flag.Int("pairs", 3, "alternated pairs")
	rows := flag.Int("rows", 500000, "rows per load (one table)")
	flag.Parse()
	if err := run(*pairs, *rows); err != nil {
		fmt.Fprintln(os.Stderr, "loadprogress:", err)
		os.Exit(1)
	}
}

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func run(pairs, rows int) error {
	ctx := context.Background()
	c, stop, err := sandbox.StartTemp(ctx, "loadprogress", sandbox.Options{Name: "loadprogress", Config: []sandbox.Option{{Name: "innodb_flush_log_at_trx_commit", Value: "2"}}})
	if err != nil {
		return err
	}
	defer stop()
	cfg, err := mysql.ParseDSN(c.Primary.DSN("sbtest"))
	if err != nil {
		return err
	}
	w := func(action string) *spec.Workload {
		return builtin.Workload("oltp_read_only", action, spec.Settings{{Name: "table_size", Value: rows}})
	}
	load := func(report bool) (wall, own time.Duration, err error) {
		env := workload.Env{Server: cfg}
		reports := 0
		if report {
			env.Loaded = func(done, total int64) { reports++ }
		}
		if _, err := kinds.Do(ctx, w("cleanup"), env, nil); err != nil {
			return 0, 0, err
		}
		t0, c0 := time.Now(), cpu()
		_, err = kinds.Do(ctx, w("prepare"), env, func(*measure.Interval) {})
		return time.Since(t0), cpu() - c0, err
	}
	// An untimed first load creates the database and warms the server.
	if _, err := kinds.Do(ctx, w("prepare"), workload.Env{Server: cfg}, nil); err != nil {
		return err
	}
	var wallOff, wallOn, cpuOff, cpuOn []float64
	for i := 0; i < pairs; i++ {
		for _, on := range []bool{false, true} {
			wall, own, err := load(on)
			if err != nil {
				return err
			}
			fmt.Printf("pair %d progress %-5v %6.2fs wall %6.2fs client CPU\n", i+1, on, wall.Seconds(), own.Seconds())
			if on {
				wallOn, cpuOn = append(wallOn, wall.Seconds()), append(cpuOn, own.Seconds())
			} else {
				wallOff, cpuOff = append(wallOff, wall.Seconds()), append(cpuOff, own.Seconds())
			}
		}
	}
	med := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
	fmt.Printf("load of %d rows, medians of %d: wall %.2fs without progress, %.2fs with (ratio %.3f); client CPU %.2fs vs %.2fs (ratio %.3f)\n",
		rows, pairs, med(wallOff), med(wallOn), med(wallOn)/med(wallOff), med(cpuOff), med(cpuOn), med(cpuOn)/med(cpuOff))
	return nil
}
