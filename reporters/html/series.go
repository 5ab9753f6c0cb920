package html

import (
	"encoding/json"
	"math"
	"path"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/quadrant-bench/quadrant/results"
)

// The over-time charts draw one line per iteration over elapsed seconds. A long run has
// far more samples per line than a chart has pixels (an hour at 1 s is 3600 a line,
// ~1000 px wide), and a report of every sample of 200 columns runs to hundreds of MB.
// Past a budget, each line is cut into buckets of elapsed time and keeps the minimum and
// the maximum of each, in the order they happened: spikes and dips stay visible, the
// envelope is exact, and the CSV keeps every sample.
const (
	// budgetValues bounds the numbers of all over-time charts of one page together (a
	// number is 2-10 bytes of JSON, ~5.5 for status counters), and budgetBytes their
	// JSON: a page over it is cut again, to keep report.html well under 15 MB.
	budgetValues = 1_500_000
	budgetBytes  = 12 << 20
	maxBuckets   = 1000 // 2000 points a line: beyond a chart's width in pixels
	minBuckets   = 100  // below this a chart says too little; the budget gives way
	chunk        = 8192 // column storage grows by chunks: no copy of a growing slice
)

// charted says whether the page charts a time-series column: not a row key, which places a
// sample rather than measures anything (results.Describe), except the stage, whose steps are
// drawn and which stageMarks reads.
func charted(name string) bool {
	return name == results.ColStage || !results.IsKey(results.TimeseriesCSV, name)
}

// samples is one target's time series by column, as numbers (NaN for an empty cell):
// a twentieth of its size as strings.
type samples struct {
	file    string
	names   []string      // chartable columns, in header order
	cols    [][][]float64 // per column, in chunks of chunk values
	numeric []bool        // the column has at least one number
	rowX    []int32       // per row: index into xs
	rowIter []int32       // per row: index into iters
	xs      []float64     // distinct elapsed_s, ascending
	iters   []string      // iteration values, in numeric order
}

func (s *samples) value(c, row int) float64 { return s.cols[c][row/chunk][row%chunk] }

// readSamples streams target's time series once.
func readSamples(run *results.Run, target string) (*samples, error) {
	ts := run.Timeseries[target]
	s := &samples{file: path.Join(results.TimeseriesDir, target+".csv")}
	var src []int
	for i, h := range ts.Header {
		if charted(h) {
			s.names = append(s.names, h)
			src = append(src, i)
		}
	}
	s.cols = make([][][]float64, len(src))
	s.numeric = make([]bool, len(src))
	ic, ec := ts.Col(results.ColIteration), ts.Col(results.ColElapsed)
	xIndex := map[float64]int32{}
	iterIndex := map[string]int32{}
	var rowXVal []float64
	n := 0
	err := run.EachRow(target, func(row []string) error {
		x, ok := number(cell(row, ec))
		if !ok {
			return nil // a sample without a place on the x axis cannot be drawn
		}
		if _, seen := xIndex[x]; !seen {
			xIndex[x] = int32(len(s.xs))
			s.xs = append(s.xs, x)
		}
		it := cell(row, ic)
		k, seen := iterIndex[it]
		if !seen {
			k = int32(len(s.iters))
			iterIndex[it] = k
			s.iters = append(s.iters, it)
		}
		rowXVal = append(rowXVal, x)
		s.rowIter = append(s.rowIter, k)
		if n%chunk == 0 {
			for c := range s.cols {
				s.cols[c] = append(s.cols[c], make([]float64, chunk))
			}
		}
		for c, i := range src {
			v, ok := number(row[i])
			if ok {
				s.numeric[c] = true
			} else {
				v = math.NaN()
			}
			s.cols[c][n/chunk][n%chunk] = v
		}
		n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	// x and iterations in ascending order; rows then point at their sorted positions.
	sort.Float64s(s.xs)
	for i, x := range s.xs {
		xIndex[x] = int32(i)
	}
	s.rowX = make([]int32, n)
	for r, x := range rowXVal {
		s.rowX[r] = xIndex[x]
	}
	order := make([]int, len(s.iters))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return iterLess(s.iters[order[a]], s.iters[order[b]]) })
	newPos := make([]int32, len(order))
	sorted := make([]string, len(order))
	for to, from := range order {
		newPos[from] = int32(to)
		sorted[to] = s.iters[from]
	}
	s.iters = sorted
	for r, k := range s.rowIter {
		s.rowIter[r] = newPos[k]
	}
	return s, nil
}

