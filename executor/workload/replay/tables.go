package replay

import (
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// Tables are a replay's own tables, declared so that the folder (run.json) says how to
// read, merge and show them: replay.csv, one row per iteration and target, how faithfully
// the replay reproduced the capture; fingerprints.csv, one row per statement fingerprint.
// Each shard of a sharded replay replayed whole sessions of its own and counted the
// captured figures of those, so counts are the shards' sum; what no folder keeps a
// histogram of (the schedule lag, the captured durations) is left empty rather than guessed.
var Tables = []measure.Table{
	{
		File: fidelityFile, Title: "Replay fidelity (captured vs replayed, schedule lag)", Key: []string{"iteration", "target"},
		Columns: append(keyColumns(),
			count("sessions_captured", "sessions in the capture"),
			count("sessions_replayed", "sessions replayed"),
			count("statements_captured", "statements in the capture"),
			count("statements_replayed", "statements replayed"),
			count("skipped_read_only", "statements skipped as read-only"),
			count("skipped_include", "statements skipped by include"),
			count("skipped_exclude", "statements skipped by exclude"),
			count("errors", "replayed statements that failed"),
			count("errors_captured", "replayed statements that failed in the capture"),
			count("errors_unlike_capture", "statements whose outcome differs from the captured one"),
			count("sessions_blocked", "sessions that waited on a lock"),
			millis("blocked_max_ms", "the longest time one session spent blocked", "max"),
			count("lock_waits", "lock waits that ended in 1205/1213"),
			millis("lock_wait_ms", "time spent in those lock waits", "sum"),
			count("long_statements", "statements longer than captured"),
			millis("long_ms", "time beyond the captured durations", "sum"),
			count("rows_mismatches", "statements whose rows differ from the captured count"),
			millis("lag_p50_ms", "median lag behind the captured schedule", "empty"),
			millis("lag_p99_ms", "99th percentile lag behind the captured schedule", "empty"),
			count("order_waits", "statements that waited for commit order"),
			millis("order_wait_ms", "time spent waiting for commit order", "sum"),
			count("order_timeouts", "commit-order waits that timed out"),
			// a sharded replay compares no end state: no shard has all the writes
			measure.TableColumn{Name: "end_state", Description: "the written tables at the end against the capture's: same or different", Merge: "empty"},
			measure.TableColumn{Name: "end_state_differs", Description: "the tables that differ", Merge: "empty"},
		),
	},
	{
		File: fingerprintsFile, Title: "Statement fingerprints (replayed vs captured latency)",
		Key: []string{"iteration", "target", "fingerprint_id"}, Sort: "total_ms", Last: otherFingerprint,
		Columns: append(keyColumns(),
			measure.TableColumn{Name: "rank", Description: "rank by replayed total time", Merge: "rank"},
			measure.TableColumn{Name: "fingerprint_id", Description: "the fingerprint's id", Merge: "key"},
			count("count", "statements replayed"),
			count("captured_count", "statements in the capture"),
			millis("total_ms", "replayed total time", "sum"),
			count("errors", "replayed statements that failed"),
			measure.TableColumn{Name: "errors_by_code", Description: "replayed errors by code (CODE:COUNT)", Merge: "codes"},
			measure.TableColumn{Name: "captured_errors_by_code", Description: "captured errors by code (CODE:COUNT)", Merge: "codes"},
			count("rows_sent", "rows sent"),
			count("rows_mismatches", "statements whose rows differ from the captured count"),
			percentile("p50_ms", 50), millis("captured_p50_ms", "captured median duration", "empty"),
			percentile("p95_ms", 95), millis("captured_p95_ms", "captured 95th percentile duration", "empty"),
			percentile("p99_ms", 99), millis("captured_p99_ms", "captured 99th percentile duration", "empty"),
			measure.TableColumn{Name: "fingerprint", Description: "the statement, its literals replaced", Merge: "key"},
		),
		// compare sets a fingerprint's replayed p95 in one run beside another's
		Compare: &measure.TableCompare{Title: "Statement fingerprints", Row: results.ColFingerprintID, RowLabel: "fingerprint",
			Text: results.ColFingerprint, TextLabel: "statement", Value: results.ColFingerprintP95, ValueLabel: "replayed p95", Count: results.ColCount},
	},
}

func keyColumns() []measure.TableColumn {
	return []measure.TableColumn{
		{Name: "iteration", Description: "the iteration", Merge: "key"},
		{Name: "target", Description: "the target", Merge: "key"},
	}
}

func count(name, doc string) measure.TableColumn {
	return measure.TableColumn{Name: name, Description: doc, Merge: "sum"}
}

func millis(name, doc, merge string) measure.TableColumn {
	return measure.TableColumn{Name: name, Description: doc, Unit: measure.Millis, Merge: merge, Better: measure.Lower}
}

// percentile is a replayed latency percentile, of the fingerprint's tx.ID histogram.
func percentile(name string, q float64) measure.TableColumn {
	c := millis(name, "replayed latency percentile", "histogram")
	c.Histogram, c.Percentile = "tx", q
	return c
}

const (
	// fidelityFile (replay.csv) is the replay's table of how faithfully it reproduced the
	// capture; fingerprintsFile its table of statement fingerprints.
	fidelityFile     = "replay.csv"
	fingerprintsFile = "fingerprints.csv"
	// otherFingerprint is the fingerprint id of the statements outside the top ones, ranked
	// last.
	otherFingerprint = "other"
)
