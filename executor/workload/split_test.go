package workload

import (
	"math"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// A load shape under --shard K/N: each stage's workers are split as the flat case's (the
// shards' gates together open exactly the global ids below the stage's threads, each
// once) and its rate is R/N, which the shards add back up to R.
func TestSplitStages(t *testing.T) {
	closed := []engine.Stage{{Duration: time.Second, Threads: 7}, {Duration: 2 * time.Second, Threads: 3}, {Duration: time.Second, Threads: 12}}
	open := []engine.Stage{{Duration: time.Second, Rate: 90}, {Duration: time.Second, Rate: 300}}
	const n = 3
	for _, stages := range [][]engine.Stage{closed, open} {
		cfg := engine.Config{Threads: 12, Stages: stages}
		threads := make([]int, len(stages))
		rates := make([]float64, len(stages))
		seen := make([]map[int]int, len(stages))
		for k := range n {
			sh := shard.Shard{Index: k, Count: n}
			c := Env{Shard: sh}.Split(cfg)
			if len(c.Stages) != len(stages) {
				t.Fatalf("shard %d: %d stages, want %d", k, len(c.Stages), len(stages))
			}
			for i, st := range c.Stages {
				if st.Duration != stages[i].Duration {
					t.Errorf("shard %d stage %d: duration %s, want %s", k, i+1, st.Duration, stages[i].Duration)
				}
				if st.Threads > c.Threads {
					t.Errorf("shard %d stage %d: %d threads over the shard's %d workers", k, i+1, st.Threads, c.Threads)
				}
				threads[i] += st.Threads
				rates[i] += st.Rate
				if seen[i] == nil {
					seen[i] = map[int]int{}
				}
				for local := range st.Threads { // the gate opens local ids 0..threads-1
					seen[i][sh.Global(local)]++
				}
			}
		}
		for i, st := range stages {
			if threads[i] != st.Threads || math.Abs(rates[i]-st.Rate) > 1e-9 {
				t.Errorf("stage %d: shards run %d threads at %v/s in all, want %d at %v/s", i+1, threads[i], rates[i], st.Threads, st.Rate)
			}
			for g := range st.Threads {
				if seen[i][g] != 1 {
					t.Errorf("stage %d: global worker %d runs on %d shards, want 1", i+1, g, seen[i][g])
				}
			}
			if len(seen[i]) != st.Threads {
				t.Errorf("stage %d: global workers %v, want 0..%d", i+1, seen[i], st.Threads-1)
			}
		}
	}
	if c := (Env{}).Split(engine.Config{Threads: 4, Stages: closed}); c.Stages[0].Threads != 7 {
		t.Errorf("unsharded: stage threads %d, want 7 untouched", c.Stages[0].Threads)
	}
}