// stageMarks are the elapsed seconds where a stage of a load shape begins, in any
// iteration of any target, ascending: the end of the interval before a stage's first
// (the end of warmup, 0, for the first stage when there is one). Every over-time chart
// marks them, each with its label: the stage and its level from levels ("stage 2: threads
// 64"), the iterations' different ones joined.
func stageMarks(all map[string]*samples, levels map[string]map[int]string) ([]float64, []string) {
	seen := map[float64][]string{}
	for _, s := range all {
		c := -1
		for i, n := range s.names {
			if n == results.ColStage {
				c = i
			}
		}
		if c < 0 {
			continue
		}
		prevStage := map[int32]float64{}
		prevX := map[int32]float64{}
		for r := range s.rowX {
			it, x, v := s.rowIter[r], s.xs[s.rowX[r]], s.value(c, r)
			before, seenIt := prevStage[it]
			// A first stage with no interval before it (no warmup) starts where the chart does.
			if !math.IsNaN(v) && seenIt && (math.IsNaN(before) || before != v) {
				label := "stage " + strconv.Itoa(int(v))
				if l := levels[s.iters[it]][int(v)]; l != "" {
					label += ": " + l
				}
				if !slices.Contains(seen[prevX[it]], label) {
					seen[prevX[it]] = append(seen[prevX[it]], label)
				}
			}
			prevStage[it], prevX[it] = v, x
		}
	}
	var out []float64
	for x := range seen {
		out = append(out, x)
	}
	sort.Float64s(out)
	labels := make([]string, len(out))
	for i, x := range out {
		sort.Strings(seen[x])
		labels[i] = strings.Join(seen[x], ", ")
	}
	return out, labels
}

func iterLess(a, b string) bool {
	x, okx := number(a)
	y, oky := number(b)
	switch {
	case okx && oky:
		return x < y
	case okx != oky:
		return okx
	}
	return a < b
}

func cell(row []string, c int) string {
	if c < 0 || c >= len(row) {
		return ""
	}
	return row[c]
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// number is a cell as the page reads it: empty or not a finite number is no value.
//
// The cells results.FormatFloat writes ("-12.345", at most 15 digits) are read directly:
// an integer below 2^53 divided by an exact power of ten is the correctly rounded
// value, as strconv.ParseFloat gives, at a fraction of its cost over 20 million cells.
// Anything else goes to strconv.
func number(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	i, neg := 0, false
	if s[0] == '-' {
		i, neg = 1, true
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
			continue
		case c == '.' && !dot:
			dot = true
			continue
		}
		break
	}
	if i == len(s) && digits > 0 && digits <= 15 {
		v := float64(m) / pow10[frac]
		if neg {
			v = -v
		}
		return v, true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// chartable lists the columns with at least one number, or just only when set.
func (s *samples) chartable(only string) []int {
	var out []int
	for c, name := range s.names {
		if s.numeric[c] && (only == "" || name == only) {
			out = append(out, c)
		}
	}
	return out
}

// buckets is how many buckets each line of this target gets from its share of the budget,
// 0 when every sample fits.
func (s *samples) buckets(share int, cols int) int {
	lines := cols * len(s.iters)
	if lines == 0 || len(s.xs)*lines <= share || len(s.xs) <= 2*minBuckets {
		return 0
	}
	b := share / (2 * lines)
	b = max(minBuckets, min(maxBuckets, b))
	if len(s.xs) <= 2*b {
		return 0
	}
	return b
}

// seriesJSON renders the chart data of columns cols: the shared x axis, each column's
// values per iteration aligned on it (null where an iteration has no sample), and,
// when downsampled, how. A column's values are a JSON text inside a string, parsed by
// the page when it draws that column: the first render parses the few charts it shows,
// not the hundreds of columns a picker offers.
func (s *samples) seriesJSON(cols []int, b int) json.RawMessage {
	buf := s.appendHead(make([]byte, 0, 1<<16), cols, b)
	lo, x := bucketBounds(s.xs, b)
	buf = append(buf, `],"x":`...)
	buf = appendNumbers(buf, x)
	buf = append(buf, `,"values":{`...)
	var bucketOf []int32
	if b > 0 {
		bucketOf = make([]int32, len(s.xs))
		for k := 0; k < b; k++ {
			for p := lo[k]; p < lo[k+1]; p++ {
				bucketOf[p] = int32(k)
			}
		}
	}
	lines := make([][]float64, len(s.iters))
	for i := range lines {
		lines[i] = make([]float64, len(x))
	}
	// Per bucket and iteration: the smallest and largest value and where they were.
	var lowP, highP []int32
	if b > 0 {
		lowP, highP = make([]int32, b*len(s.iters)), make([]int32, b*len(s.iters))
	}
	for ci, c := range cols {
		if ci > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, s.names[c])
		buf = append(buf, `:"[`...)
		for _, l := range lines {
			for i := range l {
				l[i] = math.NaN()
			}
		}
		if b == 0 {
			for r := range s.rowX { // a later sample of the same second wins, empty or not
				lines[s.rowIter[r]][s.rowX[r]] = s.value(c, r)
			}
		} else {
			s.bucketLines(c, b, lines, bucketOf, lowP, highP)
		}
		for i, l := range lines {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendNumbers(buf, l)
		}
		buf = append(buf, `]"`...)
	}
	buf = append(buf, "}}"...)
	return buf
}

// appendHead writes the series' file, sizes, iterations and column names, up to the open
// columns list.
func (s *samples) appendHead(buf []byte, cols []int, b int) []byte {
	buf = append(buf, `{"file":`...)
	buf = appendString(buf, s.file)
	buf = append(buf, `,"rows":`...)
	buf = strconv.AppendInt(buf, int64(len(s.rowX)), 10)
	buf = append(buf, `,"positions":`...)
	buf = strconv.AppendInt(buf, int64(len(s.xs)), 10)
	buf = append(buf, `,"buckets":`...)
	buf = strconv.AppendInt(buf, int64(b), 10)
	buf = append(buf, `,"iterations":[`...)
	for i, it := range s.iters {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, it)
	}
	buf = append(buf, `],"columns":[`...)
	for i, c := range cols {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, s.names[c])
	}
	return buf
}

