package replay

import (
	"maps"
	"slices"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// Under --shard K/N each captured session is replayed by exactly one shard, whole, and the
// shards' captured figures add up to the file's: sessions, statements, statements per
// fingerprint, skipped statements. Every shard ranks the fingerprints alike (the merge
// lines their columns up by name) and counts the timing from the same first start.
func TestSessionsSplitAcrossShards(t *testing.T) {
	for _, file := range []string{"../../traffic/testdata/mariadb-general.log", "../../traffic/testdata/mariadb-slow.log"} {
		r := &Replay{Path: file, File: file, Format: "auto", Top: 3, OnMalformed: "stop", ReadOnly: true}
		whole, wholeTexts := scanned2(t, r, workload.Env{})
		if len(whole.sessions) < 3 {
			t.Fatalf("%s: %d sessions; the test needs at least 3", file, len(whole.sessions))
		}
		for _, n := range []int{2, 3, len(whole.sessions)} {
			owner := map[uint64]int{}
			var sessions, statements, skipped int64
			var kept []int64
			captured := make([]int64, len(whole.captured))
			for k := range n {
				sc, texts := scanned2(t, r, workload.Env{Shard: shard.Shard{Index: k, Count: n}})
				if !slices.Equal(sc.names, whole.names) || !sc.first.Equal(whole.first) || sc.all != whole.all {
					t.Errorf("%s shard %d/%d: fingerprints %v, first %v, all %d; unsharded %v, %v, %d", file, k, n, sc.names, sc.first, sc.all, whole.names, whole.first, whole.all)
				}
				for i, id := range sc.sessions {
					if prev, dup := owner[id]; dup {
						t.Errorf("%s: session %d replayed by shards %d and %d of %d", file, id, prev, k, n)
					}
					owner[id] = k
					if want := wholeTexts[whole.index[id]]; !slices.Equal(texts[i], want) {
						t.Errorf("%s shard %d/%d: session %d has statements %q, unsharded %q: a session split", file, k, n, id, texts[i], want)
					}
					kept = append(kept, int64(len(texts[i])))
				}
				sessions += sc.replay.SessionsCaptured
				statements += sc.replay.StatementsCaptured
				skipped += sc.replay.Skipped["read_only"]
				for i, c := range sc.captured {
					captured[i] += c
				}
			}
			if len(owner) != len(whole.sessions) {
				t.Errorf("%s, %d shards: sessions %v replayed, want every one of %v", file, n, slices.Sorted(maps.Keys(owner)), whole.sessions)
			}
			if sessions != whole.replay.SessionsCaptured || statements != whole.replay.StatementsCaptured || skipped != whole.replay.Skipped["read_only"] {
				t.Errorf("%s, %d shards: captured %d sessions, %d statements, %d skipped; the file has %d, %d, %d",
					file, n, sessions, statements, skipped, whole.replay.SessionsCaptured, whole.replay.StatementsCaptured, whole.replay.Skipped["read_only"])
			}
			if !slices.Equal(captured, whole.captured) {
				t.Errorf("%s, %d shards: captured per fingerprint %v, the file's %v", file, n, captured, whole.captured)
			}
			var sum, want int64
			for _, c := range kept {
				sum += c
			}
			for _, c := range wholeTexts {
				want += int64(len(c))
			}
			if sum != want {
				t.Errorf("%s, %d shards: %d statements to replay, unsharded %d", file, n, sum, want)
			}
		}
	}
}

// scanned2 scans r's file as a replay does and reads each session's statements back from the
// spill, in the order the session runs them.
func scanned2(t *testing.T, r *Replay, env workload.Env) (*scanned, [][]string) {
	t.Helper()
	sp, err := newSpill()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	sc, err := scan(r, env, sp)
	if err != nil {
		t.Fatal(err)
	}
	texts := make([][]string, len(sc.sessions))
	for i := range texts {
		rd := sp.reader(i)
		var rec record
		for {
			ok, err := rd.next(&rec)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			texts[i] = append(texts[i], rec.text)
		}
	}
	return sc, texts
}
