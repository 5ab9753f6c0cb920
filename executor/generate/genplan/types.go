// Package genplan is a generate: step's settings as a plan (or quadrant generate
// --settings) writes them: their shape, how they are read and checked, every message at
// file:line:col, their plan reference and JSON Schema, what they need of the account, and
// the expressions their columns are made with. The generate step kind
// (executor/step/generate) and quadrant generate share it; executor/generate fills the
// tables. spec names none of it.
package genplan

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/parser"
	"go.yaml.in/yaml/v3"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/ddl"
	"github.com/quadrant-bench/quadrant/spec/pattern"
)

// Generate is a `generate:` step's body: the user's own tables filled with generated rows,
// keys included (see docs/generate.md). This package reads and checks it;
// executor/generate fills.
type Generate struct {
	Src      spec.Source    `yaml:"-" name:"generate"`
	Schema   string         `yaml:"schema" doc:"A file of CREATE TABLE statements (relative to the plan) run before filling; without it, the tables already on the target are filled."`
	Database string         `yaml:"database" doc:"The database whose tables are filled (default: the one the schema file ends in with USE, else the target DSN's)."`
	Seed     int64          `yaml:"seed" default:"1" doc:"The same seed, schema and settings give the same rows, whatever threads is."`
	Threads  int            `yaml:"threads" default:"1" min:"1" doc:"Connections loading each table, each a range of its rows."`
	Tables   GenerateTables `yaml:"tables,required" doc:"The tables to fill, by name, and how (see generate_table). Filled parents first, in the order of their foreign keys."`
	After    string         `yaml:"after" doc:"A SQL file (relative to the plan) run on one connection once every table is filled, in the database filled: add back a foreign key dropped to break a cycle, or anything else that must come after the rows."`
	Method   string         `yaml:"method" default:"auto" enum:"auto,insert,load_data" doc:"How rows reach the server: load_data streams them with LOAD DATA LOCAL INFILE (no file is written; the server's local_infile must be ON), insert sends multi-row INSERTs, auto uses LOAD DATA where local_infile is ON and INSERTs elsewhere, and logs which. The rows are the same either way."`

	// SchemaPath is Schema resolved against the plan's directory, AfterPath After.
	SchemaPath string `yaml:"-"`
	AfterPath  string `yaml:"-"`
	// Server is how validate reads the schema file's executable comments: the step's target's
	// sandbox flavor when the plan names one, else AnyServer.
	Server ddl.Server `yaml:"-"`
}

// GenerateTables are a generate step's tables in written order.
type GenerateTables []GenerateTable

// GenerateTable is how one table is filled.
type GenerateTable struct {
	Src        spec.Source        `yaml:"-" name:"generate table" def:"generate_table"`
	Name       string             `yaml:"-"`
	Rows       int64              `yaml:"rows" min:"0" doc:"How many rows the table gets (or per_parent). The table must be empty."`
	PerParent  *GeneratePerParent `yaml:"per_parent" doc:"Instead of rows: how many rows each row of a parent table gets, e.g. per_parent: {min: 5, max: 15} for 5 to 15 salaries per employee (see generate_per_parent)."`
	Columns    GenerateColumns    `yaml:"columns" doc:"Settings of some columns, by name (see generate_column); the others get values that look real for their type."`
	FromSample *GenerateRowSample `yaml:"from_sample" doc:"Draw some columns together from one row of real data, so values that go together stay together, e.g. from_sample: {table: prod.addresses, columns: [city, zip]} (see generate_row_sample)."`
	Time       string             `yaml:"time" doc:"The DATE, DATETIME or TIMESTAMP column that carries the rows' time: in a table whose primary key is one auto-increment column, the rows go in in its order, so ids follow time and one parent's rows are spread over the table as production's are. Default: found in a table with a foreign key (its first such column without expr, values, from_sample or distribution); none keeps the rows parent by parent."`
	NoOverlap  *GenerateNoOverlap `yaml:"no_overlap" doc:"Intervals of one entity that must not overlap, e.g. no_overlap: {entity: inventory_id, from: rental_date, to: return_date}: a copy is never rented twice at once (see generate_no_overlap)."`
}

