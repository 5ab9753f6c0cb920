// Command replaybench measures replay of captured traffic:
//
//	-mode stream: generates a slow log of -size bytes (point selects, MySQL 8 format) and reads it
//	  through the replay's parser and fingerprinting, printing MB/s and the process's peak memory
//	  (VmHWM), which must stay flat whatever the size.
//	-mode rate:   generates a slow log of point selects at -rate statements/s over -sessions
//	  sessions for -span, replays it on a sandbox at timing: original with speed 1 and 2, and
//	  prints wall times, the achieved rate and the schedule lag: a replayer that keeps up has a
//	  wall time near span/speed and a small lag.
//	-mode timing: the same kind of slow log (-arrivals uniform, poisson or bursts of 10)
//	  replayed at timing: none and timing: original (speed 1), alternated -pairs times: the
//	  client CPU (this process's user+system) per statement of the replay itself (from the
//	  moment its connections are ready, so reading the log is left out), and the ratio of
//	  the medians, original / none.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/bench/internal/benchrun"
	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/replay"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

func main() {
	mode := flag.String("mode", "stream", "stream | rate | timing")
	pairs := flag.Int("pairs", 3, "alternated none/original pairs (timing)")
	arrivals := flag.String("arrivals", "uniform", "uniform | poisson | bursts: the gaps between a session's statements (rate, timing)")
	size := flag.Int64("size", 1<<30, "bytes of slow log to generate (stream)")
	rate := flag.Float64("rate", 10000, "captured statements per second (rate)")
	sessions := flag.Int("sessions", 16, "captured sessions (rate)")
	span := flag.Duration("span", 10*time.Second, "captured time span (rate)")
	keep := flag.String("file", "", "generate into this file and keep it (default: a temporary file)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the bench to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "replaybench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	var err error
	switch *mode {
	case "stream":
		err = stream(*size, *keep)
	case "rate":
		err = keepUp(*rate, *sessions, *span, *arrivals)
	case "timing":
		err = timingCost(*rate, *sessions, *span, *arrivals, *pairs)
	default:
		err = fmt.Errorf("unknown -mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "replaybench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// burst is how many statements a transaction of -arrivals bursts has.
const burst = 10

// generate writes a MySQL 8 slow log of point selects, n statements (or until size bytes),
// round robin over sessions, one every 1/rate seconds (uniform); poisson instead gives the
// statements exponential gaps of the same mean, so a session's statements sometimes follow
// each other by microseconds and sometimes by many milliseconds; bursts gives each session
// transactions of burst statements 20 µs apart, their starts poisson.
func generate(path string, size int64, n int64, rate float64, sessions int, arrivals string) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, "/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /tmp/mysql.sock\nTime                 Id Command    Argument\n")
	start := time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC)
	var written, i int64
	step := time.Duration(float64(time.Second) / rate)
	rng := rand.New(rand.NewPCG(1, 2))
	at := start
	for ; (size <= 0 || written < size) && (n <= 0 || i < n); i++ {
		sess := i % int64(sessions)
		switch arrivals {
		case "poisson":
			at = at.Add(time.Duration(rng.ExpFloat64() * float64(step)))
		case "bursts":
			// Transactions: a session's 10 statements 20 µs apart, the transactions'
			// starts exponential gaps apart, at the same mean rate.
			sess = (i / burst) % int64(sessions)
			if i%burst == 0 {
				at = at.Add(time.Duration(rng.ExpFloat64() * float64(burst) * float64(step)))
			} else {
				at = at.Add(20 * time.Microsecond)
			}
		default:
			at = start.Add(time.Duration(i) * step)
		}
		end := at.Add(80 * time.Microsecond)
		k, _ := fmt.Fprintf(w, "# Time: %s\n# User@Host: app[app] @ localhost [127.0.0.1]  Id: %5d\n# Query_time: 0.000080  Lock_time: 0.000001 Rows_sent: 1  Rows_examined: 1\nuse sbtest;\nSET timestamp=%d;\nSELECT c FROM sbtest1 WHERE id=%d;\n",
			end.Format("2006-01-02T15:04:05.000000Z"), 100+sess, at.Unix(), 1+i*7919%10000)
		written += int64(k)
	}
	return i, w.Flush()
}

func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "?"
}

