package reproduce_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/reporters/reproduce"
	"github.com/quadrant-bench/quadrant/results"
)

// base is the throughput of a cell at threads on a machine of speed scale.
func base(threads int, scale float64) float64 { return 1000 * math.Pow(float64(threads), 0.7) * scale }

// flushFolder writes a threads [4, 16] x flush_log [1, 2] folder whose cells' throughput tps gives.
func flushFolder(t *testing.T, name string, repeats int, tps func(threads int, flush string, repeat int) float64, edit func(*results.IterationInfo)) *results.Run {
	t.Helper()
	return flushFolderOn(t, name, nil, repeats, tps, edit)
}

// flushFolderOn is flushFolder on a server with these variables (fixture's when nil).
func flushFolderOn(t *testing.T, name string, vars map[string]string, repeats int, tps func(threads int, flush string, repeat int) float64, edit func(*results.IterationInfo)) *results.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	fixture.MatrixOf(t, dir, fixture.Shape{Threads: []int{4, 16}, Axis: "flush_log", Values: []string{"1", "2"}, Repeats: repeats,
		TPS: tps, Iteration: edit, Variables: vars})
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// published: flush_log 2 is 20% faster at every thread count; repeats move -3%, 0, +3%.
func published(threads int, flush string, repeat int) float64 {
	v := base(threads, 1) * (1 + 0.03*float64(repeat-2))
	if flush == "2" {
		v *= 1.2
	}
	return v
}

func verdicts(r *reproduce.Result) map[string]string {
	out := map[string]string{}
	for _, e := range r.Effects {
		out[e.Where()+" "+e.Metric] = e.Verdict
	}
	return out
}

