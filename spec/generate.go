package spec

import (
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Generate is a `generate:` step: the user's own tables filled with generated rows, keys
// included (see docs/generate.md). Spec only reads and checks it; executor/generate fills.
type Generate struct {
	Src      Source         `yaml:"-" name:"generate"`
	Schema   string         `yaml:"schema" doc:"A file of CREATE TABLE statements (relative to the plan) run before filling; without it, the tables already on the target are filled."`
	Database string         `yaml:"database" doc:"The database whose tables are filled (default: the one the schema file ends in with USE, else the target DSN's)."`
	Seed     int64          `yaml:"seed" default:"1" doc:"The same seed, schema and settings give the same rows, whatever threads is."`
	Threads  int            `yaml:"threads" default:"1" min:"1" doc:"Connections loading each table, each a range of its rows."`
	Tables   GenerateTables `yaml:"tables,required" doc:"The tables to fill, by name, and how (see generate_table). Filled parents first, in the order of their foreign keys."`
	Method   string         `yaml:"method" default:"auto" enum:"auto,insert,load_data" doc:"How rows reach the server: load_data streams them with LOAD DATA LOCAL INFILE (no file is written; the server's local_infile must be ON), insert sends multi-row INSERTs, auto uses LOAD DATA where local_infile is ON and INSERTs elsewhere, and logs which. The rows are the same either way."`

	// SchemaPath is Schema resolved against the plan's directory.
	SchemaPath string `yaml:"-"`
}

// GenerateTables are a generate step's tables in written order.
type GenerateTables []GenerateTable

// GenerateTable is how one table is filled.
type GenerateTable struct {
	Src     Source          `yaml:"-" name:"generate table" def:"generate_table"`
	Name    string          `yaml:"-"`
	Rows    int64           `yaml:"rows,required" min:"0" doc:"How many rows the table gets. The table must be empty."`
	Columns GenerateColumns `yaml:"columns" doc:"Settings of some columns, by name (see generate_column); the others get values that look real for their type."`
}

// GenerateColumns are a table's column settings in written order.
type GenerateColumns []GenerateColumn

// GenerateColumn is how one column's values are drawn.
type GenerateColumn struct {
	Src          Source    `yaml:"-" name:"generate column" def:"generate_column"`
	Name         string    `yaml:"-"`
	Distribution string    `yaml:"distribution" enum:"uniform,zipf,normal,sequential" doc:"How values (or, for a foreign key, parent rows) are drawn: uniform, zipf (a few very frequent, exponent 1), normal (around the middle, sd a sixth of the range) or sequential (row by row). Default uniform."`
	Values       []string  `yaml:"values" doc:"The values to draw from (literals the server accepts for the column)."`
	Weights      []float64 `yaml:"weights" doc:"With values: one relative weight per value, e.g. values: [new, paid, shipped], weights: [1, 3, 6]."`
	Min          Bound     `yaml:"min" doc:"Smallest value (a number, or a date 2024-01-31 / datetime for temporal columns)."`
	Max          Bound     `yaml:"max" doc:"Largest value, as min."`
	NullFraction float64   `yaml:"null_fraction" min:"0" doc:"Share of NULLs in a nullable column, 0 to 1."`
	Length       int       `yaml:"length" min:"0" doc:"Strings: their length (at most the column's)."`
}

// Bound is a min or max: a number, or a date or datetime for temporal columns, as written.
type Bound string

func (Bound) jsonSchema() map[string]any { return map[string]any{"type": []any{"number", "string"}} }

// Lookup returns the settings of column name, or nil.
func (cs GenerateColumns) Lookup(name string) *GenerateColumn {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

func (ts *GenerateTables) decodeNode(d *decoder, n *yaml.Node, name string) {
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.t.pos(n), "tables must be a mapping of TABLE: {rows: N, columns: {...}}, got %s", describeNode(n))
		return
	}
	if len(n.Content) == 0 {
		d.errs.add(d.t.pos(n), "tables is empty; name the tables to fill, e.g. tables: {customers: {rows: 1000}}")
		return
	}
	*ts = append(*ts, decodeNamed(d, n, "table", func(t *GenerateTable, k *yaml.Node) {
		t.Name = k.Value
		if t.Src.Pos.Line == 0 {
			t.Src.Pos = d.t.pos(k)
		}
	})...)
}

func (cs *GenerateColumns) decodeNode(d *decoder, n *yaml.Node, name string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.t.pos(n), "columns must be a mapping of COLUMN: {distribution: ..., values: [...]}, got %s", describeNode(n))
		return
	}
	*cs = append(*cs, decodeNamed(d, n, "column", func(c *GenerateColumn, k *yaml.Node) {
		c.Name = k.Value
		if c.Src.Pos.Line == 0 {
			c.Src.Pos = d.t.pos(k)
		}
	})...)
}

func (GenerateTables) jsonSchema() map[string]any {
	return map[string]any{"type": "object", "minProperties": 1, "additionalProperties": map[string]any{"$ref": "#/$defs/generate_table"}}
}

func (GenerateColumns) jsonSchema() map[string]any {
	return map[string]any{"type": "object", "additionalProperties": map[string]any{"$ref": "#/$defs/generate_column"}}
}

func (g *Generate) validate(v *validator, s *Step) {
	if g.Schema != "" {
		g.SchemaPath = v.path(g.Schema, g.Src.At("schema"), "generate schema")
	}
	// a table or column written twice is already a duplicate YAML key
	for i := range g.Tables {
		t := &g.Tables[i]
		for j := range t.Columns {
			t.Columns[j].check(v, t.Name)
		}
	}
}

func (c *GenerateColumn) check(v *validator, table string) {
	what := table + "." + c.Name
	if len(c.Weights) > 0 && len(c.Values) == 0 {
		v.errorf(c.Src.At("weights"), "%s has weights but no values; weights say how often each of values comes: add values: [...] with one value per weight, or remove weights", what)
	} else if len(c.Weights) > 0 && len(c.Weights) != len(c.Values) {
		v.errorf(c.Src.At("weights"), "%s has %d weights for %d values; give one weight per value", what, len(c.Weights), len(c.Values))
	}
	total := 0.0
	for _, w := range c.Weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			v.errorf(c.Src.At("weights"), "%s: weights must be numbers >= 0, got %g", what, w)
		}
		total += w
	}
	if len(c.Weights) > 0 && total <= 0 {
		v.errorf(c.Src.At("weights"), "%s: weights add up to 0; give at least one value a weight above 0", what)
	}
	if c.NullFraction > 1 {
		v.errorf(c.Src.At("null_fraction"), "%s: null_fraction is a share between 0 and 1, got %g", what, c.NullFraction)
	}
	if len(c.Values) > 0 && (c.Src.Has("min") || c.Src.Has("max")) {
		v.errorf(c.Src.At("values"), "%s has both values and min/max; keep one: values draws from the list, min/max from a range", what)
	}
	lo, errLo := strconv.ParseFloat(string(c.Min), 64)
	hi, errHi := strconv.ParseFloat(string(c.Max), 64)
	if errLo == nil && errHi == nil && lo > hi {
		v.errorf(c.Src.At("min"), "%s: min %s is above max %s; swap them", what, c.Min, c.Max)
	}
}
