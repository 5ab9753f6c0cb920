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

// Waits follow the same rule; equal times are ordered by name so waits.csv is stable.
func TestTopWaits(t *testing.T) {
	before := map[string]WaitStats{
		"wait/io/file/innodb/innodb_log_file": {Event: "wait/io/file/innodb/innodb_log_file", Count: 10, TimerPs: 5e8},
		"wait/lock/table/sql/handler":         {Event: "wait/lock/table/sql/handler", Count: 4, TimerPs: 4e6},
	}
	after := map[string]WaitStats{
		"wait/io/file/innodb/innodb_log_file": {Event: "wait/io/file/innodb/innodb_log_file", Count: 40, TimerPs: 2e9},
		"wait/lock/table/sql/handler":         {Event: "wait/lock/table/sql/handler", Count: 4, TimerPs: 4e6},
		"wait/io/table/sql/handler":           {Event: "wait/io/table/sql/handler", Count: 3, TimerPs: 1.5e9},
		"wait/io/file/sql/binlog":             {Event: "wait/io/file/sql/binlog", Count: 2, TimerPs: 1.5e9},
	}
	top := TopWaits(before, after, 10)
	want := []WaitStats{
		{Event: "wait/io/file/innodb/innodb_log_file", Count: 30, TimerPs: 1.5e9},
		{Event: "wait/io/file/sql/binlog", Count: 2, TimerPs: 1.5e9},
		{Event: "wait/io/table/sql/handler", Count: 3, TimerPs: 1.5e9},
	}
	if len(top) != len(want) {
		t.Fatalf("top %+v, want %+v", top, want)
	}
	for i := range want {
		if top[i] != want[i] {
			t.Fatalf("top[%d] = %+v, want %+v (all %+v)", i, top[i], want[i], top)
		}
	}
}
