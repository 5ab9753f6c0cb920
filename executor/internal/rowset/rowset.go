// Package rowset holds a query's answer by column name, so that code reading a server's tables
// is a pure function of it: servers add, drop and reorder columns between versions (MySQL 8's
// digest table has QUERY_SAMPLE_TEXT and quantiles MariaDB's lacks), and a reader that needs a
// column by its name reads them all alike, live or from a fixture written down from a manual.
package rowset

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Set is a result set: its column names and its rows, every value as text (NULL: Valid false),
// as the text protocol sends them.
type Set struct {
	Columns []string
	Rows    [][]sql.NullString
}

// Read reads what is left of rows.
func Read(rows *sql.Rows) (*Set, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	s := &Set{Columns: cols}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		dst := make([]any, len(cols))
		for i := range vals {
			dst[i] = &vals[i]
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		s.Rows = append(s.Rows, vals)
	}
	return s, rows.Err()
}

// Index is the position of the column named name, -1 if there is none. Names compare without
// case: MariaDB and MySQL spell some tables' columns in upper case, others in lower.
func (s *Set) Index(name string) int {
	for i, c := range s.Columns {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}

// Need is the positions of names, or an error naming every one missing, so that a server whose
// table lacks a column says which rather than reading zeros.
func (s *Set) Need(table string, names ...string) ([]int, error) {
	idx := make([]int, len(names))
	var missing []string
	for i, n := range names {
		if idx[i] = s.Index(n); idx[i] < 0 {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s has no column %s (it has %s)", table, strings.Join(missing, ", "), strings.Join(s.Columns, ", "))
	}
	return idx, nil
}

// Float reads a numeric value; NULL and text that is no number read as 0 with ok false.
func Float(v sql.NullString) (f float64, ok bool) {
	if !v.Valid {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.String, 64)
	return f, err == nil
}

// Int reads an integer value; NULL and text that is no integer read as 0 with ok false.
func Int(v sql.NullString) (n int64, ok bool) {
	if !v.Valid {
		return 0, false
	}
	n, err := strconv.ParseInt(v.String, 10, 64)
	return n, err == nil
}

// Uint reads an unsigned integer (thread and event ids are BIGINT UNSIGNED).
func Uint(v sql.NullString) (n uint64, ok bool) {
	if !v.Valid {
		return 0, false
	}
	n, err := strconv.ParseUint(v.String, 10, 64)
	return n, err == nil
}

// Time reads a DATETIME/TIMESTAMP as the text protocol sends it, or as database/sql writes a
// time.Time into a string when the DSN has parseTime=true.
func Time(v sql.NullString) (time.Time, bool) {
	if !v.Valid {
		return time.Time{}, false
	}
	if t, err := time.Parse("2006-01-02 15:04:05.999999", v.String); err == nil {
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, v.String)
	return t, err == nil
}

// Fixtures are files in the layout of `mariadb --batch` (and `mysql --batch`): lines starting
// with # say where the rows come from; then a line of column names and one line a row, values
// separated by tabs, NULL as \N, and tab, newline and backslash inside a value escaped as \t, \n
// and \\.

// ReadFixture reads a fixture.
func ReadFixture(r io.Reader) (*Set, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	var s *Set
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if s == nil && (strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "") {
			continue
		}
		f := strings.Split(l, "\t")
		if s == nil {
			s = &Set{Columns: f}
			continue
		}
		if len(f) != len(s.Columns) {
			return nil, fmt.Errorf("line %d: %d values for %d columns", line, len(f), len(s.Columns))
		}
		row := make([]sql.NullString, len(f))
		for i, v := range f {
			if v == `\N` {
				continue
			}
			row[i] = sql.NullString{String: unescape(v), Valid: true}
		}
		s.Rows = append(s.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("no column names")
	}
	return s, nil
}

// WriteFixture writes s as a fixture, each line of header as a # comment above it.
func WriteFixture(w io.Writer, header string, s *Set) error {
	bw := bufio.NewWriter(w)
	for _, l := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		fmt.Fprintf(bw, "# %s\n", l)
	}
	fmt.Fprintln(bw, strings.Join(s.Columns, "\t"))
	for _, row := range s.Rows {
		for i, v := range row {
			if i > 0 {
				bw.WriteByte('\t')
			}
			if !v.Valid {
				bw.WriteString(`\N`)
			} else {
				bw.WriteString(escape(v.String))
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

var escaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`, "\x00", `\0`)

func escape(v string) string { return escaper.Replace(v) }

func unescape(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch v[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// Pairs maps each row's key column to its value column (setup_consumers: NAME to ENABLED).
func (s *Set) Pairs(table, key, value string) (map[string]string, error) {
	idx, err := s.Need(table, key, value)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(s.Rows))
	for _, r := range s.Rows {
		m[r[idx[0]].String] = r[idx[1]].String
	}
	return m, nil
}