func stream(size int64, keep string) error {
	path := keep
	if path == "" {
		dir, err := os.MkdirTemp("", "replaybench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "slow.log")
	}
	if st, err := os.Stat(path); err != nil || st.Size() < size {
		t0 := time.Now()
		n, err := generate(path, size, 0, 10000, 64, "uniform")
		if err != nil {
			return err
		}
		fmt.Printf("generated %s: %d statements in %.1fs\n", path, n, time.Since(t0).Seconds())
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Printf("before reading: peak RSS %s\n", peakRSS())
	t0 := time.Now()
	f, err := traffic.Open(path, traffic.Options{})
	if err != nil {
		return err
	}
	defer f.Close()
	var n int64
	fps := map[string]int64{}
	var ms runtime.MemStats
	var maxHeap uint64
	for {
		s, err := f.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		fps[traffic.Fingerprint(s.Text)]++
		if n++; n%200000 == 0 {
			runtime.ReadMemStats(&ms)
			maxHeap = max(maxHeap, ms.HeapInuse)
		}
	}
	el := time.Since(t0)
	fmt.Printf("read %s (%d MB, %s): %d statements, %d fingerprints in %.1fs = %.0f MB/s, %.0f statements/s; max heap in use %d MB, peak RSS %s (CPUs %d, load %s)\n",
		path, st.Size()>>20, f.Format, n, len(fps), el.Seconds(), float64(st.Size())/(1<<20)/el.Seconds(), float64(n)/el.Seconds(), maxHeap>>20, peakRSS(), runtime.NumCPU(), load())
	return nil
}

func load() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// bench is a generated slow log and a sandbox holding its table.
type bench struct {
	path string
	n    int64
	cfg  *mysql.Config
	stop func()
}

func setUp(ctx context.Context, rate float64, sessions int, span time.Duration, arrivals string) (*bench, error) {
	dir, err := sandbox.TempDir("replaybench-")
	if err != nil {
		return nil, err
	}
	b := &bench{path: filepath.Join(dir, "slow.log"), n: int64(rate * span.Seconds())}
	fail := func(err error) (*bench, error) {
		if b.stop != nil {
			b.stop()
		}
		os.RemoveAll(dir)
		return nil, err
	}
	if _, err := generate(b.path, 0, b.n, rate, sessions, arrivals); err != nil {
		return fail(err)
	}
	c, err := sandbox.Start(ctx, sandbox.Options{Name: "bench", Dir: dir, Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "256M"}, {Name: "max_connections", Value: "500"},
	}, Logf: func(string, ...any) {}})
	if err != nil {
		return fail(err)
	}
	b.stop = func() { c.Stop(context.Background()); os.RemoveAll(dir) }
	db, err := sql.Open("mysql", c.Primary.DSN(""))
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE DATABASE sbtest", "CREATE TABLE sbtest.sbtest1 (id INT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60))",
		"INSERT INTO sbtest.sbtest1 SELECT seq, seq, REPEAT('c', 120), REPEAT('p', 60) FROM sbtest.seq_1_to_10000"} {
		if _, err := db.Exec(q); err != nil {
			return fail(fmt.Errorf("%s: %w", q, err))
		}
	}
	if b.cfg, err = mysql.ParseDSN(c.Primary.DSN("")); err != nil {
		return fail(err)
	}
	return b, nil
}

func keepUp(rate float64, sessions int, span time.Duration, arrivals string) error {
	ctx := context.Background()
	b, err := setUp(ctx, rate, sessions, span, arrivals)
	if err != nil {
		return err
	}
	defer b.stop()
	path, n, cfg := b.path, b.n, b.cfg
	fmt.Printf("captured: %d point selects over %d sessions in %s (%.0f/s); CPUs %d\n", n, sessions, span, rate, runtime.NumCPU())
	for _, speed := range []float64{1, 2, 1, 2, 1, 2} {
		w := replay.Workload(path, replay.Replay{Timing: "original", Speed: speed})
		t0 := time.Now()
		tot, err := benchrun.Workload(ctx, cfg, w)
		if err != nil {
			return err
		}
		wall := time.Since(t0)
		fmt.Printf("speed %g: replay %.2fs (schedule %.2fs; wall %.2fs with reading the log first), %d statements, %.0f/s, errors %d, schedule lag p50 %.2fms p99 %.2fms, latency p99 %.2fms, load %s\n",
			speed, tot.Seconds(), span.Seconds()/speed, wall.Seconds(), tot.Events, float64(tot.Events)/tot.Seconds(), tot.Errors,
			measure.Ms(tot.Lag.Percentile(50)), measure.Ms(tot.Lag.Percentile(99)), measure.Ms(tot.Latency.Percentile(99)), load())
	}
	return nil
}