// GenerateNoOverlap says the intervals [from, to) of the rows of one entity never overlap: each
// row's to is cut at the next row's from, and only the entity's last interval stays open (NULL).
type GenerateNoOverlap struct {
	Src    spec.Source `yaml:"-" name:"generate no_overlap" def:"generate_no_overlap"`
	Entity string      `yaml:"entity,required" doc:"The foreign key column whose rows' intervals must not overlap (inventory_id: a copy's rentals); the table's rows are laid out per its parent (per_parent: {parent: ...}, or a key that starts with it)."`
	From   string      `yaml:"from,required" doc:"The DATE, DATETIME or TIMESTAMP column where an interval starts."`
	To     string      `yaml:"to,required" doc:"The DATE, DATETIME or TIMESTAMP column where it ends (not included): generated by its own settings, then cut at the entity's next start; NULL (null_fraction) stays on the entity's last interval only."`
}

// GenerateRowSample draws a table's columns together: each generated row takes the values of
// one row of a sample of real data, so a city keeps its zip.
type GenerateRowSample struct {
	Src     spec.Source   `yaml:"-" name:"generate from_sample" def:"generate_row_sample"`
	Table   string        `yaml:"table,required" doc:"Where the rows come from, on the target: TABLE (in the database filled) or DB.TABLE."`
	Columns SampleColumns `yaml:"columns,required" doc:"The columns drawn together, by name: each is the sample's column of the same name."`
}

// SampleColumns are the columns a from_sample draws together, with where each is written.
type SampleColumns []SampleColumn

// SampleColumn is one column of a table-level from_sample.
type SampleColumn struct {
	Name string
	Pos  spec.Pos
}

// Names are the columns' names in written order.
func (cs SampleColumns) Names() []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// DecodeNode reads the column names listed, each with its position.
func (cs *SampleColumns) DecodeNode(d spec.Decoding, n *yaml.Node, name string) {
	items, ok := d.List(n, name)
	if !ok {
		return
	}
	for _, it := range items {
		if it.Kind != yaml.ScalarNode || it.Value == "" {
			d.Errorf(it, "%s lists column names, got %s", name, spec.DescribeNode(it))
			continue
		}
		*cs = append(*cs, SampleColumn{Name: it.Value, Pos: d.Pos(it)})
	}
}

// PlanSchema is a non-empty list of names.
func (SampleColumns) PlanSchema() map[string]any {
	return map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "string"}}
}

// GeneratePerParent gives a child table its rows per row of a parent: each parent row draws
// its count, and the table's rows are their sum.
type GeneratePerParent struct {
	Src          spec.Source `yaml:"-" name:"generate per_parent" def:"generate_per_parent"`
	Parent       string      `yaml:"parent" doc:"The parent table (one the table's foreign key references); default the only one it references."`
	Count        int64       `yaml:"count" min:"0" doc:"Each parent row gets exactly this many rows (instead of min and max)."`
	Min          int64       `yaml:"min" min:"0" doc:"Each parent row gets at least this many rows."`
	Max          int64       `yaml:"max" min:"0" doc:"Each parent row gets at most this many rows."`
	Distribution string      `yaml:"distribution" enum:"uniform,zipf,normal" doc:"How each parent's count is drawn between min and max: uniform (default), zipf (most parents few rows, a few many) or normal (around the middle)."`
}

// Range is the counts a parent row draws from.
func (pp *GeneratePerParent) Range() (lo, hi int64) {
	if pp.Src.Has("count") {
		return pp.Count, pp.Count
	}
	return pp.Min, pp.Max
}

// GenerateColumns are a table's column settings in written order.
type GenerateColumns []GenerateColumn

