package compare

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/noise"
)

// Evidence is where one run's time went in one cell: the medians over its repeats of the cost
// per transaction columns, and of each statement class's and wait event's time per transaction.
type Evidence struct {
	Costs   map[string]float64 // cost.* column -> its value
	Digests map[string]float64 // statement class (digest text, with its schema) -> µs per transaction
	Waits   map[string]float64 // wait event -> µs per transaction
}

// Kinds of EvidenceRow.
const (
	CostRow   = "cost"
	DigestRow = "statement"
	WaitRow   = "wait"
)

// EvidenceRow is one line of a side-by-side of Evidence: a cost, a statement class or a wait
// event, with its value per column (a run, or a matrix cell); NaN where it has none.
type EvidenceRow struct {
	Kind   string
	Name   string
	Unit   string
	Values []float64
}

// CellEvidence is where the time went in one cell of a comparison, run by run.
type CellEvidence struct {
	Key  string
	Rows []EvidenceRow
}

// EvidenceTop is how many statement classes and wait events a side-by-side keeps: those with
// the most time per transaction in any column.
const EvidenceTop = 5

// RunEvidence reads the cost columns of run's summary and its digests.csv and waits.csv, and
// gathers them per cell (keys as Cell.Key), in the summary's order. Interrupted iterations are
// left out, as in the verdicts.
func RunEvidence(run *results.Run) ([]string, map[string]*Evidence, error) {
	S := run.Summary
	var costs []string
	for _, h := range S.Header {
		if run.Describe(results.SummaryCSV, h).IsCost() {
			costs = append(costs, h)
		}
	}
	type place struct {
		key string
		tx  float64
	}
	at := map[string]place{} // "iteration target" -> its cell and transactions
	var order []string
	samples := map[string]map[string][]float64{} // cell -> "kind\x00name" -> per repeat
	add := func(key, kind, name string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		if samples[key] == nil {
			samples[key] = map[string][]float64{}
		}
		samples[key][kind+"\x00"+name] = append(samples[key][kind+"\x00"+name], v)
	}
	for i := range S.Rows {
		if st := S.Value(i, results.ColStatus); st == results.StatusInterrupted || st == results.StatusSkipped {
			continue
		}
		key := cellKey(run, i)
		if _, ok := samples[key]; !ok {
			samples[key] = map[string][]float64{}
			order = append(order, key)
		}
		tx, ok := S.Float(i, results.Transactions(results.SummaryCSV))
		if !ok {
			tx = math.NaN()
		}
		at[S.Value(i, results.ColIteration)+" "+S.Value(i, results.ColTarget)] = place{key, tx}
		for _, c := range costs {
			if v, ok := S.Float(i, c); ok {
				add(key, CostRow, c, v)
			}
		}
	}
	digests, err := results.ReadDigests(run.Dir)
	if err != nil {
		return nil, nil, err
	}
	// A statement class's figures, summed over its rows of one iteration (one per schema and digest).
	perIt := map[string]map[string]float64{}
	sum := func(kind string, iteration int, target, name string, ms float64) {
		p, ok := at[strconv.Itoa(iteration)+" "+target]
		if !ok || !(p.tx > 0) {
			return
		}
		k := strconv.Itoa(iteration) + " " + target
		if perIt[k] == nil {
			perIt[k] = map[string]float64{}
		}
		perIt[k][kind+"\x00"+name] += ms * 1000 / p.tx
	}
	for _, d := range digests {
		sum(DigestRow, d.Iteration, d.Target, statementName(d), d.TotalMs)
	}
	waits, err := results.ReadWaits(run.Dir)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range waits {
		sum(WaitRow, w.Iteration, w.Target, w.Event, w.TotalMs)
	}
	for k, vals := range perIt {
		key := at[k].key
		for name, v := range vals {
			kind, n, _ := strings.Cut(name, "\x00")
			add(key, kind, n, v)
		}
	}
	out := map[string]*Evidence{}
	for key, s := range samples {
		ev := &Evidence{Costs: map[string]float64{}, Digests: map[string]float64{}, Waits: map[string]float64{}}
		for name, v := range s {
			kind, n, _ := strings.Cut(name, "\x00")
			switch kind {
			case CostRow:
				ev.Costs[n] = noise.Median(v)
			case DigestRow:
				ev.Digests[n] = noise.Median(v)
			case WaitRow:
				ev.Waits[n] = noise.Median(v)
			}
		}
		out[key] = ev
	}
	return order, out, nil
}

