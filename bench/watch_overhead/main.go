// Command watch_overhead measures what watching costs the workload: a closed-loop point-select load on a
// throwaway sandbox, A without a watcher, B with a status sampler on every status variable (SHOW GLOBAL
// STATUS, 500+ variables) sampling every interval on its own connection, as the executor would. The issue's
// budget: B/A >= 0.98.
//
// Two designs, because a shared 2-core machine swings by tens of percent from one 10 s run to the next:
//
//	-mode interleaved (default): one continuous load; the sampler is switched on and off in short windows
//	  (A B, then B A, ...). Each pair gives a ratio B/A of two adjacent windows, so slow drifts of the
//	  machine cancel; the median of many pairs is robust to bursts.
//	-mode runs: separate runs of -time each, alternating A/B, medians of each side (sensitive to drift).
//
// Both also report the server's and this process's CPU time per query (the sandbox's /proc/PID/stat and
// getrusage) and finally the wall time of one sample of all variables, which bounds its cost directly.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/bench/internal/benchrun"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/watch/mysqlwatch"
)

type params struct {
	mode     string
	pairs    int
	window   time.Duration // interleaved: length of each A or B window
	dur      time.Duration // runs: length of each run
	threads  int
	rows     int
	interval time.Duration
	dsn      string
	pid      int // server process, 0 when unknown (-dsn)
}

func main() {
	var p params
	flag.StringVar(&p.mode, "mode", "interleaved", "interleaved | runs")
	flag.IntVar(&p.pairs, "pairs", 30, "A/B pairs")
	flag.DurationVar(&p.window, "window", 2*time.Second, "interleaved: length of each A or B window")
	flag.DurationVar(&p.dur, "time", 10*time.Second, "runs: length of each run")
	flag.IntVar(&p.threads, "threads", 4, "workload connections")
	flag.IntVar(&p.rows, "rows", 10000, "rows in sbtest1")
	flag.DurationVar(&p.interval, "interval", time.Second, "watch interval")
	flag.StringVar(&p.dsn, "dsn", "", "use this server instead of a sandbox (needs CREATE on database sbtest)")
	flag.Parse()
	if err := run(p); err != nil {
		fmt.Fprintln(os.Stderr, "watch_overhead:", err)
		os.Exit(1)
	}
}

func run(p params) error {
	ctx := context.Background()
	if p.dsn == "" {
		c, stop, err := sandbox.StartTemp(ctx, "watch_overhead-", sandbox.Options{Name: "wbench", Logf: func(string, ...any) {}})
		if err != nil {
			return err
		}
		defer stop()
		p.dsn, p.pid = c.Primary.DSN(""), c.Primary.Pid()
	}
	if err := benchrun.PrepareTable(ctx, p.dsn, p.rows); err != nil {
		return err
	}
	sampler, err := mysqlwatch.NewStatus(mysqlwatch.StatusConfig{DSN: p.dsn, Status: []string{"*"}})
	if err != nil {
		return err
	}
	if err := sampler.Start(ctx); err != nil {
		return err
	}
	defer sampler.Close()
	fmt.Printf("mode %s, %d threads, sampler on %d status variables every %s\n", p.mode, p.threads, len(sampler.Columns()), p.interval)
	var a, b []window
	switch p.mode {
	case "interleaved":
		a, b, err = interleaved(ctx, p, sampler)
	case "runs":
		a, b, err = runs(ctx, p, sampler)
	default:
		err = fmt.Errorf("unknown -mode %q: interleaved or runs", p.mode)
	}
	if err != nil {
		return err
	}
	report(p, a, b)
	return sampleCost(ctx, sampler, p.interval)
}

// load is the closed-loop point-select workload: one pinned connection and prepared statement per thread.
type load struct {
	db   *sql.DB
	n    atomic.Int64
	stop chan struct{}
	wg   sync.WaitGroup
	errc chan error
}

func startLoad(ctx context.Context, dsn string, threads, rows int) (*load, error) {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(threads)
	db.SetMaxIdleConns(threads)
	l := &load{db: db, stop: make(chan struct{}), errc: make(chan error, threads)}
	for w := 0; w < threads; w++ {
		conn, err := db.Conn(ctx)
		if err != nil {
			l.close()
			return nil, err
		}
		stmt, err := conn.PrepareContext(ctx, "SELECT c FROM sbtest.sbtest1 WHERE id=?")
		if err != nil {
			conn.Close()
			l.close()
			return nil, err
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer conn.Close()
			defer stmt.Close()
			var c string
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				if err := stmt.QueryRow(rand.IntN(rows) + 1).Scan(&c); err != nil {
					l.errc <- err
					return
				}
				l.n.Add(1)
			}
		}()
	}
	return l, nil
}

func (l *load) close() {
	close(l.stop)
	l.wg.Wait()
	l.db.Close()
}

func (l *load) err() error {
	select {
	case err := <-l.errc:
		return err
	default:
		return nil
	}
}

// window is one measured stretch: queries per second and CPU per query.
type window struct {
	qps                float64
	serverUs, clientUs float64
	samples            int
}