// GenerateColumn is how one column's values are drawn.
type GenerateColumn struct {
	Src          spec.Source `yaml:"-" name:"generate column" def:"generate_column"`
	Name         string      `yaml:"-"`
	Distribution string      `yaml:"distribution" enum:"uniform,zipf,normal,sequential" doc:"How values (or, for a foreign key, parent rows) are drawn: uniform, zipf (a few very frequent, exponent 1), normal (around the middle, sd a sixth of the range) or sequential (row by row). Default uniform."`
	Values       []string    `yaml:"values" doc:"The values to draw from (literals the server accepts for the column); on a foreign key column, keys of the parent's rows (film.language_id: {values: [1]}), checked before any row."`
	ValuesFile   string      `yaml:"values_file" doc:"A file of values (relative to the plan), one a line (blank lines skipped), instead of values: e.g. real department names for a unique column."`
	Weights      []float64   `yaml:"weights" doc:"With values: one relative weight per value, e.g. values: [new, paid, shipped], weights: [1, 3, 6]."`
	Min          Bound       `yaml:"min" doc:"Smallest value (a number, or a date 2024-01-31 / datetime for temporal columns)."`
	Max          Bound       `yaml:"max" doc:"Largest value, as min."`
	NullFraction float64     `yaml:"null_fraction" min:"0" doc:"Share of NULLs in a nullable column, 0 to 1."`
	Length       int         `yaml:"length" min:"0" doc:"Strings: their length (at most the column's)."`
	Pattern      string      `yaml:"pattern" doc:"Strings: a template, e.g. [A-Z]{2}-[0-9]{6} or {first_name}.{last_name}@example.com: literal text, character classes with a count, named generators (see docs/generate.md)."`
	Expr         spec.Expr   `yaml:"expr" doc:"Make the value from an expression over the same row's other columns (by name), its parent row's (parent.COLUMN, through the foreign key), line (the row's number among its parent's rows, from 0) and draws: uniform(a, b), normal(mean, sd), zipf(n), choice(x, y...), days(n), hours(n), minutes(n), seconds(n), date(\"2024-01-31\"); e.g. parent.hire_date + days(uniform(0, 3650)). On a foreign key column, only parent.COLUMN, where the parent's COLUMN is a foreign key to the same table (payment.customer_id: {expr: parent.customer_id}, the customer of the payment's rental) (see docs/generate.md)."`
	FromSample   string      `yaml:"from_sample" doc:"Draw the values with the frequencies of real data: TABLE, DB.TABLE (the same column) or DB.TABLE.COLUMN, read on the target: a sample of its rows, else its histogram (see docs/generate.md)."`

	// ValuesPath is ValuesFile resolved against the plan's directory, FileValues its lines.
	ValuesPath string   `yaml:"-"`
	FileValues []string `yaml:"-"`
}

// AllValues are the values listed: values:, else the lines of values_file:.
func (c *GenerateColumn) AllValues() []string {
	if len(c.Values) > 0 {
		return c.Values
	}
	return c.FileValues
}

// valuesAt is where the values are written: values:, else values_file:.
func (c *GenerateColumn) valuesAt() spec.Pos {
	if c.Src.Has("values_file") {
		return c.Src.At("values_file")
	}
	return c.Src.At("values")
}

// maxValuesFile bounds a values_file: a list of values, read whole at validate.
const maxValuesFile = 16 << 20

// readValues reads values_file: one value a line, blank lines skipped.
func (c *GenerateColumn) readValues(v *spec.Check, what string) {
	c.ValuesPath = v.Path(c.ValuesFile, c.Src.At("values_file"), "generate values_file")
	data, err := v.ReadFile(c.ValuesPath, maxValuesFile)
	switch {
	case err != nil:
		return // v.path said it is missing
	case data == nil:
		v.Errorf(c.Src.At("values_file"), "%s: values_file %s is larger than %d MiB; a list of values is far smaller", what, c.ValuesFile, maxValuesFile>>20)
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSuffix(line, "\r"); strings.TrimSpace(line) != "" {
			c.FileValues = append(c.FileValues, line)
		}
	}
	if len(c.FileValues) == 0 {
		v.Errorf(c.Src.At("values_file"), "%s: values_file %s has no value; write one a line", what, c.ValuesFile)
	}
}

// Bound is a min or max: a number, or a date or datetime for temporal columns, as written.
type Bound string

// PlanSchema is a number or a string (a date).
func (Bound) PlanSchema() map[string]any { return map[string]any{"type": []any{"number", "string"}} }

// PlanType is how the plan reference says a bound.
func (Bound) PlanType() string { return "number, or date" }

