package mysqlwatch

import "testing"

// Increases between snapshots, largest total time first; a class that was reset counts from zero, one that
// did not run is left out.
func TestTopDigests(t *testing.T) {
	before := map[string]DigestStats{
		"a": {Digest: "a", Count: 100, TimerPs: 1e9},
		"b": {Digest: "b", Count: 50, TimerPs: 5e9},
		"c": {Digest: "c", Count: 7, TimerPs: 1e6},
	}
	after := map[string]DigestStats{
		"a": {Digest: "a", Count: 300, TimerPs: 9e9},
		"b": {Digest: "b", Count: 10, TimerPs: 2e9}, // reset: TRUNCATE, or evicted and back
		"c": {Digest: "c", Count: 7, TimerPs: 1e6},
		"d": {Digest: "d", Count: 1, TimerPs: 1},
	}
	top := TopDigests(before, after, 2)
	if len(top) != 2 || top[0].Digest != "a" || top[0].Count != 200 || top[0].TimerPs != 8e9 || top[1].Digest != "b" || top[1].Count != 10 {
		t.Fatalf("top %+v", top)
	}
	if all := TopDigests(before, after, 10); len(all) != 3 {
		t.Fatalf("all %+v, want a, b, d", all)
	}
}
