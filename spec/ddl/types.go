package ddl

import (
	"math"
	"strings"
)

// Column is a column as a CREATE TABLE defines it, its type named as information_schema's
// DATA_TYPE names it (INTEGER is int, BOOL tinyint, NUMERIC decimal), so that what is read
// from a schema file and what the server says after running it are checked by one rule.
type Column struct {
	Name string
	Pos  Pos
	// Type is the data type in lower case: int, varchar, enum, json...
	Type string
	// TypeText is the type as a message shows it: varchar(120), tinyint unsigned.
	TypeText string
	// Length is a string's length in characters (a TEXT's or BLOB's maximum), else 0.
	Length int64
	// Precision and Scale of DECIMAL; Precision is BIT's width too.
	Precision, Scale int64
	Unsigned         bool
	Nullable         bool
	AutoIncrement    bool
	// Generated is a virtual or stored column: the server computes it.
	Generated bool
	// Members of an ENUM or SET.
	Members []string
}

// known are the types (as Column.Type) the generator makes values for by itself; a column
// of another type needs values:. executor/generate draws each of them and its test checks
// it knows every one.
var known = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`tinyint smallint mediumint int integer bigint decimal numeric float double real
		date datetime timestamp time year enum set bit json
		char varchar tinytext text mediumtext longtext binary varbinary tinyblob blob mediumblob longblob`) {
		known[t] = true
	}
}

// Known says whether the generator makes values of dataType by itself.
func Known(dataType string) bool { return known[dataType] }

// KnownTypes lists the types the generator knows, for tests and docs.
func KnownTypes() []string {
	out := make([]string, 0, len(known))
	for t := range known {
		out = append(out, t)
	}
	return out
}

// IntRange is the range of an integer type; false for other types.
func IntRange(dataType string, unsigned bool) (lo, hi int64, ok bool) {
	var b uint
	switch dataType {
	case "tinyint":
		b = 8
	case "smallint":
		b = 16
	case "mediumint":
		b = 24
	case "int", "integer":
		b = 32
	case "bigint":
		b = 64
	default:
		return 0, 0, false
	}
	switch {
	case unsigned && b == 64:
		return 0, math.MaxInt64, true // the generator's values are int64s
	case unsigned:
		return 0, 1<<b - 1, true
	case b == 64:
		return math.MinInt64, math.MaxInt64, true
	}
	return -(1 << (b - 1)), 1<<(b-1) - 1, true
}

// IsString says whether the type holds characters.
func IsString(dataType string) bool {
	switch dataType {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return true
	}
	return false
}

// IsBinary says whether the type holds bytes.
func IsBinary(dataType string) bool {
	switch dataType {
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return true
	}
	return false
}

// takesRange are the types whose values min and max bound.
func takesRange(dataType string) bool {
	if _, _, ok := IntRange(dataType, false); ok {
		return true
	}
	switch dataType {
	case "decimal", "numeric", "float", "double", "real", "date", "datetime", "timestamp":
		return true
	}
	return false
}

// types maps what a CREATE TABLE may write to information_schema's DATA_TYPE.
var types = map[string]string{
	"int1": "tinyint", "int2": "smallint", "int3": "mediumint", "int4": "int", "int8": "bigint",
	"integer": "int", "middleint": "mediumint", "bool": "tinyint", "boolean": "tinyint",
	"dec": "decimal", "numeric": "decimal", "fixed": "decimal",
	"float4": "float", "float8": "double", "real": "double",
	"character": "char", "nchar": "char", "nvarchar": "varchar",
	"long": "mediumtext",
}

// textLength is the maximum length of the TEXT and BLOB types.
var textLength = map[string]int64{
	"tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": 4294967295,
	"tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": 4294967295,
}
