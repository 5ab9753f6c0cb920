package html

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
)

// ownTable is a workload's own table on the page: its title, a class from its file name
// and its rows.
type ownTable struct {
	Title string `json:"title"`
	Class string `json:"class"`
	dataTable
}

// ownTables are the tables run.json declares that the folder has rows of, each sorted by
// its declared column, largest first (stable, so the file's order breaks ties), the rows
// whose last key is the declared Last after the others.
func ownTables(run *results.Run) []ownTable {
	var out []ownTable
	for _, t := range run.Info.Tables {
		d := run.Table(t.File)
		if len(d.Rows) == 0 {
			continue
		}
		rows := slices.Clone(d.Rows)
		if i := slices.Index(d.Header, t.Sort); t.Sort != "" && i >= 0 {
			last := -1
			if len(t.Key) > 0 {
				last = slices.Index(d.Header, t.Key[len(t.Key)-1])
			}
			isLast := func(r []string) bool { return t.Last != "" && last >= 0 && r[last] == t.Last }
			slices.SortStableFunc(rows, func(a, b []string) int {
				if la, lb := isLast(a), isLast(b); la != lb {
					if la {
						return 1
					}
					return -1
				}
				x, _ := strconv.ParseFloat(a[i], 64)
				y, _ := strconv.ParseFloat(b[i], 64)
				return cmp.Compare(y, x)
			})
		}
		out = append(out, ownTable{Title: t.Title, Class: strings.TrimSuffix(t.File, ".csv"), dataTable: dataTable{d.Header, rows}})
	}
	return out
}