// A rerun of the same effects on a slower machine, with its own noise, reproduces every one.
func TestRerunAsPublishedIsReproduced(t *testing.T) {
	pub := flushFolder(t, "published", 3, published, nil)
	here := flushFolder(t, "here", 3, func(threads int, flush string, repeat int) float64 {
		v := base(threads, 0.6) * (1 + 0.025*float64((repeat*7+threads)%3-1))
		if flush == "2" {
			v *= 1.2
		}
		return v
	}, nil)
	r := reproduce.Judge(pub, here)
	if r == nil || len(r.Effects) != 8 { // threads 16 vs 4 at flush 1, 2; flush 2 vs 1 at threads 4, 16; tps and p95_ms each
		t.Fatalf("effects: %+v, want 8", r)
	}
	for _, e := range r.Effects {
		if e.Verdict != reproduce.Reproduced {
			t.Errorf("%s: %s", reproduce.Label(e.Verdict), e.Sentence())
		}
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"reproduced      flush_log 2 vs 1 at threads=16, tps: published +20.0% (95% CI ",
		"reproduction: 8 effects: 8 reproduced, 0 not reproduced, 0 inconclusive"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// An effect the published machine made (flush_log 2 was 60% slower there: its log on a
// slow disk, say) is not reproduced where it cannot exist; the other axis's effects are.
func TestEffectOfItsEnvironmentIsNotReproduced(t *testing.T) {
	pub := flushFolderOn(t, "published", map[string]string{"innodb_flush_method": "fsync", "innodb_buffer_pool_size": "8388608", "tmpdir": "/tmp/a"}, 3,
		func(threads int, flush string, repeat int) float64 {
			v := published(threads, "1", repeat)
			if flush == "2" {
				v *= 0.4
			}
			return v
		}, nil)
	here := flushFolderOn(t, "here", map[string]string{"innodb_flush_method": "O_DIRECT", "innodb_buffer_pool_size": "1073741824", "tmpdir": "/var/tmp/b"}, 3,
		func(threads int, flush string, repeat int) float64 {
			return published(threads, "1", 4-repeat)
		}, nil)
	r := reproduce.Judge(pub, here)
	got := verdicts(r)
	for _, th := range []string{"4", "16"} {
		if v := got["flush_log 2 vs 1 at threads="+th+" tps"]; v != reproduce.NotReproduced {
			t.Errorf("flush_log 2 vs 1 at threads=%s tps: %s, want not reproduced", th, v)
		}
	}
	for _, f := range []string{"1", "2"} {
		if v := got["threads 16 vs 4 at flush_log="+f+" tps"]; v != reproduce.Reproduced {
			t.Errorf("threads 16 vs 4 at flush_log=%s tps: %s, want reproduced", f, v)
		}
	}
	var b bytes.Buffer
	r.WriteText(&b)
	if !strings.HasPrefix(strings.SplitN(b.String(), "\n", 3)[1], "  NOT REPRODUCED  flush_log 2 vs 1 at threads=") {
		t.Errorf("the first verdict is not the not reproduced one:\n%s", b.String())
	}
	// The candidate causes: the flush method (durability) before the buffer pool, and no
	// temporary directory among them.
	text := b.String()
	causes := text[strings.Index(text, "candidate causes"):]
	flush, pool := strings.Index(causes, "innodb_flush_method"), strings.Index(causes, "innodb_buffer_pool_size")
	if flush < 0 || pool < 0 || flush > pool || strings.Contains(causes, "tmpdir") {
		t.Errorf("the candidate causes under a not reproduced verdict are not the flush method, then the buffer pool:\n%s", text)
	}
	rec, err := r.Record("test", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Causes) == 0 || !strings.Contains(rec.Causes[0], "innodb_flush_method") {
		t.Errorf("the record's candidate causes: %q, want the flush method first", rec.Causes)
	}
}

// A rerun that changes nothing, with 2 repeats on a busy host (each iteration ±20% at
// random), never says not reproduced: two repeats cannot refute a claim.
func TestBusyHostTwoRepeatsNeverRefute(t *testing.T) {
	pub := flushFolder(t, "published", 3, published, nil)
	seen := map[string]int{}
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 44))
		here := flushFolder(t, fmt.Sprint("here", seed), 2, func(threads int, flush string, repeat int) float64 {
			return published(threads, flush, 2) * (0.8 + 0.4*rng.Float64())
		}, nil)
		for _, e := range reproduce.Judge(pub, here).Effects {
			seen[e.Verdict]++
			if e.Verdict == reproduce.NotReproduced {
				t.Errorf("seed %d: %s", seed, e.Sentence())
			}
		}
	}
	if seen[reproduce.Inconclusive] == 0 {
		t.Errorf("verdicts %v: a busy host's 2 repeats gave no inconclusive", seen)
	}
	t.Logf("verdicts over 6 busy reruns: %v", seen)
}

// An effect whose cell stalled in the rerun is marked with the iteration and not judged;
// the effects of whole cells are.
func TestStalledCellIsMarkedNotJudged(t *testing.T) {
	pub := flushFolder(t, "published", 3, published, nil)
	here := flushFolder(t, "here", 3, published, func(it *results.IterationInfo) {
		if it.Repeat == 2 && it.Matrix[0].Value == "16" && it.Matrix[1].Value == "2" {
			it.Stall = &results.Stall{PlannedS: 10, MeasuredS: 41, Overrun: true}
		}
	})
	for _, e := range reproduce.Judge(pub, here).Effects {
		touched := e.Line.Where() == "flush_log=2" || e.Line.Where() == "threads=16"
		switch {
		case touched && (e.Verdict != reproduce.Inconclusive || len(e.Marks) != 1 ||
			!strings.Contains(e.Marks[0], "here: iteration ") || !strings.Contains(e.Marks[0], "(threads=16 flush_log=2) stalled: measured 41.0 s of a planned 10 s")):
			t.Errorf("%s: %s, marks %q: want inconclusive, marked with the stalled iteration", e.Where(), e.Verdict, e.Marks)
		case touched && !strings.Contains(e.Why, "not judged: here: iteration"):
			t.Errorf("%s: why %q does not say it was not judged", e.Where(), e.Why)
		case !touched && (e.Verdict != reproduce.Reproduced || len(e.Marks) != 0):
			t.Errorf("%s: %s, marks %q: want reproduced, unmarked", e.Where(), e.Verdict, e.Marks)
		}
	}
}

