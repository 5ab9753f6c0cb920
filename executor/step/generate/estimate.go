package generate

import (
	"os"
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/generate/genplan"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/ddl"
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
func estimateGenerate(g *genplan.Generate) []tableEstimate {
	var cols map[string][]*ddl.Column
	if g.SchemaPath != "" {
		cols = schemaColumns(g.SchemaPath)
	}
	out := make([]tableEstimate, len(g.Tables))
	rows := ExpectedRows(g, ParentsOf(g.SchemaPath))
	for i, t := range g.Tables {
		n := rows[t.Name]
		e := tableEstimate{rows: n, bytes: -1}
		e.time = time.Duration(float64(n) / float64(generateRate*max(g.Threads, 1)) * float64(time.Second))
		if defs, ok := cols[strings.ToLower(t.Name)]; ok {
			if w := rowWidth(defs, t.Columns); w > 0 {
				e.bytes = int64(float64(n*(w+innodbRowOverhead)) / pageFill)
			}
		}
		out[i] = e
	}
	return out
}

// ExpectedRows is each table's rows: rows, or for per_parent its parent's times the middle
// count (the parent named, else the only one the schema file's foreign keys reference; 0
// when neither says).
func ExpectedRows(g *genplan.Generate, parents map[string][]string) map[string]int64 {
	out := map[string]int64{}
	for range g.Tables { // a chain of per_parent tables settles in as many passes
		for _, t := range g.Tables {
			if t.PerParent == nil {
				out[t.Name] = t.Rows
				continue
			}
			p := t.PerParent.Parent
			if ps := parents[strings.ToLower(t.Name)]; p == "" && len(ps) == 1 {
				p = ps[0]
			}
			lo, hi := t.PerParent.Range()
			out[t.Name] = out[p] * (lo + hi) / 2
		}
	}
	return out
}

// ParentsOf is the tables each table of a schema file references (lower-case names).
func ParentsOf(path string) map[string][]string {
	out := map[string][]string{}
	if path == "" {
		return out
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() > spec.MySQLMaxAllowedPacket {
		return out
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, t := range ddl.Parse(string(data)).Tables {
		for _, f := range t.Foreign {
			if n := strings.ToLower(t.Name); !slices.Contains(out[n], f.Parent) {
				out[n] = append(out[n], f.Parent)
			}
		}
	}
	return out
}

// schemaColumns reads the columns of the CREATE TABLE statements of a schema file, by
// table name (lower case, without its database), with the parser validate uses. A table
// it cannot read is left out: explain then says the size is unknown.
func schemaColumns(path string) map[string][]*ddl.Column {
	if fi, err := os.Stat(path); err != nil || fi.Size() > spec.MySQLMaxAllowedPacket {
		return nil // a schema that large is not DDL explain should hold whole
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string][]*ddl.Column{}
	for _, t := range ddl.Parse(string(data)).Tables {
		if !t.Unread {
			out[strings.ToLower(t.Name)] = t.Columns
		}
	}
	return out
}

// rowWidth is the average bytes of a row's columns as generate fills them (docs/generate.md:
// VARCHAR a quarter to all of its length, TEXT up to 255...), 0 when a type is unknown.
func rowWidth(defs []*ddl.Column, settings genplan.GenerateColumns) int64 {
	var w int64
	for _, d := range defs {
		length := int64(0)
		if s := settings.Lookup(d.Name); s != nil && s.Length > 0 {
			length = int64(s.Length)
		}
		varLen := func(max int64) int64 {
			if length > 0 {
				return length
			}
			return (max/4 + max) / 2
		}
		if d.Generated {
			continue // the server computes it; a stored one takes room, a virtual none
		}
		switch d.Type {
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
			w += 5
		case "decimal", "numeric", "dec", "fixed":
			w += (max(d.Precision, 1)*4 + 8) / 9
		case "bit":
			w += (max(d.Precision, 1) + 7) / 8
		case "char", "binary":
			w += max(d.Length, 1)
		case "varchar", "varbinary":
			n := d.Length
			w += varLen(n) + 1 + n/256
		case "tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob", "longblob":
			w += varLen(255) + 2
		case "json":
			w += 48
		case "enum":
			w += 1 + int64(len(d.Members)/256)
		case "set":
			w += int64(len(d.Members)+7) / 8
		default:
			return 0
		}
	}
	return w
}