// Lookup returns the settings of column name, or nil.
func (cs GenerateColumns) Lookup(name string) *GenerateColumn {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

// DecodeNode reads the tables by name, in written order.
func (ts *GenerateTables) DecodeNode(d spec.Decoding, n *yaml.Node, name string) {
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, "tables must be a mapping of TABLE: {rows: N, columns: {...}}, got %s", spec.DescribeNode(n))
		return
	}
	if len(n.Content) == 0 {
		d.Errorf(n, "tables is empty; name the tables to fill, e.g. tables: {customers: {rows: 1000}}")
		return
	}
	*ts = append(*ts, spec.DecodeNamed(d, n, "table", func(t *GenerateTable, k *yaml.Node) {
		t.Name = k.Value
		if t.Src.Pos.Line == 0 {
			t.Src.Pos = d.Pos(k)
		}
	})...)
}

// DecodeNode reads the columns by name, in written order.
func (cs *GenerateColumns) DecodeNode(d spec.Decoding, n *yaml.Node, name string) {
	if spec.IsNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, "columns must be a mapping of COLUMN: {distribution: ..., values: [...]}, got %s", spec.DescribeNode(n))
		return
	}
	*cs = append(*cs, spec.DecodeNamed(d, n, "column", func(c *GenerateColumn, k *yaml.Node) {
		c.Name = k.Value
		if c.Src.Pos.Line == 0 {
			c.Src.Pos = d.Pos(k)
		}
	})...)
}

// PlanSchema is a map of table names to generate_table.
func (GenerateTables) PlanSchema() map[string]any {
	return map[string]any{"type": "object", "minProperties": 1, "additionalProperties": map[string]any{"$ref": "#/$defs/generate_table"}}
}

// PlanSchema is a map of column names to generate_column.
func (GenerateColumns) PlanSchema() map[string]any {
	return map[string]any{"type": "object", "additionalProperties": map[string]any{"$ref": "#/$defs/generate_column"}}
}

// PlanType is how the plan reference says the tables.
func (GenerateTables) PlanType() string { return "map TABLE: [generate_table](#generate_table)" }

// PlanType is how the plan reference says the columns.
func (GenerateColumns) PlanType() string { return "map COLUMN: [generate_column](#generate_column)" }

// PlanSections are the plan reference's sections of a generate's tables and columns.
func (*Generate) PlanSections() []reflect.Type {
	return []reflect.Type{reflect.TypeOf(GenerateTable{}), reflect.TypeOf(GenerateColumn{}), reflect.TypeOf(GenerateRowSample{}), reflect.TypeOf(GenerateNoOverlap{})}
}

// CheckOn checks g as the generate step kind's Check (spec.StepKind.Check) of a step on
// target (its name, resolved by validate): its schema file, read as the target's sandbox
// flavor reads executable comments, its tables against it, its columns' settings.
func (g *Generate) CheckOn(c *spec.Check, target string) {
	g.Server = ddl.AnyServer
	if t := c.Target(target); t != nil && t.Sandbox != nil {
		switch t.Sandbox.Flavor {
		case "mariadb":
			g.Server = ddl.MariaDB
		case "mysql":
			g.Server = ddl.MySQL
		}
	}
	g.validate(c)
}

func (g *Generate) validate(v *spec.Check) {
	if g.Schema != "" {
		g.SchemaPath = v.Path(g.Schema, g.Src.At("schema"), "generate schema")
	}
	if g.After != "" {
		g.AfterPath = v.Path(g.After, g.Src.At("after"), "generate after")
	}
	for i := range g.Tables { // before the schema's checks, which count the values
		for j := range g.Tables[i].Columns {
			if c := &g.Tables[i].Columns[j]; c.Src.Has("values_file") {
				what := g.Tables[i].Name + "." + c.Name
				if c.Src.Has("values") {
					v.Errorf(c.Src.At("values_file"), "%s has both values and values_file; keep one", what)
				}
				c.readValues(v, what)
			}
		}
	}
	g.checkSchema(v)
	// a table or column written twice is already a duplicate YAML key
	for i := range g.Tables {
		t := &g.Tables[i]
		t.checkRows(v, g)
		t.checkRowSample(v)
		t.checkLayout(v)
		for j := range t.Columns {
			t.Columns[j].check(v, t.Name)
		}
	}
}

