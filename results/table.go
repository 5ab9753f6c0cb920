package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Field is one named cell of a row. Rows are ordered lists of fields rather than maps
// because column order is part of the contract (summary.csv starts with fixed columns).
type Field struct {
	Name  string
	Value string
}

// Record is one CSV row under construction.
type Record []Field

// Add appends a string cell.
func (r *Record) Add(name, value string) { *r = append(*r, Field{name, value}) }

// AddFloat appends a number; NaN and ±Inf become an empty cell, which is how a missing
// sample (an unreachable agent, a lost connection) is written.
func (r *Record) AddFloat(name string, v float64) { r.Add(name, FormatFloat(v)) }

// AddInt appends an integer cell.
func (r *Record) AddInt(name string, v int64) { r.Add(name, strconv.FormatInt(v, 10)) }

// FormatFloat renders v with enough precision for any rate or latency we record and no
// trailing noise; NaN and infinities are empty cells.
func FormatFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	p := math.Pow(10, float64(precision(v)))
	return strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
}

func precision(v float64) int {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return 2
	case a >= 1:
		return 3
	default:
		return 6
	}
}

// Table is a CSV file that rows are appended to as they are measured. Its header is the
// union of the columns seen so far: a column that appears later (a status variable that
// only exists after a restart with log_bin, say) widens the file, which is rewritten
// atomically so a kill at any moment leaves a valid CSV behind.
type Table struct {
	path   string
	header []string
	index  map[string]int
	f      *os.File
	w      *bufio.Writer
}

