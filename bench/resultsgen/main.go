// Command resultsgen writes a large results folder (see package largefolder) for
// measuring `quadrant report` and `quadrant compare` at scale without running an
// hour-long plan:
//
//	go run ./bench/resultsgen -out /tmp/big [-duration 1h] [-columns 200] [-iterations 12] [-targets 2] [-scale 1] [-seed 1]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/quadrant-bench/quadrant/bench/largefolder"
)

func main() {
	var p largefolder.Options
	out := flag.String("out", "", "results folder to write (must not exist)")
	flag.DurationVar(&p.Duration, "duration", time.Hour, "measured length of each iteration, one row per second")
	flag.IntVar(&p.Columns, "columns", 200, "watched columns (status.*) per target")
	flag.IntVar(&p.Iterations, "iterations", 12, "iterations (a threads x flush matrix)")
	flag.IntVar(&p.Targets, "targets", 2, "targets, each with a time series")
	flag.Float64Var(&p.Scale, "scale", 1, "multiplies throughput")
	flag.Uint64Var(&p.Seed, "seed", 1, "random seed")
	flag.BoolVar(&p.NoHistograms, "no-histograms", false, "skip the histogram logs")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "resultsgen: -out DIR is required")
		os.Exit(2)
	}
	t0 := time.Now()
	if err := largefolder.Write(*out, p); err != nil {
		fmt.Fprintln(os.Stderr, "resultsgen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "resultsgen: wrote %s in %.1fs\n", *out, time.Since(t0).Seconds())
}