// measureWindow runs the (already running) load for d; with a sampler, samples every interval meanwhile,
// the first sample at the window's start.
func measureWindow(ctx context.Context, l *load, pid int, d, interval time.Duration, s *mysqlwatch.Status) (window, error) {
	var w window
	n0, srv0, cli0, t0 := l.n.Load(), benchrun.ProcessCPU(pid), benchrun.SelfCPU(), time.Now()
	end := t0.Add(d)
	for next := t0; time.Now().Before(end); next = next.Add(interval) {
		if s != nil && next.Before(end) {
			tctx, cancel := context.WithTimeout(ctx, interval*8/10)
			if _, err := s.Sample(tctx, next); err != nil {
				fmt.Fprintln(os.Stderr, "warning:", err)
			}
			cancel()
			w.samples++
		}
		time.Sleep(time.Until(minTime(next.Add(interval), end)))
		if err := l.err(); err != nil {
			return w, err
		}
	}
	el := time.Since(t0)
	q := float64(l.n.Load() - n0)
	w.qps = q / el.Seconds()
	w.serverUs = (benchrun.ProcessCPU(pid) - srv0).Seconds() * 1e6 / q
	w.clientUs = (benchrun.SelfCPU() - cli0).Seconds() * 1e6 / q
	return w, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func interleaved(ctx context.Context, p params, s *mysqlwatch.Status) (a, b []window, err error) {
	l, err := startLoad(ctx, p.dsn, p.threads, p.rows)
	if err != nil {
		return nil, nil, err
	}
	defer l.close()
	// Discarded warm-up: buffer pool, statement caches and the Go runtime settle first.
	if _, err := measureWindow(ctx, l, p.pid, 5*time.Second, p.interval, nil); err != nil {
		return nil, nil, err
	}
	for i := 0; i < p.pairs; i++ {
		for _, watched := range order(i) {
			var smp *mysqlwatch.Status
			if watched {
				smp = s
			}
			w, err := measureWindow(ctx, l, p.pid, p.window, p.interval, smp)
			if err != nil {
				return nil, nil, err
			}
			if watched {
				b = append(b, w)
			} else {
				a = append(a, w)
			}
		}
	}
	return a, b, nil
}

func runs(ctx context.Context, p params, s *mysqlwatch.Status) (a, b []window, err error) {
	one := func(watched bool) (window, error) {
		l, err := startLoad(ctx, p.dsn, p.threads, p.rows)
		if err != nil {
			return window{}, err
		}
		defer l.close()
		var smp *mysqlwatch.Status
		if watched {
			smp = s
		}
		return measureWindow(ctx, l, p.pid, p.dur, p.interval, smp)
	}
	if _, err := one(false); err != nil { // warm-up
		return nil, nil, err
	}
	for i := 0; i < p.pairs; i++ {
		for _, watched := range order(i) {
			w, err := one(watched)
			if err != nil {
				return nil, nil, err
			}
			side := "A no watch"
			if watched {
				side = "B watched "
				b = append(b, w)
			} else {
				a = append(a, w)
			}
			fmt.Printf("pair %2d %s %9.0f qps  cpu/query server %6.2f µs client %6.2f µs  (%d samples)\n",
				i+1, side, w.qps, w.serverUs, w.clientUs, w.samples)
		}
	}
	return a, b, nil
}

// order alternates which side goes first so that a drift does not favour one.
func order(i int) []bool {
	if i%2 == 1 {
		return []bool{true, false}
	}
	return []bool{false, true}
}

func report(p params, a, b []window) {
	if len(a) == 0 || len(b) == 0 {
		return
	}
	qps := func(w window) float64 { return w.qps }
	cpu := func(w window) float64 { return w.serverUs + w.clientUs }
	fmt.Printf("throughput: median A %.0f qps, median B %.0f qps, B/A of medians %.4f\n", median(pick(a, qps)), median(pick(b, qps)), median(pick(b, qps))/median(pick(a, qps)))
	var ratios, cpuRatios []float64
	for i := range a {
		ratios = append(ratios, b[i].qps/a[i].qps)
		cpuRatios = append(cpuRatios, cpu(a[i])/cpu(b[i]))
	}
	sort.Float64s(ratios)
	fmt.Printf("per-pair B/A: median %.4f, quartiles %.4f..%.4f over %d pairs (budget: >= 0.98)\n",
		median(ratios), ratios[len(ratios)/4], ratios[len(ratios)*3/4], len(ratios))
	if p.pid > 0 {
		fmt.Printf("cpu per query (server+client): median A %.2f µs, median B %.2f µs; per-pair A/B median %.4f\n",
			median(pick(a, cpu)), median(pick(b, cpu)), median(cpuRatios))
	}
}

// sampleCost times back-to-back samples of every status variable: the wall time of one sample (client,
// server and round trip) bounds what it takes per interval.
func sampleCost(ctx context.Context, s *mysqlwatch.Status, interval time.Duration) error {
	const n = 300
	var d []float64
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if _, err := s.Sample(ctx, t0); err != nil {
			return err
		}
		d = append(d, time.Since(t0).Seconds())
	}
	med := median(d)
	fmt.Printf("one sample of %d variables: median %.3f ms wall = at most %.3f%% of one core per %s interval\n",
		len(s.Columns()), med*1000, 100*med/interval.Seconds(), interval)
	return nil
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func pick(ws []window, f func(window) float64) []float64 {
	var out []float64
	for _, w := range ws {
		out = append(out, f(w))
	}
	return out
}