// OpenTable opens path for appending, creating it (and its directory) when absent. An
// existing file keeps its header, so a resumed run appends to what the interrupted one wrote.
func OpenTable(path string) (*Table, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	t := &Table{path: path, index: map[string]int{}}
	if header, err := resumeTable(path); err == nil {
		t.setHeader(header)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := t.reopen(); err != nil {
		return nil, err
	}
	return t, nil
}

// readHeader reads the first line of the table rel of folder dir, for the readers.
func readHeader(dir, rel string) ([]string, error) {
	f, err := OpenIn(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	header, err := csv.NewReader(f).Read()
	if err == io.EOF {
		return nil, nil
	}
	return header, err
}

// resumeTable reads the header of an existing table and cuts a final line that has no
// newline: a process killed mid-write leaves one, and appending after it would glue two
// rows together. The file must be the folder's own (openOwn).
func resumeTable(path string) ([]string, error) {
	f, err := openOwn(path, os.O_RDWR)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	header, err := csv.NewReader(bytes.NewReader(data)).Read()
	if err == io.EOF {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if data[len(data)-1] != '\n' {
		cut := bytes.LastIndexByte(data, '\n') + 1
		if err := f.Truncate(int64(cut)); err != nil {
			return nil, err
		}
	}
	return header, nil
}

func (t *Table) setHeader(h []string) {
	t.header = h
	t.index = make(map[string]int, len(h))
	for i, name := range h {
		t.index[name] = i
	}
}

func (t *Table) reopen() error {
	f, err := openOwn(t.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return err
	}
	t.f, t.w = f, bufio.NewWriter(f)
	return nil
}

// Append writes one row and hands it to the operating system before returning, so the
// row survives a kill -9 of quadrant.
func (t *Table) Append(rec Record) error {
	var added []string
	for _, f := range rec {
		if _, ok := t.index[f.Name]; !ok {
			added = append(added, f.Name)
			t.index[f.Name] = -1 // reserve, so a duplicate name in rec is not added twice
		}
	}
	if len(added) > 0 {
		if err := t.widen(added); err != nil {
			for _, n := range added {
				delete(t.index, n) // the file kept its header: so do we
			}
			return fmt.Errorf("widen %s: %w", t.path, err)
		}
	}
	row := make([]string, len(t.header))
	for _, f := range rec {
		row[t.index[f.Name]] = f.Value
	}
	cw := csv.NewWriter(t.w)
	if err := cw.Write(row); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return t.w.Flush()
}

// widen rewrites the file with the new columns appended to the header and empty cells in
// the rows written before; the rename makes the switch atomic.
func (t *Table) widen(added []string) error {
	if err := t.w.Flush(); err != nil {
		return err
	}
	if err := t.f.Close(); err != nil {
		return err
	}
	old := t.header
	newHeader := append(append([]string(nil), old...), added...)
	err := ReplaceFile(t.path, func(out io.Writer) error { return copyWidened(out, t.path, len(old) > 0, newHeader) })
	if err != nil {
		t.reopen() // the file kept its old header: later rows still go to it
		return err
	}
	t.setHeader(newHeader)
	return t.reopen()
}

// copyWidened writes header, then the rows of path (when it has any) padded to its width.
func copyWidened(out io.Writer, path string, hasRows bool, header []string) error {
	cw := csv.NewWriter(out)
	if err := cw.Write(header); err != nil {
		return err
	}
	if hasRows {
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		cr := csv.NewReader(in)
		cr.FieldsPerRecord = -1
		if _, err := cr.Read(); err != nil { // old header
			return err
		}
		for {
			row, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				// A torn last line from an earlier crash: drop it rather than fail the run.
				break
			}
			padded := make([]string, len(header))
			copy(padded, row)
			if err := cw.Write(padded); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Sync flushes the file to stable storage; called at iteration boundaries, not per row.
func (t *Table) Sync() error {
	if err := t.w.Flush(); err != nil {
		return err
	}
	return t.f.Sync()
}

// Close flushes and closes the file.
func (t *Table) Close() error {
	if t.f == nil {
		return nil
	}
	err := t.Sync()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	t.f = nil
	return err
}

// ReadTable reads a whole CSV written by Table, with ScanTable's rules: a torn final line
// is dropped, any other malformed line is an error naming the file and the line.
func ReadTable(path string) (header []string, rows [][]string, err error) {
	return ReadTableIn(filepath.Dir(path), filepath.Base(path))
}

// ReadTableIn is ReadTable of the table rel of the results folder dir, read through the
// folder's root (OpenIn): a link planted in the folder is refused, not followed.
func ReadTableIn(dir, rel string) (header []string, rows [][]string, err error) {
	path := filepath.Join(dir, rel)
	err = ScanTableIn(dir, rel, func(h, row []string) error {
		header = h
		rows = append(rows, append([]string(nil), row...))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if header == nil {
		header, err = readHeader(dir, rel)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:1: header: %w", path, err)
		}
	}
	return header, rows, nil
}

// ScanTable calls fn with each row of a CSV written by Table, in file order, without
// holding the file in memory: a long run's time series is hundreds of megabytes, and
// several times that as strings. row is reused between calls (copy what you keep) and
// has the header's width.
//
// Rows are appended whole lines, so a final line without its newline is a row cut by a
// kill -9 (or a copy cut short): it is dropped (TornLines says which, for a warning), and
// the rows before it are read. Anything else malformed (a row wider or narrower than the
// header, a quote out of place) is an error naming path:line: a folder from someone else
// is read as it is or not at all, never as half-empty rows.
//
// Rows of numbers have no quotes; those are split on commas directly, which is several
// times quicker than encoding/csv. A line with a quote is read by encoding/csv, with as
// many following lines as its quoted fields span.
func ScanTable(path string, fn func(header, row []string) error) error {
	return ScanTableIn(filepath.Dir(path), filepath.Base(path), fn)
}

// ScanTableIn is ScanTable of the table rel of the results folder dir, read through the
// folder's root (OpenIn).
func ScanTableIn(dir, rel string, fn func(header, row []string) error) error {
	path := filepath.Join(dir, rel)
	f, err := OpenIn(dir, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	var header, row []string
	var pending []byte  // a record whose quoted field goes on past the line
	line, start := 0, 0 // the line read, and the line its record started on
	for {
		text, rerr := br.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			rest, err := br.ReadBytes('\n')
			text, rerr = append(append([]byte(nil), text...), rest...), err
		}
		if rerr != nil && rerr != io.EOF {
			return rerr
		}
		if rerr == io.EOF && len(text) > 0 {
			return nil // the torn final line
		}
		if len(text) > 0 {
			line++
		}
		if pending == nil {
			start = line
		}
		var rec []string
		switch {
		case pending != nil || bytes.IndexByte(text, '"') >= 0:
			pending = append(pending, text...)
			if bytes.Count(pending, []byte{'"'})%2 == 1 {
				if rerr == io.EOF {
					return fmt.Errorf("%s:%d: a quoted field is not closed", path, start)
				}
				continue
			}
			r := csv.NewReader(bytes.NewReader(pending))
			r.FieldsPerRecord = -1
			pending = nil
			got, err := r.Read()
			if err != nil {
				return fmt.Errorf("%s:%d: %w", path, start, err)
			}
			rec = got
		default:
			cells := string(bytes.TrimSuffix(bytes.TrimSuffix(text, []byte("\n")), []byte("\r")))
			if cells == "" { // encoding/csv skips empty lines
				if rerr == io.EOF {
					return nil
				}
				continue
			}
			rec = row[:0]
			for {
				i := strings.IndexByte(cells, ',')
				if i < 0 {
					rec = append(rec, cells)
					break
				}
				rec = append(rec, cells[:i])
				cells = cells[i+1:]
			}
			row = rec
		}
		if header == nil {
			header = append([]string(nil), rec...)
		} else {
			if len(rec) != len(header) {
				return fmt.Errorf("%s:%d: %d cells, the header has %d: the file is damaged (a row is appended whole, so only a cut last line is expected)",
					path, start, len(rec), len(header))
			}
			if err := fn(header, rec); err != nil {
				return err
			}
			if cap(rec) > cap(row) {
				row = rec
			}
		}
		if rerr == io.EOF {
			return nil
		}
	}
}
