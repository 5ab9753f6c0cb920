package merge

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// rowsOf are d's rows of one iteration and target, as maps, one slice per shard.
func rowsOf(shards []shardRun, pick func(*results.Run) *results.Data, index int, target string) ([]string, [][]map[string]string) {
	var header []string
	seen := map[string]bool{}
	out := make([][]map[string]string, len(shards))
	for k, s := range shards {
		d := pick(s.run)
		if d == nil {
			continue
		}
		for _, h := range d.Header {
			if !seen[h] {
				seen[h] = true
				header = append(header, h)
			}
		}
		for i := range d.Rows {
			if d.Value(i, results.ColIteration) != strconv.Itoa(index) || d.Value(i, results.ColTarget) != target {
				continue
			}
			row := map[string]string{}
			for c, h := range d.Header {
				row[h] = d.Rows[i][c]
			}
			out[k] = append(out[k], row)
		}
	}
	return header, out
}

// mergeTables adds up the workloads' own tables of an iteration; today a replay's, the
// shards' replay.csv and fingerprints.csv rows: each shard replayed whole sessions of its
// own and counted the captured figures of those, so
// every count is the shards' sum; a fingerprint's replayed percentiles come from its merged
// tx.ID histogram (measured, by tag). What no folder keeps a histogram of (the captured
// durations' percentiles, the schedule lag) is left empty rather than guessed.
func mergeTables(w *results.Writer, shards []shardRun, index int, target string, measured map[string]*measure.Histogram) error {
	header, perShard := rowsOf(shards, func(r *results.Run) *results.Data { return r.Replay }, index, target)
	var rows []map[string]string
	for _, rs := range perShard {
		rows = append(rows, rs...)
	}
	if len(rows) == 0 {
		return nil
	}
	var rec results.Record
	for _, h := range header {
		switch results.Describe(results.ReplayCSV, h).Merge {
		case results.MergeKey:
			rec.Add(h, rows[0][h])
		case results.MergeEmpty:
			rec.Add(h, "")
		case results.MergeMax:
			rec.Add(h, maxCell(h, rows)) // of one session: the shards' largest
		default:
			rec.Add(h, sumCells(h, rows))
		}
	}
	fpHeader, fpShards := rowsOf(shards, func(r *results.Run) *results.Data { return r.Fingerprints }, index, target)
	byID := map[string][]map[string]string{}
	var ids []string
	for _, rs := range fpShards {
		for _, r := range rs {
			id := r[results.ColFingerprintID]
			if _, ok := byID[id]; !ok {
				ids = append(ids, id)
			}
			byID[id] = append(byID[id], r)
		}
	}
	total := func(id string) float64 {
		v, _ := strconv.ParseFloat(sumCells(results.ColTotalMs, byID[id]), 64)
		return v
	}
	slices.SortStableFunc(ids, func(a, b string) int {
		if (a == results.OtherFingerprint) != (b == results.OtherFingerprint) {
			if a == results.OtherFingerprint {
				return 1
			}
			return -1
		}
		return cmp.Compare(total(b), total(a))
	})
	var fps []results.Record
	for rank, id := range ids {
		rs := byID[id]
		var r results.Record
		for _, col := range fpHeader {
			c := results.Describe(results.FingerprintsCSV, col)
			switch c.Merge {
			case results.MergeKey:
				r.Add(col, firstCell(col, rs))
			case results.MergeRank:
				r.AddInt(col, int64(rank+1))
			case results.MergeCodes:
				r.Add(col, sumCodes(col, rs))
			case results.MergeHistogram:
				if h := measured[results.HistogramTag(c.Histogram, id)]; h != nil && h.Count() > 0 {
					r.AddFloat(col, measure.Ms(h.Percentile(c.Percentile)))
				} else {
					r.Add(col, "")
				}
			case results.MergeEmpty:
				r.Add(col, "")
			default:
				r.Add(col, sumCells(col, rs))
			}
		}
		fps = append(fps, r)
	}
	return w.AppendReplayRecords(rec, fps)
}

// sumCells is the sum of a column's numbers; empty when none has one.
func sumCells(h string, rows []map[string]string) string {
	sum, ok := 0.0, false
	for _, r := range rows {
		if v, err := strconv.ParseFloat(r[h], 64); err == nil {
			sum, ok = sum+v, true
		}
	}
	if !ok {
		return ""
	}
	return results.FormatFloat(sum)
}

// sumCodes adds errors_by_code cells ("1062:3 1213:1") of column h up.
func sumCodes(h string, rows []map[string]string) string {
	n := map[int]int64{}
	for _, r := range rows {
		results.AddErrorCodes(n, r[h])
	}
	return results.ErrorCodes(n)
}