func (c *GenerateColumn) check(v *spec.Check, table string) {
	what := table + "." + c.Name
	values := c.AllValues()
	if len(c.Weights) > 0 && len(values) == 0 {
		v.Errorf(c.Src.At("weights"), "%s has weights but no values; weights say how often each of values comes: add values: [...] with one value per weight, or remove weights", what)
	} else if len(c.Weights) > 0 && len(c.Weights) != len(values) {
		v.Errorf(c.Src.At("weights"), "%s has %d weights for %d values; give one weight per value", what, len(c.Weights), len(values))
	}
	total := 0.0
	for _, w := range c.Weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			v.Errorf(c.Src.At("weights"), "%s: weights must be numbers >= 0, got %g", what, w)
		}
		total += w
	}
	if len(c.Weights) > 0 && total <= 0 {
		v.Errorf(c.Src.At("weights"), "%s: weights add up to 0; give at least one value a weight above 0", what)
	}
	if c.NullFraction > 1 {
		v.Errorf(c.Src.At("null_fraction"), "%s: null_fraction is a share between 0 and 1, got %g", what, c.NullFraction)
	}
	if len(values) > 0 && (c.Src.Has("min") || c.Src.Has("max")) {
		v.Errorf(c.valuesAt(), "%s has both values and min/max; keep one: values draws from the list, min/max from a range", what)
	}
	lo, errLo := strconv.ParseFloat(string(c.Min), 64)
	hi, errHi := strconv.ParseFloat(string(c.Max), 64)
	if errLo == nil && errHi == nil && lo > hi {
		v.Errorf(c.Src.At("min"), "%s: min %s is above max %s; swap them", what, c.Min, c.Max)
	}
	if c.Src.Has("pattern") {
		if _, err := pattern.Parse(c.Pattern); err != nil {
			v.Errorf(c.Src.At("pattern"), "%s: pattern %q %s", what, c.Pattern, err)
		}
		c.alone(v, what, "pattern", "makes the strings")
	}
	if c.Src.Has("expr") {
		if _, err := parser.Parse(c.Expr.Source); err != nil {
			pos, msg := spec.ExprError(c.Expr.Pos, err)
			v.Errorf(pos, "%s: bad expression %q: %s", what, c.Expr.Source, msg)
		}
		c.alone(v, what, "expr", "makes the values")
		if c.Src.Has("distribution") {
			v.Errorf(c.Src.At("distribution"), "%s has both expr and distribution; expr makes the values (draw with uniform(), normal(), zipf() in it): remove distribution", what)
		}
	}
	if c.Src.Has("from_sample") {
		if c.FromSample == "true" || c.FromSample == "false" {
			v.Errorf(c.Src.At("from_sample"), "%s: from_sample names where the values come from, not yes or no: TABLE, DB.TABLE or DB.TABLE.COLUMN, e.g. from_sample: prod.%s", what, table)
		} else if parts := strings.Split(c.FromSample, "."); len(parts) > 3 || slices.Contains(parts, "") {
			v.Errorf(c.Src.At("from_sample"), "%s: from_sample %q is not TABLE, DB.TABLE or DB.TABLE.COLUMN (names without dots)", what, c.FromSample)
		}
		c.alone(v, what, "from_sample", "draws the values")
		if c.Src.Has("distribution") {
			v.Errorf(c.Src.At("distribution"), "%s has both from_sample and distribution; from_sample draws with the frequencies of the real data: remove distribution", what)
		}
	}
}

// alone reports the settings that say which values a column gets, written beside key.
func (c *GenerateColumn) alone(v *spec.Check, what, key, does string) {
	for _, other := range []string{"values", "values_file", "min", "max", "length", "pattern", "from_sample", "expr"} {
		// each pair once: pattern reports from_sample, not the other way round; expr reports all
		if other == key || !c.Src.Has(other) || key == "from_sample" && other == "pattern" || other == "expr" {
			continue
		}
		v.Errorf(c.Src.At(other), "%s has both %s and %s; %s %s: keep one", what, key, other, key, does)
	}
}