// bucketBounds splits positions xs into b buckets: bucket k covers xs[lo[k]:lo[k+1]], and
// its two points sit at its first and last x. With b 0, every position is its own point.
func bucketBounds(xs []float64, b int) (lo []int, x []float64) {
	if b == 0 {
		return nil, xs
	}
	lo = make([]int, b+1)
	for k := 0; k <= b; k++ {
		lo[k] = k * len(xs) / b
	}
	x = make([]float64, 0, 2*b)
	for k := 0; k < b; k++ {
		x = append(x, xs[lo[k]], xs[lo[k+1]-1])
	}
	return lo, x
}

// bucketLines puts column c's smallest and largest value of each bucket into each
// iteration's line, in the order they happened.
func (s *samples) bucketLines(c, b int, lines [][]float64, bucketOf, lowP, highP []int32) {
	for r := range s.rowX {
		v := s.value(c, r)
		if math.IsNaN(v) {
			continue
		}
		p := s.rowX[r]
		k := int(bucketOf[p])
		l := lines[s.rowIter[r]]
		slot := k*len(s.iters) + int(s.rowIter[r])
		lv, hv := l[2*k], l[2*k+1]
		if math.IsNaN(lv) || v < lv {
			l[2*k], lowP[slot] = v, p
		}
		if math.IsNaN(hv) || v > hv {
			l[2*k+1], highP[slot] = v, p
		}
	}
	for it, l := range lines {
		for k := 0; k < b; k++ {
			slot := k*len(s.iters) + it
			if highP[slot] < lowP[slot] && !math.IsNaN(l[2*k]) {
				l[2*k], l[2*k+1] = l[2*k+1], l[2*k]
			}
		}
	}
}

func appendString(buf []byte, s string) []byte {
	b, _ := json.Marshal(s) // cannot fail for a string
	return append(buf, b...)
}

// appendNumbers writes the shortest decimal that reads back as the same float64, so a
// sample shows as the CSV has it; NaN is null (a gap in the line).
func appendNumbers(buf []byte, v []float64) []byte {
	buf = append(buf, '[')
	for i, x := range v {
		if i > 0 {
			buf = append(buf, ',')
		}
		if math.IsNaN(x) {
			buf = append(buf, "null"...)
			continue
		}
		buf = strconv.AppendFloat(buf, x, 'f', -1, 64)
	}
	return append(buf, ']')
}

// readAllSamples reads every target's time series, a few at a time (each is one CSV
// parse; targets are independent).
func readAllSamples(run *results.Run) (map[string]*samples, error) {
	out := make(map[string]*samples, len(run.Targets))
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for _, t := range run.Targets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s, err := readSamples(run, t)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			out[t] = s
		}()
	}
	wg.Wait()
	return out, firstErr
}

// seriesData is the over-time chart data of every target, each line downsampled when
// the page's budget asks: shared out by each target's number of lines.
func seriesData(all map[string]*samples, only string) map[string]json.RawMessage {
	out, size := seriesWithin(all, only, budgetValues)
	if size > budgetBytes {
		// Long numbers: the JSON grows with the buckets, so fewer buckets in proportion.
		out, _ = seriesWithin(all, only, int(int64(budgetValues)*budgetBytes/int64(size)*9/10))
	}
	return out
}

func seriesWithin(all map[string]*samples, only string, budget int) (map[string]json.RawMessage, int) {
	out := map[string]json.RawMessage{}
	lines := 0
	chosen := map[string][]int{}
	for t, s := range all {
		cols := s.chartable(only)
		if only != "" && len(cols) == 0 {
			continue
		}
		chosen[t] = cols
		lines += len(cols) * len(s.iters)
	}
	size := 0
	for t, cols := range chosen {
		s := all[t]
		share := budget
		if lines > 0 {
			share = int(int64(budget) * int64(len(cols)*len(s.iters)) / int64(lines))
		}
		out[t] = s.seriesJSON(cols, s.buckets(share, len(cols)))
		size += len(out[t])
	}
	return out, size
}
