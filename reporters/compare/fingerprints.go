package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/noise"
)

// FingerprintChange is one replayed statement fingerprint in one cell, across runs: its p95
// (the median over the cell's repeats) and count per run, NaN where a run did not replay it.
type FingerprintChange struct {
	Cell, ID, Text string
	P95            []float64 // ms per run
	Count          []float64 // per run
	Change         []float64 // % of P95 against the first run; Change[0] is 0
}

// fingerprints lines up the runs' fingerprints.csv rows by cell and fingerprint id, in the
// first run's order (its top fingerprints by time first), then those only later runs have.
func fingerprints(runs []*results.Run) []FingerprintChange {
	index := map[string]int{}
	var out []FingerprintChange
	for ri, run := range runs {
		F := run.Table(results.FingerprintsFile)
		if F == nil || len(F.Rows) == 0 {
			continue
		}
		cells := map[string]string{} // iteration@target -> cell key
		for i := range run.Summary.Rows {
			cells[run.Summary.Value(i, results.ColIteration)+"@"+run.Summary.Value(i, results.ColTarget)] = cellKey(run, i)
		}
		type acc struct{ p95, count []float64 }
		got := map[int]*acc{}
		for i := range F.Rows {
			cell, ok := cells[F.Value(i, results.ColIteration)+"@"+F.Value(i, results.ColTarget)]
			if !ok {
				continue // an iteration without a summary row (interrupted) is not compared
			}
			id := F.Value(i, results.ColFingerprintID)
			k := cell + "\x00" + id
			j, ok := index[k]
			if !ok {
				j = len(out)
				index[k] = j
				fc := FingerprintChange{Cell: cell, ID: id, Text: F.Value(i, results.ColFingerprint)}
				for range runs {
					fc.P95, fc.Count, fc.Change = append(fc.P95, math.NaN()), append(fc.Count, math.NaN()), append(fc.Change, math.NaN())
				}
				out = append(out, fc)
			}
			a := got[j]
			if a == nil {
				a = &acc{}
				got[j] = a
			}
			if v, ok := F.Float(i, results.ColFingerprintP95); ok {
				a.p95 = append(a.p95, v)
			}
			if v, ok := F.Float(i, results.ColCount); ok {
				a.count = append(a.count, v)
			}
		}
		for j, a := range got {
			if len(a.p95) > 0 {
				out[j].P95[ri] = noise.Median(a.p95)
			}
			if len(a.count) > 0 {
				out[j].Count[ri] = noise.Median(a.count)
			}
		}
	}
	for i := range out {
		for ri := range runs {
			out[i].Change[ri] = Change(out[i].P95[0], out[i].P95[ri])
		}
	}
	return out
}

// writeFingerprints prints the fingerprints' p95 per run and its change against the first.
func (c *Comparison) writeFingerprints(w io.Writer) error {
	if len(c.Fingerprints) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nStatement fingerprints (replayed p95 ms per run, the median over repeats):")
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	head := []string{"cell", results.ColFingerprint}
	for i := range c.Runs {
		head = append(head, fmt.Sprintf("run %d p95", i+1), results.ColCount)
		if i > 0 {
			head = append(head, "Δ%")
		}
	}
	fmt.Fprintln(tw, strings.Join(append(head, "statement"), "\t"))
	for _, f := range c.Fingerprints {
		row := []string{f.Cell, f.ID}
		for i := range c.Runs {
			row = append(row, fmtNum(f.P95[i]), fmtNum(f.Count[i]))
			if i > 0 {
				row = append(row, fmtChange(f.Change[i]))
			}
		}
		text := f.Text
		if len(text) > 80 {
			text = text[:77] + "..."
		}
		fmt.Fprintln(tw, strings.Join(append(row, text), "\t"))
	}
	return tw.Flush()
}
