package results

import (
	"reflect"
	"testing"
)

func TestDigestsAndWaitsReadBackAsWritten(t *testing.T) {
	dir := t.TempDir()
	if got, err := ReadDigests(dir); err != nil || got != nil {
		t.Fatalf("a folder without digests.csv: %v %v", got, err)
	}
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	digests := []DigestRow{
		{Iteration: 1, Target: "primary", Rank: 1, Schema: "sbtest", Digest: "abc", Text: "SELECT c FROM sbtest1 WHERE id = ?, \"quoted\"",
			Count: 1000, TotalMs: 12.5, AvgMs: 0.0125, RowsExamined: 1000, RowsSent: 1000, NoIndexUsed: 2, NoGoodIndexUsed: 1, Errors: 3},
		{Iteration: 2, Target: "primary", Rank: 1, Schema: "", Digest: "def", Text: "COMMIT", Count: 7, TotalMs: 1, AvgMs: 0.142857},
	}
	waits := []WaitRow{{Iteration: 1, Target: "primary", Rank: 1, Event: "wait/io/file/innodb/innodb_log_file", Count: 50, TotalMs: 3.25, AvgUs: 65}}
	if err := w.AppendDigests(digests); err != nil {
		t.Fatal(err)
	}
	if err := w.AppendWaits(waits); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	gotD, err := ReadDigests(dir)
	if err != nil || !reflect.DeepEqual(gotD, digests) {
		t.Fatalf("digests %+v %v, want %+v", gotD, err, digests)
	}
	gotW, err := ReadWaits(dir)
	if err != nil || !reflect.DeepEqual(gotW, waits) {
		t.Fatalf("waits %+v %v, want %+v", gotW, err, waits)
	}
}
