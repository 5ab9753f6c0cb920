// Command loadbench measures the client side of quadrant's builtin OLTP
// engine on one throwaway sandbox:
//
//	-mode table: quadrant vs the sysbench binary on five OLTP scripts, alternating
//	             (with -ref NAME=VALUE: vs quadrant with that builtin option instead,
//	             e.g. -ref statement_stats=on for the cost of per-statement timing)
//	             pairs; tps and client CPU per transaction (each process's rusage)
//	-mode conns: 1024 and 4096 connections, closed and open loop: client RSS per
//	             connection, connection setup time, whether the rate was held
//	-mode rate:  open loop at high rates on oltp_point_select: achieved rate,
//	             scheduling lag and client CPU
//
// It prints every run and then medians and ratios; it asserts nothing.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"maps"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/bench/internal/benchrun"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/workload/builtin"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/executor/workload/sysbench"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

type flags struct {
	mode       string
	scripts    []string
	pairs      int
	dur        time.Duration
	threads    int
	tables     int
	size       int
	conns      []int
	rates      []float64
	connRate   float64
	dsn        string
	cpuprofile string
	ref        string // table: the reference, "sysbench" or a builtin option NAME=VALUE quadrant runs with
	status     []string
}

func main() {
	var f flags
	scripts := flag.String("scripts", "oltp_point_select,oltp_read_only,oltp_read_write,oltp_write_only,oltp_update_index", "table: the scripts, in order")
	conns := flag.String("conns", "1024,4096", "conns: connection counts")
	rates := flag.String("rates", "10000,50000,100000", "rate: events/s to ask for")
	flag.StringVar(&f.mode, "mode", "table", "table | conns | rate")
	flag.IntVar(&f.pairs, "pairs", 3, "table: alternated quadrant/sysbench pairs per script (ABBA: even pairs run sysbench first)")
	flag.DurationVar(&f.dur, "time", 0, "length of each run (default: table 10s, conns 30s, rate 10s)")
	flag.IntVar(&f.threads, "threads", 0, "threads (default: table 8, rate 16)")
	flag.IntVar(&f.tables, "tables", 1, "tables")
	flag.IntVar(&f.size, "table-size", 100000, "rows per table")
	flag.Float64Var(&f.connRate, "conn-rate", 2000, "conns: events/s of the open-loop run")
	flag.StringVar(&f.dsn, "dsn", "", "use this server (its sbtest database already prepared) instead of a sandbox")
	flag.StringVar(&f.ref, "ref", "sysbench", "table: what quadrant is compared with: sysbench, or quadrant with builtin option NAME=VALUE")
	flag.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of quadrant's runs (table: every quadrant run)")
	status := flag.String("status", "", "table: also print these SHOW GLOBAL STATUS counters per transaction for each run (comma-separated, e.g. Questions,Com_stmt_execute,Bytes_received)")
	flag.Parse()
	if *status != "" {
		f.status = strings.Split(*status, ",")
	}
	f.scripts = strings.Split(*scripts, ",")
	for _, s := range strings.Split(*conns, ",") {
		var n int
		fmt.Sscan(s, &n)
		f.conns = append(f.conns, n)
	}
	for _, s := range strings.Split(*rates, ",") {
		var r float64
		fmt.Sscan(s, &r)
		f.rates = append(f.rates, r)
	}
	if err := run(f); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

type bench struct {
	flags
	ctx     context.Context
	cfg     *mysql.Config
	db      *sql.DB
	srv     *sandbox.Cluster
	opts    map[string]string
	profile *os.File
}

func run(f flags) error {
	ctx := context.Background()
	if f.dsn != "" {
		cfg, err := mysql.ParseDSN(f.dsn)
		if err != nil {
			return err
		}
		b := &bench{flags: f, ctx: ctx, cfg: cfg,
			opts: map[string]string{"tables": fmt.Sprint(f.tables), "table_size": fmt.Sprint(f.size)}}
		return b.mode()
	}
	maxConns := 500
	for _, n := range f.conns {
		if f.mode == "conns" {
			maxConns = max(maxConns, n+100)
		}
	}
	c, stop, err := sandbox.StartTemp(ctx, "loadbench-", sandbox.Options{Name: "bench", Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "512M"},
		{Name: "innodb_flush_log_at_trx_commit", Value: "2"},
		{Name: "max_connections", Value: fmt.Sprint(maxConns)},
		// Thousands of connections: one thread each, and a cache so reconnects are cheap.
		{Name: "thread_cache_size", Value: "1000"},
		{Name: "back_log", Value: "4096"},
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
	if _, err := db.Exec("CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
		return err
	}
	cfg, err := mysql.ParseDSN(c.Primary.DSN("sbtest"))
	if err != nil {
		return err
	}
	b := &bench{flags: f, ctx: ctx, cfg: cfg, db: db, srv: c,
		opts: map[string]string{"tables": fmt.Sprint(f.tables), "table_size": fmt.Sprint(f.size)}}
	if f.cpuprofile != "" {
		if b.profile, err = os.Create(f.cpuprofile); err != nil {
			return err
		}
		defer b.profile.Close()
	}
	fmt.Printf("server %s (MariaDB sandbox), %d CPUs, %s\n", c.Primary.RedactedDSN(""), numCPU(), loadavg())
	t0 := time.Now()
	if _, err := benchrun.Workload(ctx, cfg, benchrun.Timed(builtin.Workload("oltp_read_write", "prepare", benchrun.Settings(b.opts)), min(4, f.tables), 0)); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	fmt.Printf("prepared %d x %d rows in %.1fs\n", f.tables, f.size, time.Since(t0).Seconds())
	defer func() { fmt.Printf("done, %s\n", loadavg()) }()
	return b.mode()
}

func (b *bench) mode() error {
	switch b.flags.mode {
	case "table":
		return b.table()
	case "conns":
		return b.connections()
	case "rate":
		return b.rate()
	}
	return fmt.Errorf("unknown mode %q", b.flags.mode)
}

type sample struct {
	tps, cpu, srv float64 // cpu, srv: client and server µs per transaction
	errs          int64   // ignored errors (sysbench counts them without their codes)
}

// table alternates quadrant and sysbench runs per script and prints the ratios.
func (b *bench) table() error {
	if b.dur == 0 {
		b.dur = 10 * time.Second
	}
	if b.threads == 0 {
		b.threads = 8
	}
	// Warm the buffer pool so the first pair is not penalised.
	if _, err := benchrun.Workload(b.ctx, b.cfg, benchrun.Timed(builtin.Workload("oltp_read_only", "run", benchrun.Settings(b.opts)), b.threads, 3*time.Second)); err != nil {
		return fmt.Errorf("warm: %w", err)
	}
	type row struct {
		script string
		q, s   []sample
	}
	var rows []row
	for _, script := range b.scripts {
		r := row{script: script}
		for i := 1; i <= b.pairs; i++ {
			// ABBA: an even pair runs the reference first, so whatever one run leaves the next
			// (an update load's purge and dirty pages) weighs on both clients alike.
			order := []string{"quadrant", b.ref}
			if i%2 == 0 {
				order[0], order[1] = order[1], order[0]
			}
			for _, kind := range order {
				sm, err := b.oltpRun(script, kind)
				if err != nil {
					return fmt.Errorf("%s %s run %d: %w", script, kind, i, err)
				}
				fmt.Printf("%-18s pair %d %-8s tps %9.1f client CPU %6.1f us/transaction (server %6.1f) errors %d\n", script, i, kind, sm.tps, sm.cpu, sm.srv, sm.errs)
				if kind == "quadrant" {
					r.q = append(r.q, sm)
				} else {
					r.s = append(r.s, sm)
				}
			}
		}
		rows = append(rows, r)
	}
	fmt.Printf("\nmedians of %d alternated pairs, %d threads, %d x %d rows, %s runs; %s\n", b.pairs, b.threads, b.tables, b.size, b.dur, loadavg())
	ref := b.ref
	fmt.Printf("| workload | tps quadrant | tps %s | client CPU us/trx quadrant | client CPU us/trx %s | server CPU us/trx with quadrant | with %s |\n", ref, ref, ref)
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range rows {
		fmt.Printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", r.script, med(r.q, tpsOf), med(r.s, tpsOf), med(r.q, cpuOf), med(r.s, cpuOf), med(r.q, srvOf), med(r.s, srvOf))
	}
	fmt.Println()
	fmt.Printf("| workload | tps quadrant/%s | client CPU per transaction quadrant/%s |\n", ref, ref)
	fmt.Println("| --- | --- | --- |")
	worstT, worstC := 1e9, 0.0
	var worstTS, worstCS string
	for _, r := range rows {
		t := med(r.q, tpsOf) / med(r.s, tpsOf)
		cp := med(r.q, cpuOf) / med(r.s, cpuOf)
		fmt.Printf("| %s | %.2f | %.2f |\n", r.script, t, cp)
		if t < worstT {
			worstT, worstTS = t, r.script
		}
		if cp > worstC {
			worstC, worstCS = cp, r.script
		}
	}
	fmt.Printf("worst: tps ratio %.2f (%s), client CPU ratio %.2f (%s)\n", worstT, worstTS, worstC, worstCS)
	return nil
}

func tpsOf(s sample) float64 { return s.tps }
func cpuOf(s sample) float64 { return s.cpu }
func srvOf(s sample) float64 { return s.srv }

// serverCPU is the sandbox server's user+system time (0 with -dsn).
func (b *bench) serverCPU() time.Duration {
	if b.srv == nil {
		return 0
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", b.srv.Primary.Pid()))
	if err != nil {
		return 0
	}
	s := string(st)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	var ut, sy int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &sy)
	return time.Duration(ut+sy) * time.Second / 100 // USER_HZ
}

func med(v []sample, f func(sample) float64) float64 {
	var x []float64
	for _, s := range v {
		x = append(x, f(s))
	}
	return median(x)
}

// oltpRun runs one script with quadrant (in this process) or sysbench (a
// child); the client CPU is that process's own: this process's rusage for
// quadrant, the reaped child's for sysbench.
func (b *bench) oltpRun(script, kind string) (sample, error) {
	var o *spec.Workload
	who := syscall.RUSAGE_SELF
	if kind == "sysbench" {
		o = sysbench.Workload(script, benchrun.Settings(b.opts))
		who = syscall.RUSAGE_CHILDREN
	} else {
		opts := b.opts
		if name, value, ok := strings.Cut(kind, "="); ok {
			opts = maps.Clone(b.opts)
			opts[name] = value
		}
		o = builtin.Workload(script, "run", benchrun.Settings(opts))
		if b.profile != nil {
			if err := pprof.StartCPUProfile(b.profile); err == nil {
				defer pprof.StopCPUProfile()
				b.profile = nil // one profile file holds one run
			}
		}
	}
	o = benchrun.Timed(o, b.threads, b.dur)
	st0 := b.statusCounters()
	cpu0, srv0 := rusage(who), b.serverCPU()
	tot, err := benchrun.Workload(b.ctx, b.cfg, o)
	if err != nil {
		return sample{}, err
	}
	cpu, srv := rusage(who)-cpu0, b.serverCPU()-srv0
	ev := float64(max(tot.Events, 1))
	if st1 := b.statusCounters(); len(st1) > 0 {
		var parts []string
		for _, name := range b.status {
			parts = append(parts, fmt.Sprintf("%s=%.2f", name, float64(st1[name]-st0[name])/ev))
		}
		fmt.Printf("  %s %s per transaction: %s\n", script, kind, strings.Join(parts, " "))
	}
	return sample{tps: tot.Rates().TPS, cpu: float64(cpu.Microseconds()) / ev, srv: float64(srv.Microseconds()) / ev, errs: tot.Errors}, nil
}

// statusCounters reads the -status counters (nil without -status or a server handle).
func (b *bench) statusCounters() map[string]int64 {
	if len(b.status) == 0 || b.db == nil {
		return nil
	}
	return benchrun.Status(b.ctx, b.db)
}

func rusage(who int) time.Duration {
	var r syscall.Rusage
	_ = syscall.Getrusage(who, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
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

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load unknown"
	}
	return "load average " + strings.Join(f[:3], " ")
}

func numCPU() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "processor\t:")
}

