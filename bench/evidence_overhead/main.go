// Command evidence_overhead measures what issue 13's evidence costs a point-select load: A is a sandbox as
// quadrant starts it without digests or waits (performance_schema OFF, MariaDB's default) and no host
// sampling; B is a second, identical sandbox with the performance_schema settings watch.digests and
// watch.waits give a sandbox (mysqlwatch.ServerSettings), a /proc host sampler, the server process
// sampler and the client sampler at every interval, and a digest and wait snapshot at the start and
// end of every window, as an iteration takes them; C is sandbox A
// with the host, process and client samplers only, which isolates quadrant's own sampling from the server's
// instrumentation.
//
// Windows rotate A B C, B C A, C A B on one continuous machine, each loading one sandbox while the others
// idle, so the machine's drift cancels in the per-round ratios; medians of many rounds resist bursts. The
// goal is B/A >= 0.98.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/bench/internal/benchrun"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/executor/watch/hostwatch"
	"github.com/quadrant-bench/quadrant/executor/watch/mysqlwatch"
	"github.com/quadrant-bench/quadrant/executor/watch/procwatch"
)

func main() {
	rounds := flag.Int("rounds", 15, "rounds of A, B and C windows")
	window := flag.Duration("window", 2*time.Second, "length of each window")
	threads := flag.Int("threads", 4, "workload connections")
	rows := flag.Int("rows", 10000, "rows in sbtest1")
	interval := flag.Duration("interval", time.Second, "sampling interval")
	var aConfig, bConfig []sandbox.Option
	option := func(list *[]sandbox.Option) func(string) error {
		return func(v string) error {
			name, value, ok := strings.Cut(v, "=")
			if !ok {
				return fmt.Errorf("%q is not NAME=VALUE", v)
			}
			*list = append(*list, sandbox.Option{Name: name, Value: value})
			return nil
		}
	}
	flag.Func("b-config", "a my.cnf option NAME=VALUE added to sandbox B's (repeatable): to try another instrumentation", option(&bConfig))
	flag.Func("a-config", "a my.cnf option NAME=VALUE for sandbox A (repeatable): to compare two instrumentations, B's against A's", option(&aConfig))
	flag.Parse()
	if err := run(*rounds, *window, *threads, *rows, *interval, aConfig, bConfig); err != nil {
		fmt.Fprintln(os.Stderr, "evidence_overhead:", err)
		os.Exit(1)
	}
}

type server struct {
	dsn string
	pid func() int
}

func start(ctx context.Context, name string, opts []sandbox.Option) (*server, func(), error) {
	c, stop, err := sandbox.StartTemp(ctx, "evidence_overhead-", sandbox.Options{Name: name, Config: opts, Logf: func(string, ...any) {}})
	if err != nil {
		return nil, nil, err
	}
	return &server{dsn: c.Primary.DSN(""), pid: c.Primary.Pid}, stop, nil
}

