package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/results/noise"
)

// TableChange is a kind's table lined up across runs as its declaration says
// (measure.TableCompare): compare knows no kind's file or column.
type TableChange struct {
	// Table is the table's declaration, the first run's that lines it up.
	Table measure.Table
	Rows  []RowChange
}

// RowChange is one row of a kind's table in one cell, across runs: its value (the median
// over the cell's repeats) and count per run, NaN where a run has not the row.
type RowChange struct {
	Cell, ID, Text string
	Value          []float64
	Count          []float64 // NaN throughout when the table declares no count
	Change         []float64 // % of Value against the first run; Change[0] is 0
}

// lineUpTables lines up every table the runs declare for comparison, in the first run's
// order of declaration, then those only later runs declare.
func lineUpTables(runs []*results.Run) []TableChange {
	var out []TableChange
	at := map[string]int{} // file -> index in out
	for _, run := range runs {
		for _, t := range run.Info.Tables {
			if _, ok := at[t.File]; ok || t.Compare == nil || t.Compare.Row == "" || t.Compare.Value == "" {
				continue
			}
			at[t.File] = len(out)
			out = append(out, TableChange{Table: t})
		}
	}
	for i := range out {
		out[i].Rows = lineUp(runs, out[i].Table.File)
	}
	kept := out[:0]
	for _, t := range out {
		if len(t.Rows) > 0 {
			kept = append(kept, t)
		}
	}
	return kept
}

// declared is run's declaration of the table file when it lines it up.
func declared(run *results.Run, file string) *measure.TableCompare {
	for _, t := range run.Info.Tables {
		if t.File == file {
			return t.Compare
		}
	}
	return nil
}

// lineUp lines up the runs' rows of the table file by cell and row id, each run read by its
// own declaration, in the first run's order (a kind's table puts its top rows first), then
// those only later runs have.
func lineUp(runs []*results.Run, file string) []RowChange {
	index := map[string]int{}
	var out []RowChange
	for ri, run := range runs {
		decl := declared(run, file)
		F := run.Table(file)
		if decl == nil || len(F.Rows) == 0 {
			continue
		}
		cells := map[string]string{} // iteration@target -> cell key
		for i := range run.Summary.Rows {
			cells[run.Summary.Value(i, results.ColIteration)+"@"+run.Summary.Value(i, results.ColTarget)] = cellKey(run, i)
		}
		type acc struct{ value, count []float64 }
		got := map[int]*acc{}
		for i := range F.Rows {
			cell, ok := cells[F.Value(i, results.ColIteration)+"@"+F.Value(i, results.ColTarget)]
			if !ok {
				continue // an iteration without a summary row (interrupted) is not compared
			}
			id := F.Value(i, decl.Row)
			k := cell + "\x00" + id
			j, ok := index[k]
			if !ok {
				j = len(out)
				index[k] = j
				out = append(out, newRowChange(cell, id, text(F, i, decl.Text), len(runs)))
			}
			a := got[j]
			if a == nil {
				a = &acc{}
				got[j] = a
			}
			if v, ok := F.Float(i, decl.Value); ok {
				a.value = append(a.value, v)
			}
			if v, ok := F.Float(i, decl.Count); ok && decl.Count != "" {
				a.count = append(a.count, v)
			}
		}
		for j, a := range got {
			if len(a.value) > 0 {
				out[j].Value[ri] = noise.Median(a.value)
			}
			if len(a.count) > 0 {
				out[j].Count[ri] = noise.Median(a.count)
			}
		}
	}
	for i := range out {
		for ri := range runs {
			out[i].Change[ri] = Change(out[i].Value[0], out[i].Value[ri])
		}
	}
	return out
}

func newRowChange(cell, id, text string, runs int) RowChange {
	r := RowChange{Cell: cell, ID: id, Text: text}
	for range runs {
		r.Value, r.Count, r.Change = append(r.Value, math.NaN()), append(r.Count, math.NaN()), append(r.Change, math.NaN())
	}
	return r
}

func text(d *results.Data, i int, col string) string {
	if col == "" {
		return ""
	}
	return d.Value(i, col)
}

// writeTables prints each lined-up table: its value per run and the change against the first.
func (c *Comparison) writeTables(w io.Writer) error {
	for _, t := range c.Tables {
		if err := c.writeTable(w, t); err != nil {
			return err
		}
	}
	return nil
}

func (c *Comparison) writeTable(w io.Writer, t TableChange) error {
	decl := t.Table.Compare
	what := decl.ValueWords()
	if u := t.Table.ComparedUnit(); u != "" {
		what += " " + u
	}
	fmt.Fprintf(w, "\n%s (%s per run, the median over repeats):\n", results.Printable(t.Table.CompareTitle()), results.Printable(what))
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	head := []string{"cell", results.Printable(decl.RowHead())}
	for i := range c.Runs {
		head = append(head, fmt.Sprintf("run %d %s", i+1, results.Printable(t.Table.ComparedName())))
		if decl.Count != "" {
			head = append(head, results.Printable(decl.Count))
		}
		if i > 0 {
			head = append(head, "Δ%")
		}
	}
	if decl.Text != "" {
		head = append(head, results.Printable(decl.TextHead()))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range t.Rows {
		row := []string{results.Printable(r.Cell), results.Printable(r.ID)}
		for i := range c.Runs {
			row = append(row, fmtNum(r.Value[i]))
			if decl.Count != "" {
				row = append(row, fmtNum(r.Count[i]))
			}
			if i > 0 {
				row = append(row, fmtChange(r.Change[i]))
			}
		}
		if decl.Text != "" {
			text := r.Text
			if len(text) > 80 {
				text = text[:77] + "..."
			}
			row = append(row, results.Printable(text))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}
