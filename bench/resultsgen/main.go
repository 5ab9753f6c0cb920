// Command resultsgen writes a large results folder through package results (the writer a
// run uses, so the format is the real one), for measuring `quadrant report` and
// `quadrant compare` at scale without running an hour-long plan. The default is the
// issue's case: 1 h at 1 s, 200 watched columns, 12 iterations, 2 targets, each with the
// workload's columns and a histogram log per iteration (the worst case: a replica has
// no workload columns).
//
//	go run ./bench/resultsgen -out /tmp/big [-duration 1h] [-columns 200] [-iterations 12] [-targets 2] [-scale 1]
//
// Values are deterministic for a given -seed; -scale multiplies throughput, so two folders
// make a comparison with a known difference.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

type params struct {
	out        string
	duration   time.Duration
	columns    int
	iterations int
	targets    int
	scale      float64
	seed       uint64
	histograms bool
}

func main() {
	var p params
	flag.StringVar(&p.out, "out", "", "results folder to write (must not exist)")
	flag.DurationVar(&p.duration, "duration", time.Hour, "measured length of each iteration, one row per second")
	flag.IntVar(&p.columns, "columns", 200, "watched columns (status.*) per target")
	flag.IntVar(&p.iterations, "iterations", 12, "iterations (a 2-axis matrix: threads x flush)")
	flag.IntVar(&p.targets, "targets", 2, "targets, each with a time series")
	flag.Float64Var(&p.scale, "scale", 1, "multiplies throughput")
	flag.Uint64Var(&p.seed, "seed", 1, "random seed")
	flag.BoolVar(&p.histograms, "histograms", true, "write a histogram log per iteration and target, one line per second")
	flag.Parse()
	if p.out == "" {
		fmt.Fprintln(os.Stderr, "resultsgen: -out DIR is required")
		os.Exit(2)
	}
	if _, err := os.Stat(p.out); err == nil {
		fmt.Fprintf(os.Stderr, "resultsgen: %s exists\n", p.out)
		os.Exit(2)
	}
	t0 := time.Now()
	if err := Generate(p); err != nil {
		fmt.Fprintln(os.Stderr, "resultsgen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "resultsgen: wrote %s in %.1fs\n", p.out, time.Since(t0).Seconds())
}

// column is one watched variable with its own shape, so charts are not all alike:
// counters follow throughput, gauges wander, a few are mostly flat with bursts, and a
// few miss samples now and then (an empty cell, as a lost sample is written).
type column struct {
	name  string
	kind  int
	base  float64
	noise float64
}

func columns(n int, r *rand.Rand) []column {
	known := []string{"Com_select", "Com_insert", "Com_update", "Com_delete", "Com_commit", "Threads_running",
		"Threads_connected", "Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_reads", "Innodb_data_reads",
		"Innodb_data_writes", "Innodb_data_fsyncs", "Innodb_os_log_written", "Innodb_rows_read", "Innodb_rows_inserted",
		"Handler_read_key", "Handler_read_next", "Handler_write", "Bytes_sent", "Bytes_received"}
	out := make([]column, n)
	for i := range out {
		name := fmt.Sprintf("Var_%03d", i)
		if i < len(known) {
			name = known[i]
		}
		out[i] = column{name: "status." + name, kind: i % 4, base: math.Pow(10, 1+4*r.Float64()), noise: 0.02 + 0.1*r.Float64()}
	}
	return out
}

// Generate writes the folder described by p.
func Generate(p params) error {
	w, err := results.Create(p.out)
	if err != nil {
		return err
	}
	defer w.Close()
	r := rand.New(rand.NewPCG(p.seed, 42))
	start := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	threads := []int{1, 2, 4, 8, 16, 32}
	flush := []string{"O_DIRECT", "fsync"}
	info := &results.RunInfo{
		Tool: "quadrant", Version: "resultsgen", Plan: "report-scale", PlanSHA256: "resultsgen", Host: "generated",
		Axes: []string{"flush", "threads"}, Start: start, Status: results.StatusDone,
	}
	var targets []string
	for t := 0; t < p.targets; t++ {
		name := "primary"
		if t > 0 {
			name = fmt.Sprintf("replica%d", t)
		}
		targets = append(targets, name)
		info.Targets = append(info.Targets, results.TargetInfo{Name: name, Kind: "sandbox", Address: "root@tcp(127.0.0.1:3306)/",
			Flavor: "MariaDB", ServerVersion: "10.11.19", VariablesBefore: map[string]string{"innodb_flush_method": "O_DIRECT"}})
	}
	cols := columns(p.columns, r)
	rows := int(p.duration / time.Second)
	clock := start
	for i := 0; i < p.iterations; i++ {
		idx := i + 1
		th := threads[i%len(threads)]
		fl := flush[(i/len(threads))%len(flush)]
		it := results.IterationInfo{Index: idx, Repeat: 1 + i/(len(threads)*len(flush)), Status: results.StatusDone, Start: clock,
			Matrix:    []results.Field{{Name: "flush", Value: fl}, {Name: "threads", Value: fmt.Sprint(th)}},
			Variables: map[string]map[string]string{"primary": {"innodb_flush_method": fl}}}
		tps := p.scale * 800 * math.Sqrt(float64(th))
		for _, target := range targets {
			if err := iteration(w, r, target, idx, fl, th, tps, rows, clock, cols, p.histograms); err != nil {
				return err
			}
		}
		end := clock.Add(p.duration)
		it.End = &end
		info.Iterations = append(info.Iterations, it)
		clock = end.Add(10 * time.Second)
	}
	info.End = &clock
	if err := w.WriteRunInfo(info); err != nil {
		return err
	}
	return w.WritePlan([]byte(fmt.Sprintf("version: 1\nname: report-scale\n# generated by bench/resultsgen: %d iterations of %s, %d watched columns, %d targets\n",
		p.iterations, p.duration, p.columns, p.targets)))
}

func iteration(w *results.Writer, r *rand.Rand, target string, idx int, flush string, threads int, tps float64, rows int, start time.Time,
	cols []column, histograms bool) error {
	var hl *results.HistogramLog
	if histograms {
		var err error
		if hl, err = w.OpenHistogramLog(target, idx, start); err != nil {
			return err
		}
		defer hl.Close()
	}
	level := make([]float64, len(cols))
	for c := range cols {
		level[c] = cols[c].base
	}
	hist := measure.NewHistogram()
	var sumTPS, sumP95 float64
	for s := 1; s <= rows; s++ {
		// Throughput drifts slowly, with a stall every ~10 minutes (a checkpoint, say).
		cur := tps * (1 + 0.05*math.Sin(float64(s)/300) + 0.03*r.NormFloat64())
		if s%600 > 590 {
			cur *= 0.2
		}
		p50 := 2 * float64(threads) / math.Sqrt(float64(threads)) * (1 + 0.1*r.NormFloat64())
		p95 := p50 * (2.5 + 0.3*r.Float64())
		if s%600 > 590 {
			p95 *= 8
		}
		var rec results.Record
		rec.AddInt("iteration", int64(idx))
		rec.AddInt("elapsed_s", int64(s))
		rec.Add("time", start.Add(time.Duration(s)*time.Second).Format("2006-01-02T15:04:05.000Z"))
		rec.AddFloat("tps", cur)
		rec.AddFloat("qps", 20*cur)
		rec.AddFloat("reads", 14*cur)
		rec.AddFloat("writes", 4*cur)
		rec.AddFloat("other", 2*cur)
		rec.AddFloat("errors", 0)
		rec.AddFloat("reconnects", 0)
		rec.AddFloat("lat_avg_ms", p50*1.1)
		rec.AddFloat("p50_ms", p50)
		rec.AddFloat("p95_ms", p95)
		rec.AddFloat("p99_ms", p95*1.4)
		rec.AddFloat("p999_ms", p95*2.2)
		rec.AddFloat("lat_max_ms", p95*4)
		rec.AddInt("threads", int64(threads))
		rec.AddInt("warmup", 0)
		rec.AddInt("backlog", 0)
		for c, col := range cols {
			var v float64
			switch col.kind {
			case 0: // a counter's rate, following throughput
				v = col.base * cur / tps * (1 + col.noise*r.NormFloat64())
			case 1: // a gauge that wanders
				level[c] = math.Max(0, level[c]+col.base*col.noise*r.NormFloat64())
				v = math.Round(level[c])
			case 2: // mostly flat, with rare bursts
				v = 0
				if r.IntN(200) == 0 {
					v = col.base * (1 + r.Float64())
				}
			default: // a rate that sometimes misses a sample
				v = col.base * (1 + col.noise*r.NormFloat64())
				if r.IntN(500) == 0 {
					v = math.NaN()
				}
			}
			rec.AddFloat(col.name, v)
		}
		if err := w.AppendSample(target, rec); err != nil {
			return err
		}
		sumTPS += cur
		sumP95 += p95
		if hl != nil {
			hist.Reset()
			h := hist.Hdr()
			// A log-normal-ish spread around p50 with a tail to p95 and beyond, as counts
			// rather than single records so an hour of seconds stays quick to write.
			for k := 0; k < 40; k++ {
				us := int64(p50 * 1000 * math.Exp(0.6*r.NormFloat64()))
				if us < 1 {
					us = 1
				}
				_ = h.RecordValues(us, int64(cur/40)+1)
			}
			_ = h.RecordValue(int64(p95 * 4000))
			iv := &measure.Interval{Index: s, Start: start.Add(time.Duration(s-1) * time.Second), End: start.Add(time.Duration(s) * time.Second)}
			iv.Latency = hist
			if err := hl.Write(iv); err != nil {
				return err
			}
		}
	}
	var sum results.Record
	sum.AddInt("iteration", int64(idx))
	sum.AddInt("repeat", 1)
	sum.Add("flush", flush)
	sum.AddInt("threads", int64(threads))
	sum.Add("target", target)
	sum.Add("status", results.StatusDone)
	sum.AddFloat("duration_s", float64(rows))
	sum.AddFloat("transactions", math.Round(sumTPS))
	sum.AddFloat("tps", sumTPS/float64(rows))
	sum.AddFloat("qps", 20*sumTPS/float64(rows))
	sum.AddFloat("p95_ms", sumP95/float64(rows))
	for _, col := range cols[:10] {
		sum.AddFloat(col.name, col.base*float64(rows))
	}
	return w.AppendSummary(sum)
}
