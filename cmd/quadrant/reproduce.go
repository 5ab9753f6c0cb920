package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/reporters/html"
	"github.com/quadrant-bench/quadrant/reporters/reproduce"
	"github.com/quadrant-bench/quadrant/results"
)

// reproductions are the verdicts of runs[1:] on the effects runs[0] states, one per later
// run (nil where runs[0] states none: no matrix).
func reproductions(runs []*results.Run) []*reproduce.Result {
	var out []*reproduce.Result
	for _, r := range runs[1:] {
		out = append(out, reproduce.Judge(runs[0], r))
	}
	return out
}

// writeReproductions prints each verdict that has effects, with a blank line after.
func writeReproductions(w io.Writer, reps []*reproduce.Result) error {
	for _, r := range reps {
		if r == nil {
			continue
		}
		if err := r.WriteText(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

// writeRecord writes r's reproduction record into each of dirs: into a rerun's folder as
// results.ReproductionFile; into the published folder's results.ReproductionsDir (intoPublished)
// under results.RecordName, where `quadrant report` of that folder finds it.
func writeRecord(r *reproduce.Result, rerunDir string, intoPublished bool, w io.Writer) error {
	rec, err := r.Record(buildVersion(), time.Now())
	if err != nil {
		return fmt.Errorf("reproduction record: %w", err)
	}
	if rerunDir != "" {
		p := filepath.Join(rerunDir, results.ReproductionFile)
		if err := results.WriteReproduction(p, rec); err != nil {
			return fmt.Errorf("reproduction record: %w", err)
		}
		fmt.Fprintf(w, "reproduction record: %s\n", p)
	}
	if intoPublished {
		p, err := results.RecordInto(r.Published.Dir, rec)
		if err != nil {
			return fmt.Errorf("reproduction record: %w", err)
		}
		fmt.Fprintf(w, "reproduction record: %s (commit it next to the folder)\n", p)
	}
	return nil
}

// printReproductions prints what the records in dir's reproductions/ found of each effect
// the folder states (nothing without records).
func printReproductions(run *results.Run, w, stderr io.Writer) error {
	recs, warnings := results.Reproductions(run.Dir)
	for _, warning := range warnings {
		fmt.Fprintf(stderr, "warning: %s\n", results.Printable(warning))
	}
	if len(recs) == 0 {
		return nil
	}
	claims, notes := reproduce.History(run, recs)
	return reproduce.WriteHistory(w, run.Dir, recs, claims, notes)
}

// reportAcross prints each effect across the folders of each plan that has two or more of
// them, and writes the page of the one plan to out when asked.
func reportAcross(dirs []string, out string, stdout, stderr io.Writer) int {
	var plans []string
	byPlan := map[string][]*results.Run{}
	for _, d := range dirs {
		r, err := results.Open(d)
		if err != nil {
			fmt.Fprintf(stderr, "quadrant report: %v\n", err)
			return exitInvalid
		}
		if _, ok := byPlan[r.Info.Plan]; !ok {
			plans = append(plans, r.Info.Plan)
		}
		byPlan[r.Info.Plan] = append(byPlan[r.Info.Plan], r)
	}
	var several []string
	for _, p := range plans {
		if len(byPlan[p]) > 1 {
			several = append(several, p)
		}
	}
	if out != "" && len(several) != 1 {
		fmt.Fprintf(stderr, "quadrant report: --out draws the effects of one plan across its folders; these folders are of %d plans with two folders or more (%s)\n",
			len(several), results.Printable(strings.Join(several, ", ")))
		return exitInvalid
	}
	for _, p := range several {
		runs := byPlan[p]
		series := reproduce.Across(runs)
		if err := reproduce.WriteAcross(stdout, p, runs, series); err != nil {
			fmt.Fprintf(stderr, "quadrant report: %v\n", err)
			return exitFailed
		}
		if out == "" {
			continue
		}
		if err := html.WriteAcross(out, p, runs, series, buildVersion()); err != nil {
			fmt.Fprintf(stderr, "quadrant report: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "\neffects across folders: %s\n", out)
	}
	return exitOK
}
