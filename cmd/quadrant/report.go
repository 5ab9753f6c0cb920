package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/quadrant-bench/quadrant/reporters"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/html"
	"github.com/quadrant-bench/quadrant/results"
)

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("report", "DIR...",
		"Rebuilds report.html (and, when the plan asked, the per-variable files and summary.json) from a results folder\n"+
			"alone: a colleague's folder, or one whose run was killed.", stdout, stderr)
	dirs, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(dirs) == 0 {
		fmt.Fprintln(stderr, "quadrant report: give a results folder, e.g. quadrant report results/quickstart/20261130-120000")
		return exitInvalid
	}
	code = exitOK
	for _, dir := range dirs {
		paths, err := reporters.Rebuild(dir, buildVersion())
		for _, p := range paths {
			fmt.Fprintln(stdout, p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "quadrant report: %v\n", err)
			code = exitInvalid
		}
	}
	return code
}

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("compare", "DIR DIR... [--out FILE] [--metrics tps,p95_ms,...]",
		"Lines up the iterations of two or more results folders by matrix cell and target (repeats give their median)\n"+
			"and prints each metric with its change against the first folder, then what differed around the numbers:\n"+
			"server versions, settings, the plan itself. --out also writes the comparison as one HTML page.", stdout, stderr)
	out := fs.String("out", "", "also write the comparison as an HTML page to `FILE`")
	metrics := fs.String("metrics", strings.Join(compare.DefaultMetrics, ","), "summary columns to compare, comma separated")
	dirs, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(dirs) < 2 {
		fmt.Fprintln(stderr, "quadrant compare: give at least two results folders, e.g. quadrant compare results/a/1 results/a/2")
		return exitInvalid
	}
	var runs []*results.Run
	for _, d := range dirs {
		r, err := results.Open(d) // compare reads summaries and run.json, never the time series
		if err != nil {
			fmt.Fprintf(stderr, "quadrant compare: %v\n", err)
			return exitInvalid
		}
		runs = append(runs, r)
	}
	c := compare.Compare(runs, strings.Split(*metrics, ","))
	if err := c.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "quadrant compare: %v\n", err)
		return exitFailed
	}
	if *out != "" {
		if err := html.WriteComparison(*out, c, buildVersion()); err != nil {
			fmt.Fprintf(stderr, "quadrant compare: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "\ncomparison: %s\n", *out)
	}
	return exitOK
}
