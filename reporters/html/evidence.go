package html

import (
	_ "embed"
	"math"
	"sort"
	"strconv"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
)

//go:embed assets/evidence.js
var evidenceJS string

// evidenceData is "where the time went", drawn by evidence.js: per iteration and target the
// cost per transaction columns, the top statement classes (digests.csv) and wait events
// (waits.csv); for a matrix, the same side by side across cells.
type evidenceData struct {
	Iterations []evidenceIter `json:"iterations"`
	Cells      []string       `json:"cells,omitempty"`
	Rows       []evidenceRow  `json:"rows,omitempty"`
	// Error says why digests.csv or waits.csv could not be read: the rest of the report stands.
	Error string `json:"error,omitempty"`
}

type evidenceIter struct {
	Iteration    int                `json:"iteration"`
	Target       string             `json:"target"`
	Transactions float64            `json:"transactions,omitempty"`
	Costs        map[string]float64 `json:"costs,omitempty"`
	Digests      []digestJSON       `json:"digests,omitempty"`
	Waits        []waitJSON         `json:"waits,omitempty"`
}

type digestJSON struct {
	Rank         int     `json:"rank"`
	Schema       string  `json:"schema,omitempty"`
	Text         string  `json:"text"`
	Count        int64   `json:"count"`
	TotalMs      float64 `json:"total_ms"`
	AvgMs        float64 `json:"avg_ms"`
	RowsExamined int64   `json:"rows_examined"`
	RowsSent     int64   `json:"rows_sent"`
	NoIndexUsed  int64   `json:"no_index_used"`
	Errors       int64   `json:"errors"`
}

type waitJSON struct {
	Rank    int     `json:"rank"`
	Event   string  `json:"event"`
	Count   int64   `json:"count"`
	TotalMs float64 `json:"total_ms"`
	AvgUs   float64 `json:"avg_us"`
}

type evidenceRow struct {
	Kind   string     `json:"kind"`
	Name   string     `json:"name"`
	Unit   string     `json:"unit"`
	Values []*float64 `json:"values"` // per cell, null where it has none
}

// whereTimeWent gathers the folder's evidence; nil when it has no cost column, digest or wait.
func whereTimeWent(run *results.Run) (*evidenceData, error) {
	d := &evidenceData{}
	byKey := map[string]*evidenceIter{}
	get := func(iteration int, target string) *evidenceIter {
		k := strconv.Itoa(iteration) + " " + target
		if byKey[k] == nil {
			byKey[k] = &evidenceIter{Iteration: iteration, Target: target}
		}
		return byKey[k]
	}
	S := run.Summary
	var costs []string
	for _, h := range S.Header {
		if run.Describe(results.SummaryCSV, h).IsCost() {
			costs = append(costs, h)
		}
	}
	for i := range S.Rows {
		it, err := strconv.Atoi(S.Value(i, results.ColIteration))
		if err != nil {
			continue
		}
		for _, c := range costs {
			if v, ok := S.Float(i, c); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
				e := get(it, S.Value(i, results.ColTarget))
				if e.Costs == nil {
					e.Costs = map[string]float64{}
				}
				e.Costs[c] = v
			}
		}
	}
	digests, err := results.ReadDigests(run.Dir)
	if err != nil {
		return nil, err
	}
	for _, r := range digests {
		e := get(r.Iteration, r.Target)
		e.Digests = append(e.Digests, digestJSON{Rank: r.Rank, Schema: r.Schema, Text: r.Text, Count: r.Count, TotalMs: r.TotalMs,
			AvgMs: r.AvgMs, RowsExamined: r.RowsExamined, RowsSent: r.RowsSent, NoIndexUsed: r.NoIndexUsed, Errors: r.Errors})
	}
	waits, err := results.ReadWaits(run.Dir)
	if err != nil {
		return nil, err
	}
	for _, r := range waits {
		e := get(r.Iteration, r.Target)
		e.Waits = append(e.Waits, waitJSON{Rank: r.Rank, Event: r.Event, Count: r.Count, TotalMs: r.TotalMs, AvgUs: r.AvgUs})
	}
	if len(byKey) == 0 {
		return nil, nil
	}
	for i := range S.Rows { // transactions, to put digests and waits per transaction
		it, _ := strconv.Atoi(S.Value(i, results.ColIteration))
		if e := byKey[strconv.Itoa(it)+" "+S.Value(i, results.ColTarget)]; e != nil {
			if tx, ok := S.Float(i, results.Transactions(results.SummaryCSV)); ok && tx > 0 {
				e.Transactions = tx
			}
		}
	}
	for _, e := range byKey {
		d.Iterations = append(d.Iterations, *e)
	}
	sort.Slice(d.Iterations, func(i, j int) bool {
		a, b := d.Iterations[i], d.Iterations[j]
		if a.Iteration != b.Iteration {
			return a.Iteration < b.Iteration
		}
		return a.Target < b.Target
	})
	if len(run.Info.Axes) > 0 {
		order, cells, err := compare.RunEvidence(run)
		if err != nil {
			return nil, err
		}
		if len(order) > 1 {
			cols := make([]*compare.Evidence, len(order))
			for i, k := range order {
				cols[i] = cells[k]
			}
			d.Cells = order
			for _, r := range compare.SideBySide(cols, compare.EvidenceTop) {
				d.Rows = append(d.Rows, evidenceRowOf(r))
			}
		}
	}
	return d, nil
}

// evidenceRowOf is a side-by-side row for the page: an unknown value (NaN) is null.
func evidenceRowOf(r compare.EvidenceRow) evidenceRow {
	row := evidenceRow{Kind: r.Kind, Name: r.Name, Unit: r.Unit}
	for _, v := range r.Values {
		if math.IsNaN(v) {
			row.Values = append(row.Values, nil)
		} else {
			row.Values = append(row.Values, &v)
		}
	}
	return row
}
