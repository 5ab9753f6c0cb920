package axiseffects_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/noise"
)

// handSamples are metric m's values of the summary rows whose threads and flush are the
// given ones, read row by row: the cell as a reader of summary.csv finds it.
func handSamples(run *results.Run, threads, flush, m string) []float64 {
	var out []float64
	S := run.Summary
	for i := range S.Rows {
		if S.Value(i, "threads") == threads && S.Value(i, "flush") == flush {
			v, _ := S.Float(i, m)
			out = append(out, v)
		}
	}
	return out
}

// A two-axis matrix with repeats gives one line per axis value pair and combination of
// the other axis, each with compare's verdict of the two cells' repeats, worked by hand.
func TestComputeMatchesCompareByHand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	fixture.Matrix(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := axiseffects.Compute(run)
	var got []string
	for _, l := range lines {
		got = append(got, l.Pair()+" at "+l.Where())
	}
	want := []string{
		"threads 4 vs 1 at flush=O_DIRECT", "threads 4 vs 1 at flush=fsync",
		"threads 16 vs 1 at flush=O_DIRECT", "threads 16 vs 1 at flush=fsync",
		"flush fsync vs O_DIRECT at threads=1", "flush fsync vs O_DIRECT at threads=4", "flush fsync vs O_DIRECT at threads=16",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	col := compare.Compare([]*results.Run{run}, nil)
	for _, l := range lines {
		if len(l.Effects) != 2 || l.Effects[0].Metric != "tps" || l.Effects[1].Metric != "p95_ms" {
			t.Fatalf("%s: effects %+v, want tps and p95_ms", l.Pair(), l.Effects)
		}
		for _, e := range l.Effects {
			base, this := cellOf(l, l.Base), cellOf(l, l.Value)
			a, b := repeats(handSamples(run, base[0], base[1], e.Metric)), repeats(handSamples(run, this[0], this[1], e.Metric))
			want := compare.Judge(col.Describe(e.Metric), a, b, l.SeedKey())
			if d := noise.Change(a.Mean, b.Mean); math.Abs(d-e.Verdict.Change) > 1e-9 {
				t.Errorf("%s %s: change %v, by hand %v", l.Pair(), e.Metric, e.Verdict.Change, d)
			}
			if e.Verdict.Kind != want.Kind || e.Verdict.Text != want.Text || e.Verdict.Lo != want.Lo || e.Verdict.Hi != want.Hi {
				t.Errorf("%s at %s %s: verdict %+v, compare of the cells' repeats %+v", l.Pair(), l.Where(), e.Metric, e.Verdict, want)
			}
		}
	}
	// the fixture's fsync is 20% slower at every thread count, repeats ±2%
	for _, l := range lines[4:] {
		v := l.Effects[0].Verdict
		if v.Kind != compare.Worse || math.Abs(v.Change+20) > 0.5 || !(v.Hi < 0) {
			t.Errorf("%s: tps %+v, want slower by 20%% with an interval below 0", l.Sentence(), v)
		}
		if !strings.Contains(l.Sentence(), "tps -20.0%, slower by 20% (95% CI ") {
			t.Errorf("sentence %q does not say tps -20.0%%, slower by 20%% (95%% CI ...)", l.Sentence())
		}
	}
}

// cellOf is the threads and flush of l's cell with its axis at v.
func cellOf(l axiseffects.Line, v string) [2]string {
	c := map[string]string{l.Axis: v}
	for _, f := range l.At {
		c[f.Name] = f.Value
	}
	return [2]string{c["threads"], c["flush"]}
}

// repeats are compare's statistics of a cell's repeats, built from the samples alone.
func repeats(v []float64) compare.Stats {
	return compare.Stats{N: len(v), Median: noise.Median(v), Mean: noise.Mean(v), Source: compare.FromRepeats, Samples: v,
		CV: noise.CV(v)}
}

// Without a matrix there is nothing to compare within the run.
func TestComputeNoMatrix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	fixture.Matrix(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	run.Info.Axes = nil
	if l := axiseffects.Compute(run); l != nil {
		t.Errorf("effects of a run without axes: %v", fmt.Sprint(l))
	}
}

// `quadrant report` prints one sentence a line, under a heading naming the folder.
func TestWriteText(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	fixture.Matrix(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := axiseffects.Compute(run)
	var b strings.Builder
	if err := axiseffects.WriteText(&b, dir, lines); err != nil {
		t.Fatal(err)
	}
	out := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(out) != 1+len(lines) || !strings.HasPrefix(out[0], "effects in "+dir) {
		t.Fatalf("text:\n%s", b.String())
	}
	for i, l := range lines {
		if out[i+1] != "  "+l.Sentence() {
			t.Errorf("line %d: %q, want %q", i+1, out[i+1], l.Sentence())
		}
	}
}