// A rerun without one of the published cells says so for the effects it cannot judge.
func TestMissingCellIsInconclusive(t *testing.T) {
	pub := flushFolder(t, "published", 3, published, nil)
	dir := filepath.Join(t.TempDir(), "here")
	fixture.MatrixOf(t, dir, fixture.Shape{Threads: []int{4}, Axis: "flush_log", Values: []string{"1", "2"}, Repeats: 3, TPS: published})
	here, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]reproduce.Effect{}
	for _, e := range reproduce.Judge(pub, here).Effects {
		got[e.Where()+" "+e.Metric] = e
	}
	if e := got["flush_log 2 vs 1 at threads=16 tps"]; e.Verdict != reproduce.Inconclusive || !strings.Contains(e.Why, "no such pair of cells") {
		t.Errorf("threads=16, not rerun: %s (%s)", e.Verdict, e.Why)
	}
	if e := got["flush_log 2 vs 1 at threads=4 tps"]; e.Verdict != reproduce.Reproduced {
		t.Errorf("threads=4: %s (%s)", e.Verdict, e.Why)
	}
}

// Each way a cell's numbers can be other than a whole measurement is marked with the folder
// and iteration: behind its schedule or failed with an error (not judged), failed only its
// assertions (judged: its numbers stand).
func TestBehindAndFailedCellsAreMarked(t *testing.T) {
	pub := flushFolder(t, "published", 3, published, func(it *results.IterationInfo) {
		if it.Repeat == 1 && it.Matrix[0].Value == "4" && it.Matrix[1].Value == "2" {
			it.Behind = &results.Behind{LimitMs: 100, LagP99Ms: 450, LagP50Ms: 20, LagMaxMs: 900}
		}
	})
	here := flushFolder(t, "here", 3, published, func(it *results.IterationInfo) {
		switch {
		case it.Repeat == 3 && it.Matrix[0].Value == "16" && it.Matrix[1].Value == "2":
			it.Status, it.Error = results.StatusFailed, "server lost"
		case it.Repeat == 2 && it.Matrix[0].Value == "16" && it.Matrix[1].Value == "1":
			it.Status, it.Failed = results.StatusFailed, []string{"p99_ms < 5"}
		}
	})
	got := map[string]reproduce.Effect{}
	for _, e := range reproduce.Judge(pub, here).Effects {
		got[e.Where()+" "+e.Metric] = e
	}
	for _, c := range []struct{ key, verdict, mark string }{
		{"flush_log 2 vs 1 at threads=4 tps", reproduce.Inconclusive, "published: iteration 2 (threads=4 flush_log=2) fell behind its schedule: events started 450 ms late at p99 (limit 100 ms; median 20 ms, worst 900 ms)"},
		{"threads 16 vs 4 at flush_log=2 tps", reproduce.Inconclusive, "here: iteration 12 (threads=16 flush_log=2) failed: server lost"},
		{"flush_log 2 vs 1 at threads=16 tps", reproduce.Inconclusive, "here: iteration 12 (threads=16 flush_log=2) failed: server lost"},
		{"threads 16 vs 4 at flush_log=1 tps", reproduce.Reproduced, "here: iteration 7 (threads=16 flush_log=1) failed its assertions: assertions failed: p99_ms < 5"},
	} {
		e := got[c.key]
		if e.Verdict != c.verdict || !slices.Contains(e.Marks, c.mark) {
			t.Errorf("%s: %s, marks %q: want %s marked %q", c.key, e.Verdict, e.Marks, c.verdict, c.mark)
		}
	}
}
