// Command stmtcost measures what per-statement timing (the OLTP builtins' stmt.CLASS.*
// columns, option statement_stats) adds to the client's CPU per statement, without a
// server: the clock reads the connection takes around each reply, the lap it keeps, the
// recorder's once-per-event hand-over and the histogram recording at the interval cut,
// through the same measure package the engine uses. It runs the event loop's recording
// with and without laps, alternated, and prints the medians and the difference per
// statement, then that difference as a share of the client CPU per transaction that
// bench/oltp_vs_sysbench.sh measured (flags), which is the figure the 3% rule is about.
package main

import (
	"flag"
	"fmt"
	"sort"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

func main() {
	rounds := flag.Int("rounds", 7, "alternated with/without rounds")
	events := flag.Int("events", 200000, "events per round")
	flag.Parse()
	fmt.Printf("%-18s %10s %14s %14s %14s %22s\n", "workload", "stmts/trx", "ns/stmt laps", "ns/stmt none", "added ns/trx", "share of client CPU")
	for _, w := range []struct {
		name  string
		stmts int
		cpuUS float64 // client CPU per transaction, µs (medians of oltp_vs_sysbench.sh)
	}{
		{"oltp_point_select", 1, 9.0},
		{"oltp_read_only", 16, 142.7},
		{"oltp_read_write", 20, 195.2},
	} {
		var with, without []float64
		for range *rounds {
			with = append(with, run(*events, w.stmts, true))
			without = append(without, run(*events, w.stmts, false))
		}
		a, b := median(with), median(without)
		added := (a - b) * float64(w.stmts)
		fmt.Printf("%-18s %10d %14.1f %14.1f %14.1f %21.2f%%\n", w.name, w.stmts, a, b, added, 100*added/(w.cpuUS*1000))
	}
}

// run records events of stmts statements each, as the engine's loop and a timed
// connection do, and returns the CPU ns per statement.
func run(events, stmts int, laps bool) float64 {
	names := make([]string, stmts)
	for i := range names {
		names[i] = fmt.Sprint("c", i)
	}
	o := measure.CollectorOptions{Workers: 1, Start: time.Now(), MeasuredStart: time.Now()}
	if laps {
		o.Statements = names
	}
	col := measure.NewCollector(o)
	rec := col.Recorder(0)
	buf := make([]measure.Lap, 0, stmts)
	cpu0 := cpu()
	for e := range events {
		t0 := time.Now()
		for s := range stmts {
			if laps { // exchange: the write's time and the reply's; lapReplies keeps the lap
				sent := time.Now()
				at := time.Now()
				buf = append(buf, measure.Lap{Class: int32(s), US: at.Sub(sent).Microseconds() + int64(s&7)})
			}
		}
		rec.Statements(int64(stmts), 0, 0, 0)
		if len(buf) > 0 {
			rec.Laps(buf)
			buf = buf[:0]
		}
		rec.Event(measure.Event{Latency: time.Since(t0)})
		if e%20000 == 19999 { // an interval cut records the laps into histograms
			col.Cut(time.Now(), 1, 0)
		}
	}
	col.Cut(time.Now(), 1, 0)
	return float64(cpu()-cpu0) / float64(events*stmts)
}

func cpu() time.Duration {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}
