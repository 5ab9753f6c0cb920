package merge

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

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

// mergeTables merges the workloads' own tables of an iteration, each as the leader's
// run.json declares it (measure.Table): the shards' rows of one key become one row, each
// column merged by its declared rule; a percentile comes from the merged histogram its
// declaration names (measured, by tag).
func mergeTables(w *results.Writer, shards []shardRun, index int, target string, measured map[string]*measure.Histogram) error {
	lead := shards[0].run
	for _, t := range lead.Info.Tables {
		recs := mergeTable(lead, t, shards, index, target, measured)
		if len(recs) == 0 {
			continue
		}
		if err := w.AppendTableRows(t.File, recs); err != nil {
			return err
		}
	}
	return nil
}

// mergeTable is table t's merged rows of an iteration and target, one per key, ordered
// (and ranked) by the declared sort column's sum, largest first, the Last key after all.
func mergeTable(lead *results.Run, t measure.Table, shards []shardRun, index int, target string, measured map[string]*measure.Histogram) []results.Record {
	header, perShard := rowsOf(shards, func(r *results.Run) *results.Data { return r.Table(t.File) }, index, target)
	byKey := map[string][]map[string]string{}
	var keys []string
	last := func(r map[string]string) string {
		if len(t.Key) == 0 {
			return ""
		}
		return r[t.Key[len(t.Key)-1]]
	}
	for _, rs := range perShard {
		for _, r := range rs {
			parts := make([]string, len(t.Key))
			for i, k := range t.Key {
				parts[i] = r[k]
			}
			key := strings.Join(parts, "\x00")
			if _, ok := byKey[key]; !ok {
				keys = append(keys, key)
			}
			byKey[key] = append(byKey[key], r)
		}
	}
	if t.Sort != "" {
		sortKeys(keys, byKey, t, last)
	}
	var recs []results.Record
	for rank, key := range keys {
		rs := byKey[key]
		var r results.Record
		for _, col := range header {
			r.Add(col, mergeCell(lead.DescribeTable(t.File, col), rank, last(rs[0]), rs, measured))
		}
		recs = append(recs, r)
	}
	return recs
}

// sortKeys orders the keys by the sum of t's sort column over their rows, largest first,
// the key whose last column is t.Last after every other.
func sortKeys(keys []string, byKey map[string][]map[string]string, t measure.Table, last func(map[string]string) string) {
	total := func(key string) float64 {
		v, _ := strconv.ParseFloat(sumCells(t.Sort, byKey[key]), 64)
		return v
	}
	isLast := func(key string) bool { return t.Last != "" && last(byKey[key][0]) == t.Last }
	slices.SortStableFunc(keys, func(a, b string) int {
		if la, lb := isLast(a), isLast(b); la != lb {
			if la {
				return 1
			}
			return -1
		}
		return cmp.Compare(total(b), total(a))
	})
}

// mergeCell is one merged cell of column c, for the rows rs of one key (ranked rank, its
// last key column id).
func mergeCell(c results.ColumnInfo, rank int, id string, rs []map[string]string, measured map[string]*measure.Histogram) string {
	switch c.Merge {
	case results.MergeKey:
		return firstCell(c.Name, rs)
	case results.MergeRank:
		return strconv.Itoa(rank + 1)
	case results.MergeCodes:
		return sumCodes(c.Name, rs)
	case results.MergeHistogram:
		if h := measured[results.HistogramTag(c.Histogram, id)]; h != nil && h.Count() > 0 {
			return results.FormatFloat(measure.Ms(h.Percentile(c.Percentile)))
		}
		return ""
	case results.MergeEmpty:
		return ""
	case results.MergeMax:
		return maxCell(c.Name, rs) // of one session: the shards' largest
	}
	return sumCells(c.Name, rs)
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
