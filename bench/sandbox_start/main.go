// Command sandbox_start measures the time from sandbox.Start to a server that answers, with the
// template datadir already initialised (the first, untimed start creates it when needed), and prints
// the median of -n runs. Run it with bench/sandbox_start.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

func main() {
	n := flag.Int("n", 5, "timed starts")
	replicas := flag.Int("replicas", 0, "replicas per sandbox")
	semisync := flag.Bool("semisync", false, "semi-synchronous replication")
	flag.Parse()
	if err := run(*n, *replicas, *semisync); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox_start:", err)
		os.Exit(1)
	}
}

func run(n, replicas int, semisync bool) error {
	ctx := context.Background()
	dir, err := sandbox.TempDir("sbbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	o := sandbox.Options{Name: "bench", Dir: dir, Replicas: replicas}
	if semisync {
		o.Replication = "semisync"
	}
	start := func() (time.Duration, error) {
		t0 := time.Now()
		c, err := sandbox.Start(ctx, o)
		d := time.Since(t0)
		if err != nil {
			return 0, err
		}
		return d, c.Stop(ctx)
	}
	warm, err := start() // makes sure the template exists; not counted
	if err != nil {
		return err
	}
	fmt.Printf("warm-up start (may include template creation): %.3fs\n", warm.Seconds())
	var times []time.Duration
	for i := 0; i < n; i++ {
		d, err := start()
		if err != nil {
			return err
		}
		times = append(times, d)
		fmt.Printf("start %d: %.3fs\n", i+1, d.Seconds())
	}
	slices.Sort(times)
	fmt.Printf("median of %d starts (replicas=%d semisync=%t), Start to ready: %.3fs (min %.3fs, max %.3fs)\n",
		n, replicas, semisync, times[len(times)/2].Seconds(), times[0].Seconds(), times[len(times)-1].Seconds())
	return nil
}