// statementName is how a statement class reads and lines up across runs: its text, and its
// schema when it has one (digest hashes differ between server versions; the text does not).
func statementName(d results.DigestRow) string {
	text := strings.Join(strings.Fields(d.Text), " ")
	if text == "" {
		text = d.Digest
	}
	if d.Schema != "" {
		return d.Schema + ": " + text
	}
	return text
}

// SideBySide lines up Evidence column by column (nil: the column has none): every cost, then
// the statement classes and the wait events with the most time per transaction in any column,
// at most top of each.
func SideBySide(cols []*Evidence, top int) []EvidenceRow {
	var out []EvidenceRow
	pick := func(kind, unit string, of func(*Evidence) map[string]float64, limit int) {
		largest := map[string]float64{}
		for _, e := range cols {
			if e == nil {
				continue
			}
			for n, v := range of(e) {
				if cur, ok := largest[n]; !ok || v > cur {
					largest[n] = v
				}
			}
		}
		names := make([]string, 0, len(largest))
		for n := range largest {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool {
			if kind == CostRow { // the metric table's order is by name here: stable and short
				return names[i] < names[j]
			}
			if largest[names[i]] != largest[names[j]] {
				return largest[names[i]] > largest[names[j]]
			}
			return names[i] < names[j]
		})
		if limit > 0 && len(names) > limit {
			names = names[:limit]
		}
		for _, n := range names {
			r := EvidenceRow{Kind: kind, Name: n, Unit: unit}
			for _, e := range cols {
				v := math.NaN()
				if e != nil {
					if x, ok := of(e)[n]; ok {
						v = x
					}
				}
				r.Values = append(r.Values, v)
			}
			out = append(out, r)
		}
	}
	pick(CostRow, "per transaction", func(e *Evidence) map[string]float64 { return e.Costs }, 0)
	pick(DigestRow, "µs per transaction", func(e *Evidence) map[string]float64 { return e.Digests }, top)
	pick(WaitRow, "µs per transaction", func(e *Evidence) map[string]float64 { return e.Waits }, top)
	return out
}

// evidence lines up, per cell of c, where each run's time went; a folder whose digests or waits
// cannot be read gets a note.
func (c *Comparison) evidence() {
	perRun := make([]map[string]*Evidence, len(c.Runs))
	for i, r := range c.Runs {
		_, ev, err := RunEvidence(r)
		if err != nil {
			c.Notes = append(c.Notes, fmt.Sprintf("where the time went: %s: %v", r.Dir, err))
			continue
		}
		perRun[i] = ev
	}
	for _, cell := range c.Cells {
		cols := make([]*Evidence, len(c.Runs))
		for i := range c.Runs {
			if perRun[i] != nil {
				cols[i] = perRun[i][cell.Key]
			}
		}
		if rows := SideBySide(cols, EvidenceTop); len(rows) > 0 {
			c.Evidence = append(c.Evidence, CellEvidence{Key: cell.Key, Rows: rows})
		}
	}
}

// writeEvidence prints, per cell, the throughput's verdict and beside it each run's costs per
// transaction and top statement classes and waits, with their change against the first run.
func (c *Comparison) writeEvidence(w io.Writer) error {
	if len(c.Evidence) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nWhere the time went (per transaction; medians of the repeats):")
	throughput := results.Throughput()
	for _, ce := range c.Evidence {
		line := "\n" + ce.Key
		for _, cell := range c.Cells {
			if cell.Key == ce.Key {
				for i := 1; i < len(c.Runs); i++ {
					if v := cell.Verdicts[throughput]; len(v) > i && v[i].Text != "" {
						line += fmt.Sprintf("; %s run %d vs run 1: %s", throughput, i+1, v[i].Text)
					}
				}
			}
		}
		fmt.Fprintln(w, line)
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
		head := []string{"  ", "unit"}
		for i := range c.Runs {
			head = append(head, fmt.Sprintf("run %d", i+1))
			if i > 0 {
				head = append(head, "Δ%")
			}
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, r := range ce.Rows {
			name := r.Name
			if r.Kind != CostRow {
				name = r.Kind + " " + clip(name, 60)
			}
			row := []string{"  " + name, r.Unit}
			for i, v := range r.Values {
				row = append(row, fmtNum(v))
				if i > 0 {
					row = append(row, fmtChange(Change(r.Values[0], v)))
				}
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
