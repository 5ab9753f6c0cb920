package results

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// AppendTables adds the rows of the kinds' own tables an iteration's total holds
// (measure.Total.Rows), the iteration and target first, so the executor writes them without
// knowing which kind has which.
func (w *Writer) AppendTables(iteration int, target string, t *measure.Total) error {
	if t == nil {
		return nil
	}
	for _, file := range slices.Sorted(maps.Keys(t.Rows)) {
		if filepath.Base(file) != file || !strings.HasSuffix(file, ".csv") {
			return fmt.Errorf("a kind's table %q: not a NAME.csv of the folder", file)
		}
		if err := w.appendRows(file, TableRecords(iteration, target, t.Rows[file])); err != nil {
			return err
		}
	}
	return nil
}

// TableRecords lays out a kind's rows as records of its table, the iteration and target
// first.
func TableRecords(iteration int, target string, rows []measure.Row) []Record {
	recs := make([]Record, 0, len(rows))
	for _, row := range rows {
		r := Record{{ColIteration, strconv.Itoa(iteration)}, {ColTarget, target}}
		for _, c := range row {
			r.Add(c.Column, cell(c.Value))
		}
		recs = append(recs, r)
	}
	return recs
}

// cell writes a kind's value as the shared tables write theirs.
func cell(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return FormatFloat(x)
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// ErrorCodes writes errors by code as an errors_by_code cell: "1062:3 1213:1", by code.
func ErrorCodes(m map[int]int64) string {
	codes := make([]int, 0, len(m))
	for c := range m {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d:%d", c, m[c])
	}
	return strings.Join(parts, " ")
}

// AddErrorCodes adds an errors_by_code cell ("1062:3 1213:1") to m; a part that is not
// CODE:COUNT is skipped.
func AddErrorCodes(m map[int]int64, cell string) {
	for _, part := range strings.Fields(cell) {
		c, v, ok := strings.Cut(part, ":")
		code, err1 := strconv.Atoi(c)
		count, err2 := strconv.ParseInt(v, 10, 64)
		if ok && err1 == nil && err2 == nil {
			m[code] += count
		}
	}
}
