package measure

import "strings"

// Table is a workload kind's own table of figures, one file of the results folder beside
// the shared ones, declared by the kind (workload.Kind.Tables) and written into run.json,
// so that results reads, describes and merges it, and the report shows it, without
// knowing the kind.
type Table struct {
	// File is the table's file name in the folder ("NAME.csv").
	File string `json:"file"`
	// Title heads the table in the report.
	Title string `json:"title"`
	// Key are the columns that place a row (iteration and target first).
	Key []string `json:"key"`
	// Sort is the column the report and merge order a row's peers by, largest first;
	// Last, when set, is a value of the last key column ranked after every other.
	Sort string `json:"sort,omitempty"`
	Last string `json:"last,omitempty"`
	// Columns describe the table's columns, in their order.
	Columns []TableColumn `json:"columns"`
	// Compare, when set, has quadrant compare line the table's rows up across runs.
	Compare *TableCompare `json:"compare,omitempty"`
}

// TableCompare declares how quadrant compare lines a kind's table up across runs: a row of
// one run beside the same row of the others, in the same cell (the summary's rows of an
// iteration and target, its repeats together), with one value per run and its change
// against the first run. The names are the table's columns; the labels are the words
// compare shows, the column's name when empty.
type TableCompare struct {
	// Title heads the lined-up table ("Statement fingerprints"), followed by what is
	// compared; the table's Title when empty.
	Title string `json:"title,omitempty"`
	// Row is the column that identifies a row across runs besides the iteration and target
	// (a statement's fingerprint id); RowLabel heads it.
	Row      string `json:"row"`
	RowLabel string `json:"row_label,omitempty"`
	// Text is the column shown last as the row's text (the statement), the first run's
	// that has the row; TextLabel heads it. None when empty.
	Text      string `json:"text,omitempty"`
	TextLabel string `json:"text_label,omitempty"`
	// Value is the column compared, per run the median over the cell's repeats (a
	// fingerprint's replayed p95); ValueLabel says what it is in the title ("replayed p95").
	// Column heads name it by its name without its unit ("p95" of p95_ms).
	Value      string `json:"value"`
	ValueLabel string `json:"value_label,omitempty"`
	// Count is the column shown beside Value per run, the median over the repeats too (how
	// many statements the row counts); none when empty.
	Count string `json:"count,omitempty"`
}

// RowHead heads the column of the rows' ids: RowLabel, else Row.
func (c TableCompare) RowHead() string { return or(c.RowLabel, c.Row) }

// TextHead heads the column of the rows' text: TextLabel, else Text.
func (c TableCompare) TextHead() string { return or(c.TextLabel, c.Text) }

// ValueWords say what the value compared is, in a title: ValueLabel, else Value.
func (c TableCompare) ValueWords() string { return or(c.ValueLabel, c.Value) }

// CompareTitle heads the table lined up across runs: its comparison's Title, else its own.
func (t Table) CompareTitle() string {
	if t.Compare == nil {
		return t.Title
	}
	return or(t.Compare.Title, t.Title)
}

// ComparedUnit is the unit of the column its comparison compares.
func (t Table) ComparedUnit() string {
	if t.Compare == nil {
		return ""
	}
	c, _ := t.Column(t.Compare.Value)
	return c.Unit
}

// ComparedName is the name of the column its comparison compares without its unit ("p95"
// of p95_ms), what column heads call it.
func (t Table) ComparedName() string {
	if t.Compare == nil {
		return ""
	}
	if u := t.ComparedUnit(); u != "" {
		if s, ok := strings.CutSuffix(t.Compare.Value, "_"+u); ok && s != "" {
			return s
		}
	}
	return t.Compare.Value
}

func or(s, otherwise string) string {
	if s != "" {
		return s
	}
	return otherwise
}

// TableColumn is one column of a kind's table.
type TableColumn struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Unit        string `json:"unit,omitempty"`
	// Merge is how the shards' cells add up (quadrant merge): key, sum, max, empty,
	// codes, rank or histogram (results.Merge).
	Merge string `json:"merge"`
	// Histogram and Percentile, for a histogram column: the percentile of the histogram
	// tagged Histogram.VALUE, VALUE the row's last key column.
	Histogram  string  `json:"histogram,omitempty"`
	Percentile float64 `json:"percentile,omitempty"`
	// Better is which way the column improves; 0 when neither.
	Better Direction `json:"better,omitempty"`
}

// Column is the table's column of that name; ok false when it has none.
func (t Table) Column(name string) (TableColumn, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return TableColumn{}, false
}

// Row is one row of a kind's table, without the iteration and target results puts first.
type Row []Cell

// Cell is one column's value: an int64, a float64 (NaN and ±Inf written empty) or a string.
type Cell struct {
	Column string
	Value  any
}

// Add appends a cell.
func (r *Row) Add(column string, value any) { *r = append(*r, Cell{column, value}) }
