package html

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// ownTable is a workload's own table on the page: its title, a class from its file name
// and its rows; when it declares a comparison, its value per row across iterations too.
type ownTable struct {
	Title   string       `json:"title"`
	Class   string       `json:"class"`
	Compare *pageCompare `json:"compare,omitempty"`
	dataTable
}

// pageCompare is how the page lines a table's rows up across iterations: the columns of its
// comparison (measure.TableCompare) and the words that head them.
type pageCompare struct {
	Row       string `json:"row"`
	RowHead   string `json:"row_head"`
	Text      string `json:"text,omitempty"`
	TextHead  string `json:"text_head,omitempty"`
	Value     string `json:"value"`
	ValueName string `json:"value_name"`
}

func pageCompareOf(t measure.Table) *pageCompare {
	c := t.Compare
	if c == nil || c.Row == "" || c.Value == "" {
		return nil
	}
	return &pageCompare{Row: c.Row, RowHead: c.RowHead(), Text: c.Text, TextHead: c.TextHead(), Value: c.Value, ValueName: t.ComparedName()}
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
		out = append(out, ownTable{Title: t.Title, Class: strings.TrimSuffix(t.File, ".csv"), Compare: pageCompareOf(t), dataTable: dataTable{d.Header, rows}})
	}
	return out
}