// engineRun runs a builtin on the engine as workload.Run does, timing each
// worker's connection setup (connect, authenticate, prepare its statements).
func (b *bench) engineRun(script string, threads int, rate float64, dur time.Duration) (*measure.Total, []time.Duration, error) {
	p, err := builtin.ParseParams(script, b.opts)
	if err != nil {
		return nil, nil, err
	}
	dc := engine.DialConfig(b.cfg, p.Prepared, time.Minute, threads)
	shared := &builtin.Shared{}
	setup := make([]time.Duration, threads)
	return func() (*measure.Total, []time.Duration, error) {
		tot, err := engine.Run(b.ctx, engine.Config{
			Threads: threads, Duration: dur, Rate: rate, ReportInterval: time.Second, Ignore: benchrun.DefaultIgnore(),
			Setup: func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
				t0 := time.Now()
				c, err := engine.Dial(ctx, dc, p.Prepared)
				if err != nil {
					return nil, nil, fmt.Errorf("worker %d: %w", i+1, err)
				}
				w, err := builtin.NewWorker(script, p, i, threads, shared, c)
				if err != nil {
					_ = c.Close()
					return nil, nil, err
				}
				setup[i] = time.Since(t0)
				return w, c, nil
			},
		})
		return tot, setup, err
	}()
}

