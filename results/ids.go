package results

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// IDsDir holds the ids behind a step's counts (a drill's acknowledged ledger ids and those
// the new primary lacked), one file per metric and iteration, so that a user can check a
// count against their own records of the same ids.
const IDsDir = "ids"

// IDRange is a run of consecutive ids, From to To, both included.
type IDRange struct{ From, To int64 }

// Count is how many ids r holds.
func (r IDRange) Count() int64 { return r.To - r.From + 1 }

// Ranges are ids, sorted and without repeats, as runs of consecutive ids.
func Ranges(ids []int64) []IDRange {
	s := slices.Clone(ids)
	slices.Sort(s)
	s = slices.Compact(s)
	var out []IDRange
	for _, id := range s {
		if n := len(out); n > 0 && out[n-1].To+1 == id {
			out[n-1].To = id
			continue
		}
		out = append(out, IDRange{id, id})
	}
	return out
}

// CountIDs is how many ids rs hold.
func CountIDs(rs []IDRange) int64 {
	var n int64
	for _, r := range rs {
		n += r.Count()
	}
	return n
}

// IDsFile is the file, relative to the folder, of the ids counted by metric in iteration:
// ids/METRIC-iteration-N.txt.
func IDsFile(metric string, iteration int) string {
	return filepath.Join(IDsDir, fmt.Sprintf("%s-iteration-%d.txt", FileName(metric), iteration))
}

// WriteIDs writes the ids behind metric's value in iteration (IDsFile): a comment line
// saying what they are, then a range a line, "FROM-TO" or one id alone, ascending. ids are
// positive (a leading minus would read as a range).
func (w *Writer) WriteIDs(metric string, iteration int, ids []int64) error {
	rs := Ranges(ids)
	if len(rs) > 0 && rs[0].From < 0 {
		return fmt.Errorf("%s: id %d is negative: the ids file keeps positive ids only", IDsFile(metric, iteration), rs[0].From)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s, iteration %d: %d ids in %d ranges (FROM-TO, both included)\n", metric, iteration, CountIDs(rs), len(rs))
	for _, r := range rs {
		if r.From == r.To {
			fmt.Fprintf(&b, "%d\n", r.From)
		} else {
			fmt.Fprintf(&b, "%d-%d\n", r.From, r.To)
		}
	}
	return WriteFileAtomic(filepath.Join(w.Dir, IDsFile(metric, iteration)), b.Bytes())
}

// ReadIDs reads the ids behind metric's value in iteration from the folder dir (through its
// root, as every read of a folder); an error that errors.Is fs.ErrNotExist when the folder
// has none (a run without such a step, or from before the file existed).
func ReadIDs(dir, metric string, iteration int) ([]IDRange, error) {
	rel := IDsFile(metric, iteration)
	data, err := ReadFileIn(dir, rel)
	if err != nil {
		return nil, err
	}
	return parseIDs(rel, data)
}

// parseIDs reads an ids file: ranges ascending and apart, comments (#) and blank lines skipped.
func parseIDs(rel string, data []byte) ([]IDRange, error) {
	var out []IDRange
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		from, to, isRange := strings.Cut(text, "-")
		a, err1 := strconv.ParseInt(from, 10, 64)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.ParseInt(to, 10, 64)
		}
		switch {
		case err1 != nil || err2 != nil || a < 0:
			return nil, fmt.Errorf("%s:%d: %q is no id nor FROM-TO range of positive ids", rel, line, Printable(text))
		case b < a:
			return nil, fmt.Errorf("%s:%d: range %s ends before it starts", rel, line, text)
		case len(out) > 0 && a <= out[len(out)-1].To:
			return nil, fmt.Errorf("%s:%d: %s overlaps or precedes the range before it: the ranges ascend, apart", rel, line, text)
		}
		out = append(out, IDRange{a, b})
	}
	return out, sc.Err()
}
