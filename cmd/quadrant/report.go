package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/quadrant-bench/quadrant/reporters"
	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/gate"
	"github.com/quadrant-bench/quadrant/reporters/html"
	"github.com/quadrant-bench/quadrant/reporters/outcomes"
	"github.com/quadrant-bench/quadrant/reporters/verifyfolder"
	"github.com/quadrant-bench/quadrant/results"
)

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("report", "DIR... [--out FILE]",
		"Rebuilds report.html (and, when the plan asked, the per-variable files and summary.json) from a results folder\n"+
			"alone: a colleague's folder, or one whose run was killed. Prints each matrix axis's effect and what the\n"+
			"folder's recorded reruns (reproductions/) found of it. Several folders of one plan: each effect across them.", stdout, stderr)
	out := fs.String("out", "", "with several folders of one plan, also write each effect across them as an HTML page to `FILE`")
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
		for _, w := range results.TornLines(dir) {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		paths, err := reporters.Rebuild(dir, buildVersion())
		for _, p := range paths {
			fmt.Fprintln(stdout, p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "quadrant report: %v\n", err)
			code = exitInvalid
			continue
		}
		if err := printEffects(dir, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "quadrant report: %v\n", err)
			code = exitInvalid
		}
	}
	if code == exitOK && len(dirs) > 1 {
		code = reportAcross(dirs, *out, stdout, stderr)
	} else if *out != "" && code == exitOK {
		fmt.Fprintln(stderr, "quadrant report: --out draws each effect across several folders of one plan: give two folders or more")
		code = exitInvalid
	}
	return code
}

