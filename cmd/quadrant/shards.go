package main

import (
	"fmt"
	"github.com/quadrant-bench/quadrant/executor/kinds"
	"io"
	"os"
	"path/filepath"

	"github.com/quadrant-bench/quadrant/reporters"
	"github.com/quadrant-bench/quadrant/reporters/merge"
	"github.com/quadrant-bench/quadrant/results"
)

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("merge", "DIR|ARCHIVE... --out DIR",
		"Adds up the results folders of one sharded run (quadrant run --shard K/N, one folder per shard, or the archives\n"+
			"quadrant pack made of them) into one ordinary results folder, which report, compare and rerun read as any other.\n"+
			"Checks they are one run: the same plan and run id, every shard 0..N-1 once. Counts and rates are summed per\n"+
			"interval, latency percentiles come from the shards' histograms added together (exact), watched columns are the\n"+
			"leader's (shard 0), assertions are evaluated on the merged numbers. A shard that did not finish an iteration,\n"+
			"or a missing interval, marks it failed.\n"+
			"Exit codes: 0 merged, 1 an assertion failed, 2 the folders are not one complete run, 3 an iteration failed.", stdout, stderr)
	out := fs.String("out", "", "write the merged folder to `DIR` (must not exist)")
	dirs, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(dirs) == 0 || *out == "" {
		fmt.Fprintln(stderr, "quadrant merge: give the shards' folders or archives and --out, e.g. quadrant merge results/bench/run1/shard-* --out results/bench/run1/merged")
		return exitInvalid
	}
	var tmp string
	defer func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}()
	var folders []string
	for _, d := range dirs {
		if !results.IsArchive(d) {
			folders = append(folders, d)
			continue
		}
		if tmp == "" {
			var err error
			if tmp, err = os.MkdirTemp("", "quadrant-merge-"); err != nil {
				fmt.Fprintf(stderr, "quadrant merge: %v\n", err)
				return exitFailed
			}
		}
		into := filepath.Join(tmp, fmt.Sprint(len(folders)))
		dir, err := results.Unpack(d, into)
		if err != nil {
			fmt.Fprintf(stderr, "quadrant merge: %v\n", err)
			return exitInvalid
		}
		folders = append(folders, dir)
	}
	o, err := merge.Merge(folders, dirs, *out, buildVersion(), kinds.Registry())
	if err != nil {
		fmt.Fprintf(stderr, "quadrant merge: %v\n", err)
		return exitInvalid
	}
	fmt.Fprintf(stdout, "merged: %s (%s)\n", *out, o.Status)
	written, rerr := reporters.Rebuild(*out, buildVersion())
	for _, p := range written {
		if filepath.Base(p) == results.ReportFile {
			fmt.Fprintf(stdout, "report: %s\n", p)
		}
	}
	if rerr != nil {
		fmt.Fprintf(stderr, "warning: reports: %v (rebuild with: quadrant report %s)\n", rerr, *out)
	}
	switch {
	case o.IterationsFailed > 0:
		return exitFailed
	case o.AssertionsFailed > 0:
		return exitAssert
	}
	return exitOK
}

func runPack(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("pack", "DIR > DIR.tgz",
		"Writes a results folder as one archive (tar.gz) on stdout, e.g. to copy a shard's folder out of a pod with no tar:\n"+
			"  kubectl exec POD -- quadrant pack /results/bench/run1/shard-2 > shard-2.tgz\n"+
			"quadrant merge reads such archives as it reads folders.", stdout, stderr)
	dirs, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(dirs) != 1 {
		fmt.Fprintln(stderr, "quadrant pack: give exactly one results folder, e.g. quadrant pack results/bench/run1/shard-0 > shard-0.tgz")
		return exitInvalid
	}
	if f, ok := stdout.(*os.File); ok && isTerminal(f) {
		fmt.Fprintln(stderr, "quadrant pack: stdout is a terminal; redirect it to a file: quadrant pack DIR > DIR.tgz")
		return exitInvalid
	}
	if err := results.Pack(dirs[0], stdout); err != nil {
		fmt.Fprintf(stderr, "quadrant pack: %v\n", err)
		return exitInvalid
	}
	return exitOK
}