// timingCost alternates timing: none and timing: original on the same capture and prints
// the client CPU per replayed statement of each run, then the medians and their ratio.
func timingCost(rate float64, sessions int, span time.Duration, arrivals string, pairs int) error {
	ctx := context.Background()
	b, err := setUp(ctx, rate, sessions, span, arrivals)
	if err != nil {
		return err
	}
	defer b.stop()
	fmt.Printf("captured: %d point selects over %d sessions in %s (%.0f/s, %s gaps); CPUs %d\n", b.n, sessions, span, rate, arrivals, runtime.NumCPU())
	per := map[string][]float64{}
	for i := 0; i < pairs; i++ {
		order := []string{"none", "original"}
		if i%2 == 1 {
			order = []string{"original", "none"}
		}
		for _, timing := range order {
			var cpu0 time.Duration
			var t0 time.Time
			w := spec.WithDefaults(replay.Workload(b.path, replay.Replay{Timing: timing}))
			env := workload.Env{Server: b.cfg, Ready: func(context.Context) error {
				cpu0, t0 = benchrun.SelfCPU(), time.Now()
				return nil
			}}
			tot, err := kinds.Do(ctx, w, env, func(*measure.Interval) {})
			if err != nil {
				return err
			}
			cpu, wall := benchrun.SelfCPU()-cpu0, time.Since(t0)
			us := float64(cpu.Microseconds()) / float64(max(tot.Events, 1))
			per[timing] = append(per[timing], us)
			lag := ""
			if tot.Lag != nil && tot.Lag.Count() > 0 {
				lag = fmt.Sprintf(", schedule lag p50 %.2fms p99 %.2fms", measure.Ms(tot.Lag.Percentile(50)), measure.Ms(tot.Lag.Percentile(99)))
			}
			fmt.Printf("timing %-8s: %d statements in %.2fs, client CPU %.2fs = %.1f µs per statement%s, load %s\n",
				timing, tot.Events, wall.Seconds(), cpu.Seconds(), us, lag, load())
		}
	}
	none, orig := median(per["none"]), median(per["original"])
	fmt.Printf("median client CPU per statement: none %.1f µs, original %.1f µs: original/none %.2f\n", none, orig, orig/none)
	// What one wake-up costs on this machine, whoever sleeps: timing: original sleeps once per
	// statement that is not yet due, none never does, so none + this is the floor of any pacer
	// that sleeps (and one that spins pays more).
	wake := sleepFloor(sessions, int(b.n)/sessions, time.Duration(float64(span)*float64(sessions)/float64(b.n)))
	fmt.Printf("a bare sleeper on the same schedule (%d threads, no SQL): %.1f µs of CPU per wake-up; floor of original/none here: (%.1f + %.1f) / %.1f = %.2f\n",
		sessions, wake, none, wake, none, (none+wake)/none)
	return nil
}

// sleepFloor runs sessions threads that each sleep n times until the next multiple of gap
// (nanosleep, as the replay's sessions do with a P of their own) and nothing else, and returns
// the process's CPU per wake-up, in µs.
func sleepFloor(sessions, n int, gap time.Duration) float64 {
	cpu0 := benchrun.SelfCPU()
	done := make(chan struct{})
	for range sessions {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			due := time.Now()
			for range n {
				due = due.Add(gap)
				if d := time.Until(due); d > 0 {
					ts := syscall.NsecToTimespec(int64(d))
					_ = syscall.Nanosleep(&ts, nil)
				}
			}
			done <- struct{}{}
		}()
	}
	for range sessions {
		<-done
	}
	return float64((benchrun.SelfCPU() - cpu0).Microseconds()) / float64(max(sessions*n, 1))
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