// connections: many connections in a closed and an open loop.
func (b *bench) connections() error {
	if b.dur == 0 {
		b.dur = 30 * time.Second
	}
	const script = "oltp_point_select"
	fmt.Printf("%s, %s per run; open loop at %.0f events/s\n", script, b.dur, b.connRate)
	for _, n := range b.conns {
		for _, rate := range []float64{0, b.connRate} {
			runtime.GC()
			debug.FreeOSMemory() // RSS per connection: from what this run adds, not what an earlier one left
			rss0 := rss()
			cpu0 := rusage(syscall.RUSAGE_SELF)
			t0 := time.Now()
			var peak int64
			stop := make(chan struct{})
			go func() { // RSS while all connections are open
				for {
					select {
					case <-stop:
						return
					case <-time.After(500 * time.Millisecond):
						peak = max(peak, rss())
					}
				}
			}()
			tot, setup, err := b.engineRun(script, n, rate, b.dur)
			close(stop)
			if err != nil {
				return fmt.Errorf("%d connections: %w", n, err)
			}
			wall := time.Since(t0)
			cpu := rusage(syscall.RUSAGE_SELF) - cpu0
			r := tot.Rates()
			kind := "closed loop"
			if rate > 0 {
				kind = fmt.Sprintf("open loop %.0f/s", rate)
			}
			fmt.Printf("%5d connections %-18s tps %8.1f  client CPU %5.1f us/event  RSS %6.1f KiB/connection  setup median %s p99 %s (setup and teardown %s)  threads %d  p50 %s p99 %s",
				n, kind, r.TPS, float64(cpu.Microseconds())/float64(max(tot.Events, 1)),
				float64(peak-rss0)/1024/float64(n), pct(setup, 50), pct(setup, 99), wall-b.dur, threadCount(), tot.Lat.P50, tot.Lat.P99)
			if rate > 0 {
				held := "held"
				if r.TPS < 0.97*rate {
					held = "NOT held"
				}
				fmt.Printf("  rate %s (%.1f%%), max backlog %d, lag p50 %s p99 %s", held, 100*r.TPS/rate, tot.MaxBacklog, tot.Lag.Percentile(50), tot.Lag.Percentile(99))
			}
			fmt.Println()
		}
		// The reference: sysbench on as many connections (its latency is from the
		// intended start with --rate too; it prints one percentile).
		for _, rate := range []float64{0, b.connRate} {
			cpu0 := rusage(syscall.RUSAGE_CHILDREN)
			sw := benchrun.Timed(sysbench.Workload(script, benchrun.Settings(b.opts)), n, b.dur)
			sw.Rate = rate
			tot, err := benchrun.Workload(b.ctx, b.cfg, sw)
			kind := "closed loop"
			if rate > 0 {
				kind = fmt.Sprintf("open loop %.0f/s", rate)
			}
			if err != nil {
				fmt.Printf("%5d connections sysbench %s: %v\n", n, kind, err)
				continue
			}
			cpu := rusage(syscall.RUSAGE_CHILDREN) - cpu0
			fmt.Printf("%5d connections sysbench %-18s tps %8.1f  client CPU %5.1f us/event  p95 %s\n", n, kind, tot.Rates().TPS,
				float64(cpu.Microseconds())/float64(max(tot.Events, 1)), tot.Lat.P95)
		}
	}
	return nil
}

