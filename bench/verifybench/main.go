// Command verifybench measures `quadrant verify` (verify.Run) on captures of growing size:
// two sandboxes get the same sbtest table (a generate: step, same seed), then for each -n it
// writes a .qcap of that many statements from -sessions sessions over -fingerprints
// statement classes with varied literals (a tenth of them writes, which verify skips), runs
// verify against both sandboxes and prints the statements read, fingerprints, wall time,
// statements read per second and the peak Go heap in use during the run. verify keeps a
// sample per fingerprint, never the capture, so the heap must stay flat as -n grows.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/bench/internal/benchrun"
	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/executor/verify"
	"github.com/quadrant-bench/quadrant/results"
)

const schema = `CREATE DATABASE sbtest; USE sbtest;
CREATE TABLE sbtest1 (
  id INT NOT NULL AUTO_INCREMENT,
  k INT NOT NULL DEFAULT 0,
  c CHAR(120) NOT NULL DEFAULT '',
  pad CHAR(60) NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  KEY k_1 (k)
) ENGINE=InnoDB;
`

func main() {
	sizes := flag.String("n", "10000,100000,1000000", "statements of each capture, comma-separated")
	rows := flag.Int64("rows", 10_000, "rows of sbtest1 on both sandboxes")
	fingerprints := flag.Int("fingerprints", 100, "statement classes in the capture")
	sessions := flag.Int("sessions", 8, "captured sessions the statements are spread over")
	sample := flag.Int("sample", verify.DefaultSample, "verify's sample: statements run per fingerprint")
	repeat := flag.Int("repeat", verify.DefaultRepeat, "verify's --repeat: timed runs per fingerprint and target (0: no latency phase)")
	keep := flag.String("dir", "", "write the captures here and keep them (default: a temporary folder)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the last (largest) verify run to this file")
	flag.Parse()
	if err := run(*sizes, *rows, *fingerprints, *sessions, *sample, *repeat, *keep, *cpuprofile); err != nil {
		fmt.Fprintln(os.Stderr, "verifybench:", err)
		os.Exit(1)
	}
}

func run(sizes string, rows int64, fingerprints, sessions, sample, repeat int, dir, cpuprofile string) error {
	var ns []int
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("-n: %q is not a count of statements", f)
		}
		ns = append(ns, n)
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "verifybench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ctx := context.Background()
	schemaFile := filepath.Join(dir, "sbtest.sql")
	if err := os.WriteFile(schemaFile, []byte(schema), 0o644); err != nil {
		return err
	}
	var targets []verify.Target
	for _, name := range []string{"base", "new"} {
		c, stop, err := sandbox.StartTemp(ctx, "verifybench-", sandbox.Options{Name: name, Logf: func(string, ...any) {}})
		if err != nil {
			return fmt.Errorf("sandbox %s: %w", name, err)
		}
		defer stop()
		db, err := sql.Open("mysql", c.Primary.DSN(""))
		if err != nil {
			return err
		}
		defer db.Close()
		if _, err := generate.Run(ctx, db, generate.Options{Schema: schemaFile, Seed: 1, Threads: 2,
			Tables: []generate.Table{{Name: "sbtest1", Rows: rows}}}); err != nil {
			return fmt.Errorf("fill %s: %w", name, err)
		}
		targets = append(targets, verify.Target{Name: name, DB: db})
	}
	for i, n := range ns {
		path := filepath.Join(dir, fmt.Sprintf("capture-%d.qcap", n))
		if err := writeCapture(path, n, rows, fingerprints, sessions); err != nil {
			return err
		}
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		runtime.GC()
		if cpuprofile != "" && i == len(ns)-1 {
			f, err := os.Create(cpuprofile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer pprof.StopCPUProfile()
		}
		peak, done := benchrun.HeapPeak()
		t0 := time.Now()
		out, err := results.Create(filepath.Join(dir, fmt.Sprintf("verify-%d", n)))
		if err != nil {
			return err
		}
		sum, err := verify.Run(ctx, verify.Options{Traffic: path, Targets: targets, Sample: sample, Seed: 1, Repeat: repeat, MinChange: verify.DefaultMinChange, Out: out})
		took := time.Since(t0)
		close(done)
		most := <-peak
		if err != nil {
			return fmt.Errorf("verify %s: %w", path, err)
		}
		if err := out.Close(); err != nil {
			return err
		}
		fmt.Printf("%8d statements (%4d MB): %7d reads in %d fingerprints (%d skipped), %d differ, %d slower; %6.1fs, %8.0f statements/s read; peak Go heap in use %.1f MiB\n",
			n, st.Size()>>20, sum.Statements, sum.Fingerprints, sum.Skipped, sum.Different, sum.Slower, took.Seconds(), float64(n)/took.Seconds(), float64(most)/(1<<20))
		// two sandboxes alike: every verdict but same is noise the rule let through
		qs, err := results.ReadQueries(out.Dir)
		if err != nil {
			return err
		}
		for _, q := range qs {
			if q.Latency != results.VerifySame && q.Latency != results.VerifyNoLatency {
				fmt.Printf("          %s: %+.0f%% (95%% CI %+.0f..%+.0f%%), p95 %.3g -> %.3g ms, %d runs: %s\n", q.Latency, q.Change, q.ChangeLo, q.ChangeHi, q.BaseP95, q.P95, q.Timed, q.Fingerprint)
			}
		}
	}
	return nil
}

