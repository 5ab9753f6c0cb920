package html

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

func TestNumberReadsAsStrconvDoes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cells := []string{"0", "-0", "1.", ".5", "-", ".", "1e3", "0x10", "NaN", "Inf", "12a", "999999999999999", "1234567890123456",
		"0.000001", "-12.345", "00012.5000", " 1", "+1"}
	for i := 0; i < 200000; i++ {
		v := r.NormFloat64() * math.Pow(10, float64(r.IntN(16)-6))
		cells = append(cells, results.FormatFloat(v), strconv.FormatFloat(v, 'f', -1, 64), strconv.FormatFloat(v, 'g', -1, 64))
	}
	for _, c := range cells {
		got, ok := number(c)
		want, err := strconv.ParseFloat(c, 64)
		wantOK := err == nil && !math.IsNaN(want) && !math.IsInf(want, 0)
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("number(%q) = %v %v, strconv %v %v", c, got, ok, want, err)
		}
	}
}

// Each bucket of a downsampled line keeps its minimum and maximum in the order they
// happened, and a bucket without any sample stays a gap.
func TestDownsampleKeepsExtremesAndGaps(t *testing.T) {
	const n = 10000
	s := &samples{file: "timeseries/p.csv", names: []string{"tps"}, numeric: []bool{true}, iters: []string{"1", "2"}}
	s.cols = [][][]float64{nil}
	for r := 0; r < 2*n; r++ {
		if r%chunk == 0 {
			s.cols[0] = append(s.cols[0], make([]float64, chunk))
		}
		it, x := r/n, r%n
		v := float64(100 + it)
		switch {
		case it == 0 && x == 4321:
			v = 5000 // a one-second spike
		case it == 0 && x == 4322:
			v = -7 // then a dip, later in the same bucket
		case it == 1 && x >= 2000 && x < 3000:
			v = math.NaN() // a long gap
		}
		s.cols[0][r/chunk][r%chunk] = v
		s.rowX = append(s.rowX, int32(x))
		s.rowIter = append(s.rowIter, int32(it))
	}
	for x := 0; x < n; x++ {
		s.xs = append(s.xs, float64(x+1))
	}
	b := s.buckets(2*100*2, 1) // a share far below the samples: the fewest buckets
	if b != minBuckets {
		t.Fatalf("buckets %d, want %d", b, minBuckets)
	}
	var got struct {
		Buckets int               `json:"buckets"`
		X       []float64         `json:"x"`
		Columns map[string]string `json:"values"` // each column's JSON, parsed when drawn
		Values  map[string][][]*float64
	}
	if err := json.Unmarshal(s.seriesJSON([]int{0}, b), &got); err != nil {
		t.Fatal(err)
	}
	got.Values = map[string][][]*float64{}
	for name, text := range got.Columns {
		var v [][]*float64
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		got.Values[name] = v
	}
	if len(got.X) != 2*b || got.X[0] != 1 || got.X[len(got.X)-1] != n {
		t.Fatalf("x has %d points from %v to %v", len(got.X), got.X[0], got.X[len(got.X)-1])
	}
	line := got.Values["tps"][0]
	k := 4321 * b / n
	if *line[2*k] != 5000 || *line[2*k+1] != -7 {
		t.Errorf("spike bucket shows %v then %v, want 5000 then -7", *line[2*k], *line[2*k+1])
	}
	gaps := 0
	for _, v := range got.Values["tps"][1] {
		if v == nil {
			gaps++
		} else if *v != 101 {
			t.Fatalf("iteration 2 shows %v", *v)
		}
	}
	if gaps != 2*(3000/(n/b)-2000/(n/b)) {
		t.Errorf("%d null points for a gap of 10 buckets", gaps)
	}
}

// Long numbers make more JSON per point: the page is cut again to stay within its bytes.
func TestSeriesStayWithinTheByteBudget(t *testing.T) {
	const cols, iters, n = 150, 12, 3600
	s := &samples{file: "timeseries/p.csv"}
	r := rand.New(rand.NewPCG(5, 6))
	for c := 0; c < cols; c++ {
		s.names = append(s.names, "status.V"+strconv.Itoa(c))
		s.numeric = append(s.numeric, true)
		s.cols = append(s.cols, nil)
	}
	for i := 0; i < iters; i++ {
		s.iters = append(s.iters, strconv.Itoa(i+1))
	}
	for x := 0; x < n; x++ {
		s.xs = append(s.xs, float64(x+1))
	}
	for row := 0; row < iters*n; row++ {
		if row%chunk == 0 {
			for c := range s.cols {
				s.cols[c] = append(s.cols[c], make([]float64, chunk))
			}
		}
		for c := range s.cols {
			s.cols[c][row/chunk][row%chunk] = 123456 + float64(r.IntN(1e6))/1e6 // "123456.789012"
		}
		s.rowX = append(s.rowX, int32(row%n))
		s.rowIter = append(s.rowIter, int32(row/n))
	}
	out := seriesData(map[string]*samples{"p": s}, "")
	if size := len(out["p"]); size > budgetBytes {
		t.Fatalf("series of %d bytes, over the budget of %d", size, budgetBytes)
	}
	var got struct {
		Buckets int `json:"buckets"`
	}
	if err := json.Unmarshal(out["p"], &got); err != nil {
		t.Fatal(err)
	}
	if got.Buckets < minBuckets || got.Buckets >= budgetValues/(2*cols*iters) {
		t.Fatalf("%d buckets: want fewer than the value budget gives, at least %d", got.Buckets, minBuckets)
	}
}