// printEffects prints what each matrix axis does at each combination of the others
// (reporters/axiseffects), one sentence a line: the question "A vs B at each thread count"
// answered without dividing the report's percentages by hand.
// The reproductions recorded next to the folder follow (reproductions/): what each rerun
// found of each effect, and where it ran.
func printEffects(dir string, w, stderr io.Writer) error {
	run, err := results.Open(dir)
	if err != nil {
		return err
	}
	// What the steps came to leads (a drill plan's losses per cell), then the effects.
	if err := outcomes.WriteText(w, outcomes.Of(run)); err != nil {
		return err
	}
	if err := axiseffects.WriteText(w, dir, axiseffects.Compute(run)); err != nil {
		return err
	}
	return printReproductions(run, w, stderr)
}

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("compare", "DIR DIR... [--out FILE] [--metrics tps,p95_ms,...]",
		"Lines up the iterations of two or more results folders by matrix cell and target (repeats give their median)\n"+
			"and prints each metric with its change against the first folder, then what differed around the numbers:\n"+
			"server versions, settings, the plan itself. --out also writes the comparison as one HTML page.\n"+
			"Two verify folders (quadrant verify) are compared per fingerprint instead: newly different, fixed, still\n"+
			"different, newly slower, plan changes. See docs/verify.md.\n"+
			"When the first folder has a matrix, the comparison leads with the reproduction of each effect it states\n"+
			"(reproduced, not reproduced, inconclusive; docs/reproduce.md).", stdout, stderr)
	out := fs.String("out", "", "also write the comparison as an HTML page to `FILE`")
	record := fs.Bool("record", false, "write the reproduction record of the second folder's verdicts into the first folder's reproductions/ (two folders only), where quadrant report of it shows them")
	metrics := fs.String("metrics", "", "summary columns to compare, comma separated (default: the headline columns the folders have, such as tpcc's tpmC and tx.NAME.p90_ms, then "+strings.Join(compare.DefaultMetrics, ",")+")")
	var g gateFlags
	g.add(fs, false)
	dirs, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if !g.parse("compare", stderr) {
		return exitInvalid
	}
	if len(dirs) < 2 {
		fmt.Fprintln(stderr, "quadrant compare: give at least two results folders, e.g. quadrant compare results/a/1 results/a/2")
		return exitInvalid
	}
	if handled, code := compareChecks(dirs, *out, *metrics, stdout, stderr); handled {
		return code
	}
	var runs []*results.Run
	for _, d := range dirs {
		r, err := results.Open(d) // the time series stay on disk: compare reads them once for noise
		if err == nil {
			err = r.CheckRows()
		}
		if err != nil {
			fmt.Fprintf(stderr, "quadrant compare: %v\n", err)
			return exitInvalid
		}
		for _, w := range r.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		runs = append(runs, r)
	}
	wanted := compare.Defaults(runs)
	if *metrics != "" {
		wanted = strings.Split(*metrics, ",")
		for i := range wanted {
			wanted[i] = strings.TrimSpace(wanted[i])
		}
	}
	wanted = g.metrics(wanted)
	if err := compare.CheckMetrics(runs, wanted); err != nil {
		fmt.Fprintf(stderr, "quadrant compare: --metrics or --fail-on: %v\n", err)
		return exitInvalid
	}
	if *record && len(runs) != 2 {
		fmt.Fprintln(stderr, "quadrant compare: --record writes the second folder's reproduction of the first: give two folders")
		return exitInvalid
	}
	c := compare.Compare(runs, wanted)
	reps := reproductions(runs)
	if err := writeReproductions(stdout, reps); err != nil {
		fmt.Fprintf(stderr, "quadrant compare: %v\n", err)
		return exitFailed
	}
	if err := c.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "quadrant compare: %v\n", err)
		return exitFailed
	}
	if *record {
		if reps[0] == nil {
			fmt.Fprintf(stderr, "quadrant compare: --record: %s states no effect (no matrix axis of two values): nothing to record\n", dirs[0])
			return exitInvalid
		}
		fmt.Fprintln(stdout)
		if err := writeRecord(reps[0], "", true, stdout); err != nil {
			fmt.Fprintf(stderr, "quadrant compare: %v\n", err)
			return exitFailed
		}
	}
	gateCode := exitOK
	var judged *gate.Result
	if g.on() {
		var err error
		if judged, gateCode, err = g.judge(c, reps, stdout, ""); err != nil {
			fmt.Fprintf(stderr, "quadrant compare: gate: %v\n", err)
			return exitFailed
		}
	}
	if *out != "" {
		if err := html.WriteComparisonGate(*out, c, judged, buildVersion()); err != nil {
			fmt.Fprintf(stderr, "quadrant compare: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "\ncomparison: %s\n", *out)
	}
	return gateCode
}

// compareChecks compares two verify folders (before and after a fix, or two servers checked
// against one base) when dirs are verify folders; handled is false when none is.
func compareChecks(dirs []string, out, metrics string, stdout, stderr io.Writer) (handled bool, code int) {
	var verify, runs []string
	for _, d := range dirs {
		if verifyfolder.Is(d) {
			verify = append(verify, d)
		} else {
			runs = append(runs, d)
		}
	}
	fail := func(code int, format string, a ...any) (bool, int) {
		fmt.Fprintf(stderr, "quadrant compare: "+format+"\n", a...)
		return true, code
	}
	switch {
	case len(verify) == 0:
		return false, exitOK
	case len(runs) > 0:
		return fail(exitInvalid, "%s is a verify folder (it has %s) and %s is not: both must be verify folders, or both runs",
			verify[0], results.QueriesFile, runs[0])
	case len(verify) != 2:
		return fail(exitInvalid, "give two verify folders, not %d: a check is compared with one other, e.g. quadrant compare verify-before verify-after", len(verify))
	case metrics != "":
		return fail(exitInvalid, "--metrics picks summary columns of runs; verify folders are compared per fingerprint, without it")
	}
	var fs [2]*verifyfolder.Folder
	for i, d := range verify {
		for _, w := range results.TornLines(d) {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		f, err := verifyfolder.Load(d)
		if err != nil {
			return fail(exitInvalid, "%v", err)
		}
		fs[i] = f
	}
	c := verifyfolder.Compare(fs[0], fs[1])
	if err := c.WriteText(stdout); err != nil {
		return fail(exitFailed, "%v", err)
	}
	if out != "" {
		if err := html.WriteCheckComparison(out, c, buildVersion()); err != nil {
			return fail(exitFailed, "%v", err)
		}
		fmt.Fprintf(stdout, "\ncomparison: %s\n", out)
	}
	return true, exitOK
}

// compareRerun compares the published folder with its rerun, prints it to w and writes it
// into the rerun's folder (comparison.txt, comparison.html), so the answer to "did I get
// the same numbers" travels with the folder. The reproduction of the published effects
// ends what w shows and leads the files; its record goes into the rerun's folder, and into
// the published folder's reproductions/ with record (rerun --record).
func compareRerun(published, rerun string, record bool, w io.Writer) error {
	var runs []*results.Run
	for _, d := range []string{published, rerun} {
		r, err := results.Load(d)
		if err != nil {
			return err
		}
		for _, warning := range r.Warnings {
			fmt.Fprintf(w, "warning: %s\n", warning)
		}
		runs = append(runs, r)
	}
	c := compare.Compare(runs, nil)
	reps := reproductions(runs)
	var text, verdicts bytes.Buffer
	if err := c.WriteText(&text); err != nil {
		return err
	}
	if err := writeReproductions(&verdicts, reps); err != nil {
		return err
	}
	if _, err := w.Write(text.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if _, err := w.Write(verdicts.Bytes()); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(rerun, results.ComparisonText), append(verdicts.Bytes(), text.Bytes()...)); err != nil {
		return err
	}
	page := filepath.Join(rerun, results.ComparisonPage)
	if err := html.WriteComparison(page, c, buildVersion()); err != nil {
		return err
	}
	fmt.Fprintf(w, "comparison: %s\n", page)
	if reps[0] == nil {
		if record {
			fmt.Fprintf(w, "no reproduction record: %s states no effect (no matrix axis of two values)\n", published)
		}
		return nil
	}
	return writeRecord(reps[0], rerun, record, w)
}