// rate: open loop at high rates.
func (b *bench) rate() error {
	if b.dur == 0 {
		b.dur = 10 * time.Second
	}
	if b.threads == 0 {
		b.threads = 16
	}
	const script = "oltp_point_select"
	closed, _, err := b.engineRun(script, b.threads, 0, b.dur)
	if err != nil {
		return err
	}
	fmt.Printf("%s, %d threads, %s per run; closed loop for scale: %.0f tps\n", script, b.threads, b.dur, closed.Rates().TPS)
	fmt.Println("| asked events/s | achieved | held | max backlog | lag p50 | lag p99 | latency p50 | latency p99 | service p50 | service p99 | client CPU us/event |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, rate := range b.rates {
		cpu0 := rusage(syscall.RUSAGE_SELF)
		tot, _, err := b.engineRun(script, b.threads, rate, b.dur)
		if err != nil {
			return err
		}
		cpu := rusage(syscall.RUSAGE_SELF) - cpu0
		r := tot.Rates()
		held := "yes"
		if r.TPS < 0.97*rate {
			held = "no"
		}
		fmt.Printf("| %.0f | %.0f | %s | %d | %s | %s | %s | %s | %s | %s | %.1f |\n", rate, r.TPS, held, tot.MaxBacklog,
			tot.Lag.Percentile(50), tot.Lag.Percentile(99), tot.Lat.P50, tot.Lat.P99,
			tot.Service.Percentile(50), tot.Service.Percentile(99), float64(cpu.Microseconds())/float64(max(tot.Events, 1)))
	}
	return nil
}

func pct(v []time.Duration, p float64) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(float64(len(s))*p/100))].Round(time.Microsecond)
}

// rss is this process's resident set in bytes.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			var kb int64
			fmt.Sscan(f[1], &kb)
			return kb * 1024
		}
	}
	return 0
}

func threadCount() int {
	e, _ := os.ReadDir("/proc/self/task")
	return len(e)
}