func run(rounds int, window time.Duration, threads, rows int, interval time.Duration, aConfig, bConfig []sandbox.Option) error {
	ctx := context.Background()
	off, stopA, err := start(ctx, "evoffa", aConfig)
	if err != nil {
		return err
	}
	defer stopA()
	// B's server is what the executor starts for digests and waits.
	var evidence []sandbox.Option
	for _, kv := range mysqlwatch.ServerSettings() {
		evidence = append(evidence, sandbox.Option{Name: kv[0], Value: kv[1]})
	}
	on, stopB, err := start(ctx, "evonb", append(evidence, bConfig...))
	if err != nil {
		return err
	}
	defer stopB()
	for _, s := range []*server{off, on} {
		if err := benchrun.PrepareTable(ctx, s.dsn, rows); err != nil {
			return err
		}
	}
	la, err := startLoad(ctx, off.dsn, threads, rows)
	if err != nil {
		return err
	}
	defer la.close()
	lb, err := startLoad(ctx, on.dsn, threads, rows)
	if err != nil {
		return err
	}
	defer lb.close()
	onDB, err := sql.Open("mysql", on.dsn)
	if err != nil {
		return err
	}
	defer onDB.Close()

	samplers := func(s *server) ([]watch.Sampler, error) {
		h, err := hostwatch.New([]string{"load1", "cpu_util", "cpu_user", "cpu_system", "cpu_iowait", "mem_avail", "disk_read_kbs", "disk_write_kbs", "net_rx_kbs", "net_tx_kbs"}, "")
		if err != nil {
			return nil, err
		}
		out := []watch.Sampler{h, procwatch.New(procwatch.Config{What: "bench", Pid: func() (int, error) { return s.pid(), nil }}), procwatch.NewClient()}
		for _, x := range out {
			if err := x.Start(ctx); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	sb, err := samplers(on)
	if err != nil {
		return err
	}
	sc, err := samplers(off)
	if err != nil {
		return err
	}
	fmt.Printf("%d threads, %d rounds of %s windows, sampling every %s; load average now %s\n", threads, rounds, window, interval, loadavg())
	// Discarded warm-up of both servers.
	for _, l := range []*load{la, lb} {
		measureWindow(ctx, l, window*2, interval, nil, nil)
	}
	res := map[byte][]float64{}
	for i := range rounds {
		for _, side := range []string{"ABC", "BCA", "CAB"}[i%3] {
			var qps float64
			switch side {
			case 'A':
				qps, err = measureWindow(ctx, la, window, interval, nil, nil)
			case 'B':
				qps, err = measureWindow(ctx, lb, window, interval, sb, onDB)
			case 'C':
				qps, err = measureWindow(ctx, la, window, interval, sc, nil)
			}
			if err != nil {
				return err
			}
			res[byte(side)] = append(res[byte(side)], qps)
		}
	}
	var ba, ca []float64
	for i := range res['A'] {
		ba = append(ba, res['B'][i]/res['A'][i])
		ca = append(ca, res['C'][i]/res['A'][i])
	}
	aIs := "performance_schema OFF"
	if len(aConfig) > 0 {
		aIs = fmt.Sprint(aConfig)
	}
	fmt.Printf("median qps: A %.0f (%s, no sampling), B %.0f (digests/waits settings %v + snapshots + host/process/client sampling), C %.0f (A + sampling only)\n",
		median(res['A']), aIs, median(res['B']), append(evidence, bConfig...), median(res['C']))
	fmt.Printf("per-round B/A: median %.4f, quartiles %s; C/A: median %.4f, quartiles %s (goal: B/A >= 0.98); load average now %s\n",
		median(ba), quartiles(ba), median(ca), quartiles(ca), loadavg())
	return nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// load is a closed-loop point-select workload that runs only while its gate is open: one pinned connection
// and prepared statement per thread.
type load struct {
	db   *sql.DB
	n    atomic.Int64
	open atomic.Bool
	stop chan struct{}
	wg   sync.WaitGroup
}

func startLoad(ctx context.Context, dsn string, threads, rows int) (*load, error) {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(threads)
	l := &load{db: db, stop: make(chan struct{})}
	for range threads {
		conn, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		stmt, err := conn.PrepareContext(ctx, "SELECT c FROM sbtest.sbtest1 WHERE id=?")
		if err != nil {
			return nil, err
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer conn.Close()
			var c string
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				if !l.open.Load() {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				if err := stmt.QueryRow(rand.IntN(rows) + 1).Scan(&c); err == nil {
					l.n.Add(1)
				}
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

// measureWindow opens l's gate for d and returns its queries per second; with samplers, every sampler reads
// at every interval, and with db the digest and wait tables are read at the start and the end.
func measureWindow(ctx context.Context, l *load, d, interval time.Duration, ss []watch.Sampler, db *sql.DB) (float64, error) {
	if db != nil {
		if _, err := mysqlwatch.Digests(ctx, db); err != nil {
			return 0, err
		}
		if _, err := mysqlwatch.Waits(ctx, db); err != nil {
			return 0, err
		}
	}
	for _, s := range ss {
		s.Baseline(ctx)
	}
	l.open.Store(true)
	n0, t0 := l.n.Load(), time.Now()
	end := t0.Add(d)
	for next := t0.Add(interval); next.Before(end) || next.Equal(end); next = next.Add(interval) {
		time.Sleep(time.Until(next))
		for _, s := range ss {
			s.Sample(ctx, next)
		}
	}
	time.Sleep(time.Until(end))
	q, el := float64(l.n.Load()-n0), time.Since(t0)
	l.open.Store(false)
	if db != nil {
		mysqlwatch.Digests(ctx, db)
		mysqlwatch.Waits(ctx, db)
	}
	time.Sleep(50 * time.Millisecond) // let the workers see the gate closed
	return q / el.Seconds(), nil
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func quartiles(x []float64) string {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return fmt.Sprintf("%.4f..%.4f", s[len(s)/4], s[len(s)*3/4])
}
