package main

import (
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// generateRate is the rows per second one generate thread inserts into a local sandbox:
// bench/generatebench measured 137,790 rows/s with 2 threads on a 2-core machine for
// sbtest-shaped rows (about 190 bytes), rounded down. Wider rows go slower.
const generateRate = 65_000

// innodbRowOverhead is what InnoDB adds to each row of a clustered index beside its
// columns: the 5-byte record header, the 6-byte transaction id and the 7-byte roll pointer.
// Pages are left about 1/16 free, which pageFill counts.
const (
	innodbRowOverhead = 18
	pageFill          = 15.0 / 16
)

// tableEstimate is explain's guess at one generated table: bytes < 0 when the columns are
// not known (no schema file, or a statement or type it does not read).
type tableEstimate struct {
	rows  int64
	bytes int64
	time  time.Duration
}

// estimateGenerate estimates each table of g: its size from the schema file's column types
// (average stored widths as generate makes them, plus InnoDB's row overhead; secondary
// indexes not counted) and its time at generateRate per thread.
func estimateGenerate(g *spec.Generate) []tableEstimate {
	var cols map[string][]colDef
	if g.SchemaPath != "" {
		cols = schemaColumns(g.SchemaPath)
	}
	out := make([]tableEstimate, len(g.Tables))
	for i, t := range g.Tables {
		e := tableEstimate{rows: t.Rows, bytes: -1}
		e.time = time.Duration(float64(t.Rows) / float64(generateRate*max(g.Threads, 1)) * float64(time.Second))
		if defs, ok := cols[strings.ToLower(t.Name)]; ok {
			if w := rowWidth(defs, t.Columns); w > 0 {
				e.bytes = int64(float64(t.Rows*(w+innodbRowOverhead)) / pageFill)
			}
		}
		out[i] = e
	}
	return out
}

// colDef is a column of a CREATE TABLE: its name and type as written, lower case.
type colDef struct {
	name, typ string
	args      []int64 // the numbers in the type's parentheses: varchar(40), decimal(10,2)
	members   int     // enum and set members
}

var createTable = regexp.MustCompile("(?is)^CREATE\\s+(?:TEMPORARY\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?((?:`[^`]+`|[\\w$]+)(?:\\s*\\.\\s*(?:`[^`]+`|[\\w$]+))?)\\s*\\(")

// schemaColumns reads the columns of the CREATE TABLE statements of a schema file, by
// table name (lower case, without its database). What it cannot read is left out: explain
// then says the size is unknown.
func schemaColumns(path string) map[string][]colDef {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string][]colDef{}
	sp := sqltext.NewSplitter(f)
	for {
		stmt, _, err := sp.Next()
		if err == io.EOF || err != nil {
			return out
		}
		s := strings.TrimSpace(sqltext.SkipComments(string(stmt)))
		m := createTable.FindStringSubmatchIndex(s)
		if m == nil {
			continue
		}
		name := strings.TrimSpace(s[m[2]:m[3]])
		if strings.HasSuffix(name, "`") {
			name = name[strings.LastIndexByte(name[:len(name)-1], '`')+1 : len(name)-1]
		} else {
			name = name[strings.LastIndexByte(name, '.')+1:]
		}
		name = strings.ToLower(name)
		var defs []colDef
		for _, item := range topLevel(s[m[1]:]) {
			if d, ok := column(item); ok {
				defs = append(defs, d)
			}
		}
		out[name] = defs
	}
}

// topLevel splits the body of a CREATE TABLE (after its opening parenthesis) at its
// top-level commas, up to the closing parenthesis.
func topLevel(body string) []string {
	var items []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote != '`' {
				i++
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')' && depth == 0:
			return append(items, body[start:i])
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			items = append(items, body[start:i])
			start = i + 1
		}
	}
	return items
}

var (
	colHead     = regexp.MustCompile("(?is)^\\s*(`[^`]+`|[\\w$]+)\\s+([a-z]+)\\s*(\\(([^)]*)\\))?")
	generatedAs = regexp.MustCompile(`(?i)\bAS\s*\(`) // GENERATED ALWAYS AS (...) or the short AS (...)
	notAColm    = map[string]bool{"primary": true, "key": true, "index": true, "unique": true, "constraint": true, "foreign": true, "fulltext": true, "spatial": true, "check": true, "period": true}
)

func column(item string) (colDef, bool) {
	m := colHead.FindStringSubmatch(item)
	if m == nil || notAColm[strings.ToLower(m[1])] {
		return colDef{}, false
	}
	d := colDef{name: strings.Trim(m[1], "`"), typ: strings.ToLower(m[2])}
	if d.typ == "enum" || d.typ == "set" {
		d.members = strings.Count(m[4], "'") / 2
		return d, true
	}
	for _, a := range strings.Split(m[4], ",") {
		if n, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64); err == nil {
			d.args = append(d.args, n)
		}
	}
	if generatedAs.MatchString(item[len(m[0]):]) {
		d.typ = "generated" // the server computes it; a stored one takes room, a virtual none
	}
	return d, true
}

// rowWidth is the average bytes of a row's columns as generate fills them (docs/generate.md:
// VARCHAR a quarter to all of its length, TEXT up to 255...), 0 when a type is unknown.
func rowWidth(defs []colDef, settings spec.GenerateColumns) int64 {
	var w int64
	arg := func(d colDef, i int, def int64) int64 {
		if i < len(d.args) {
			return d.args[i]
		}
		return def
	}
	for _, d := range defs {
		length := int64(0)
		if s := settings.Lookup(d.name); s != nil && s.Length > 0 {
			length = int64(s.Length)
		}
		varLen := func(max int64) int64 {
			if length > 0 {
				return length
			}
			return (max/4 + max) / 2
		}
		switch d.typ {
		case "tinyint", "bool", "boolean", "year":
			w++
		case "smallint":
			w += 2
		case "mediumint", "date", "time":
			w += 3
		case "int", "integer", "float", "timestamp":
			w += 4
		case "bigint", "double", "real":
			w += 8
		case "datetime":
			w += 5 + (arg(d, 0, 0)+1)/2
		case "decimal", "numeric", "dec", "fixed":
			w += (arg(d, 0, 10)*4 + 8) / 9
		case "bit":
			w += (arg(d, 0, 1) + 7) / 8
		case "char", "binary":
			w += arg(d, 0, 1)
		case "varchar", "varbinary":
			n := arg(d, 0, 255)
			w += varLen(n) + 1 + n/256
		case "tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob", "longblob":
			w += varLen(255) + 2
		case "json":
			w += 48
		case "enum":
			w += 1 + int64(d.members/256)
		case "set":
			w += int64(d.members+7) / 8
		case "generated":
		default:
			return 0
		}
	}
	return w
}