// shapes are the statement classes; each gets fingerprints/len(shapes) variants through an
// alias, so that the capture has that many fingerprints, each with its own literals.
var shapes = []func(r *rand.Rand, rows int64, v int) string{
	func(r *rand.Rand, rows int64, v int) string {
		return fmt.Sprintf("SELECT c AS c%d FROM sbtest1 WHERE id = %d", v, 1+r.Int64N(rows))
	},
	func(r *rand.Rand, rows int64, v int) string {
		a := 1 + r.Int64N(rows)
		return fmt.Sprintf("SELECT c AS c%d FROM sbtest1 WHERE id BETWEEN %d AND %d", v, a, a+99)
	},
	func(r *rand.Rand, rows int64, v int) string {
		a := 1 + r.Int64N(rows)
		return fmt.Sprintf("SELECT SUM(k) AS s%d FROM sbtest1 WHERE id BETWEEN %d AND %d", v, a, a+99)
	},
	func(r *rand.Rand, rows int64, v int) string {
		a := 1 + r.Int64N(rows)
		return fmt.Sprintf("SELECT c AS c%d FROM sbtest1 WHERE id BETWEEN %d AND %d ORDER BY c", v, a, a+99)
	},
	func(r *rand.Rand, rows int64, v int) string {
		a := 1 + r.Int64N(rows)
		return fmt.Sprintf("SELECT DISTINCT c AS c%d FROM sbtest1 WHERE id BETWEEN %d AND %d ORDER BY c", v, a, a+99)
	},
	func(r *rand.Rand, rows int64, v int) string {
		return fmt.Sprintf("SELECT id AS i%d, pad FROM sbtest1 WHERE k = %d", v, r.Int64N(1_000_000))
	},
	func(r *rand.Rand, rows int64, v int) string {
		return fmt.Sprintf("SELECT COUNT(*) AS n%d FROM sbtest1 WHERE k < %d AND c LIKE '%c%%'", v, r.Int64N(1_000_000), 'a'+r.IntN(26))
	},
	func(r *rand.Rand, rows int64, v int) string {
		return fmt.Sprintf("SELECT id AS i%d, k FROM sbtest1 WHERE id IN (%d, %d, %d)", v, 1+r.Int64N(rows), 1+r.Int64N(rows), 1+r.Int64N(rows))
	},
}

// writeCapture writes n statements: nine in ten reads of a random fingerprint, one in ten an
// UPDATE, each from a random session, a millisecond apart.
func writeCapture(path string, n int, rows int64, fingerprints, sessions int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w, err := traffic.NewWriter(f, traffic.QCapHeader{Created: t0, Source: "verifybench", Timed: true})
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(uint64(n), 7))
	per := max(1, fingerprints/len(shapes))
	for i := range n {
		s := traffic.Statement{Session: 1 + r.Uint64N(uint64(sessions)), Start: t0.Add(time.Duration(i) * time.Millisecond),
			Duration: 100 * time.Microsecond, Schema: "sbtest", RowsSent: -1, RowsExamined: -1, Error: 0}
		if r.IntN(10) == 0 {
			s.Text = fmt.Sprintf("UPDATE sbtest1 SET k = k + 1 WHERE id = %d", 1+r.Int64N(rows))
		} else {
			fp := r.IntN(per * len(shapes))
			s.Text = shapes[fp%len(shapes)](r, rows, fp/len(shapes))
		}
		if err := w.Write(&s); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