// checkRows checks that a table says its rows once: rows, or per_parent with a count or a
// range from a parent that is listed.
func (t *GenerateTable) checkRows(v *spec.Check, g *Generate) {
	pp := t.PerParent
	switch {
	case pp == nil && !t.Src.Has("rows"):
		v.Errorf(t.Src.Pos, "table %s has no rows; give rows: N, or per_parent: {min: A, max: B} for each row of a parent", t.Name)
		return
	case pp == nil:
		return
	case t.Src.Has("rows"):
		v.Errorf(t.Src.At("per_parent"), "table %s has both rows and per_parent; keep one: per_parent makes the rows the sum of each parent row's count", t.Name)
	}
	switch {
	case pp.Src.Has("count") && (pp.Src.Has("min") || pp.Src.Has("max")):
		v.Errorf(pp.Src.At("count"), "%s: per_parent has both count and min/max; keep count for an exact number, or min and max for a range", t.Name)
	case pp.Src.Has("count") && pp.Src.Has("distribution"):
		v.Errorf(pp.Src.At("distribution"), "%s: per_parent count is exact, so distribution does not apply; remove it or give min and max", t.Name)
	case !pp.Src.Has("count") && !pp.Src.Has("max"):
		v.Errorf(pp.Src.Pos, "%s: per_parent needs count: N, or max: N (with min, default 0)", t.Name)
	case pp.Min > pp.Max:
		v.Errorf(pp.Src.At("min"), "%s: per_parent min %d is above max %d; swap them", t.Name, pp.Min, pp.Max)
	}
	if pp.Parent == "" {
		return
	}
	if pp.Parent == t.Name {
		v.Errorf(pp.Src.At("parent"), "%s: per_parent parent is the table itself; name the table its foreign key references", t.Name)
		return
	}
	var names []string
	for i := range g.Tables {
		if g.Tables[i].Name == pp.Parent {
			return
		}
		names = append(names, g.Tables[i].Name)
	}
	v.Errorf(pp.Src.At("parent"), "%s: per_parent parent %s is not in tables:; add %s: {rows: N} to tables or name another parent%s", t.Name, pp.Parent, pp.Parent, spec.Suggest(pp.Parent, names))
}

// checkRowSample checks a table-level from_sample: where from, and columns listed once that
// say nothing else about their values.
func (t *GenerateTable) checkRowSample(v *spec.Check) {
	rs := t.FromSample
	if rs == nil {
		return
	}
	if parts := strings.Split(rs.Table, "."); len(parts) > 2 || slices.Contains(parts, "") {
		v.Errorf(rs.Src.At("table"), "%s: from_sample table %q is not TABLE or DB.TABLE (names without dots); the columns are the sample's of the same names", t.Name, rs.Table)
	}
	seen := map[string]bool{}
	for _, sc := range rs.Columns {
		if seen[sc.Name] {
			v.Errorf(sc.Pos, "%s: from_sample lists column %s twice; list it once", t.Name, sc.Name)
			continue
		}
		seen[sc.Name] = true
		c := t.Columns.Lookup(sc.Name)
		if c == nil {
			continue
		}
		for _, k := range []string{"values", "values_file", "min", "max", "length", "pattern", "from_sample", "expr", "distribution"} {
			if c.Src.Has(k) {
				v.Errorf(c.Src.At(k), "%s.%s is drawn with the table's from_sample, and has %s too; from_sample gives its values: remove %s or the column from from_sample", t.Name, sc.Name, k, k)
			}
		}
	}
}

// PlanDoc is the generate section's text in the plan reference.
func (*Generate) PlanDoc() string {
	return "Fills the step's target's tables with generated rows (see docs/generate.md): the column definitions are read from information_schema after `schema` ran, parents are filled before their children, foreign keys take values their parent has, and primary and unique keys never collide. The same seed gives the same rows whatever `threads` is."
}

// PlanDoc is the generate_table section's text in the plan reference.
func (*GenerateTable) PlanDoc() string { return "How one table of `generate.tables` is filled." }

// PlanDoc is the generate_column section's text in the plan reference.
func (*GenerateColumn) PlanDoc() string {
	return "How one column's values are drawn; without settings, values that look real for the column's type."
}

// PlanDoc is the generate_no_overlap section's text in the plan reference.
func (*GenerateNoOverlap) PlanDoc() string {
	return "The intervals [from, to) of the rows of one entity never overlap (a copy's rentals, an employee's salaries, a room's bookings): each row's to is cut at the start of the entity's next interval, and a NULL to (still open) is kept on its last interval only (see docs/generate.md)."
}
