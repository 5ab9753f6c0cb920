package replay

import (
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// Fidelity is what a replay of captured traffic reproduced, beside the Total's
// per-fingerprint Transactions (named by fingerprint id): the summary and what the engine
// does not count. The run's measure.Total carries it as its Summary, and its rows of
// replay.csv and fingerprints.csv (tables.go declares them) as its Rows.
type Fidelity struct {
	SessionsCaptured, SessionsReplayed     int64
	StatementsCaptured, StatementsReplayed int64
	// Skipped counts statements left out by filter: read_only, include, exclude.
	Skipped map[string]int64
	// RowsMismatches counts statements whose result set had another number of rows than captured.
	RowsMismatches int64
	// ErrorsCaptured counts replayed statements that failed in the capture (where it says);
	// ErrorsUnlikeCapture those whose replayed outcome differs from the captured one (another
	// error, an error where it succeeded or its outcome is unknown, success where it failed).
	ErrorsCaptured, ErrorsUnlikeCapture int64
	// Time the sessions spent blocked: in statements that ended in a lock wait timeout or a
	// deadlock (LockWaits), or that ran longer than captured by a margin (LongStatements,
	// LongTime is the excess); SessionsBlocked is how many sessions had either.
	LockWaits       int64
	LockWaitTime    time.Duration
	LongStatements  int64
	LongTime        time.Duration
	SessionsBlocked int64
	// BlockedMost is the time the most blocked session spent blocked (lock waits and long
	// statements): one session stuck, or the time spread over many.
	BlockedMost time.Duration
	// The captured order kept (order: commit): statements that waited for the captured
	// commits or locking statements before them, the time they waited, and waits that timed
	// out or that the stall watchdog let go.
	OrderWaits    int64
	OrderWaitTime time.Duration
	OrderTimeouts int64
	// EndState is "same" when the tables the capture wrote end as they ended in the
	// capture (CHECKSUM TABLE), "different" (EndDiffers names them), "" when not compared.
	EndState     string
	EndDiffers   []string
	Fingerprints []Fingerprint
}

// Fingerprint is one statement class of a replay, or "other" for all below the top N.
type Fingerprint struct {
	ID, Text string
	// Captured statements of the class, and their captured durations (nil when the source has none).
	Captured        int64
	CapturedLatency *measure.Histogram
	ErrorsByCode    map[int]int64
	// CapturedErrorsByCode are the errors the capture recorded for the replayed statements.
	CapturedErrorsByCode     map[int]int64
	RowsSent, RowsMismatches int64
}

// fidelityOf is the Fidelity a replay's total carries, nil for another kind's.
func fidelityOf(t *measure.Total) *Fidelity {
	if t == nil {
		return nil
	}
	f, _ := t.Summary.(*Fidelity)
	return f
}

// tableRows are the replay's rows of its tables.
func tableRows(t *measure.Total, f *Fidelity) map[string][]measure.Row {
	return map[string][]measure.Row{fidelityFile: {replayRow(t, f)}, fingerprintsFile: fingerprintRows(t, f)}
}

// replayRow is the row of replay.csv: how faithfully the replay reproduced the capture (its
// errors against the captured ones), how long its sessions spent blocked (lock waits that
// ended in 1205/1213, statements longer than captured), and how far behind its schedule
// the replayer ran (lag = actual minus intended start).
func replayRow(t *measure.Total, f *Fidelity) measure.Row {
	var r measure.Row
	r.Add("sessions_captured", f.SessionsCaptured)
	r.Add("sessions_replayed", f.SessionsReplayed)
	r.Add("statements_captured", f.StatementsCaptured)
	r.Add("statements_replayed", f.StatementsReplayed)
	for _, k := range []string{"read_only", "include", "exclude"} {
		r.Add("skipped_"+k, f.Skipped[k])
	}
	r.Add("errors", t.Errors)
	r.Add("errors_captured", f.ErrorsCaptured)
	r.Add("errors_unlike_capture", f.ErrorsUnlikeCapture)
	r.Add("sessions_blocked", f.SessionsBlocked)
	r.Add(results.ColBlockedMaxMs, measure.Ms(f.BlockedMost))
	r.Add("lock_waits", f.LockWaits)
	r.Add("lock_wait_ms", measure.Ms(f.LockWaitTime))
	r.Add("long_statements", f.LongStatements)
	r.Add("long_ms", measure.Ms(f.LongTime))
	r.Add("rows_mismatches", f.RowsMismatches)
	r.Add("lag_p50_ms", percentileMs(t.Lag, 50))
	r.Add("lag_p99_ms", percentileMs(t.Lag, 99))
	r.Add("order_waits", f.OrderWaits)
	r.Add("order_wait_ms", measure.Ms(f.OrderWaitTime))
	r.Add("order_timeouts", f.OrderTimeouts)
	r.Add(results.ColEndState, f.EndState)
	r.Add(results.ColEndDiffers, strings.Join(f.EndDiffers, " "))
	return r
}

// fingerprintRows lays out the per-fingerprint figures, top N by replayed total time first
// and "other" last: replayed latency percentiles from the fingerprint's own histogram beside
// the captured durations' percentiles.
func fingerprintRows(t *measure.Total, f *Fidelity) []measure.Row {
	named := map[string]measure.Named{}
	for _, n := range t.Transactions {
		named[n.Name] = n
	}
	total := func(fp Fingerprint) float64 {
		n := named[fp.ID]
		if n.Latency == nil {
			return 0
		}
		return float64(n.Latency.Count()) * float64(n.Latency.Mean())
	}
	fps := slices.Clone(f.Fingerprints)
	slices.SortStableFunc(fps, func(a, b Fingerprint) int {
		if (a.ID == otherFingerprint) != (b.ID == otherFingerprint) {
			if a.ID == otherFingerprint {
				return 1
			}
			return -1
		}
		ta, tb := total(a), total(b)
		switch {
		case ta > tb:
			return -1
		case ta < tb:
			return 1
		}
		return 0
	})
	rows := make([]measure.Row, 0, len(fps))
	for i, fp := range fps {
		n := named[fp.ID]
		var r measure.Row
		r.Add(results.ColRank, int64(i+1))
		r.Add(results.ColFingerprintID, fp.ID)
		r.Add(results.ColCount, n.Counts.Events)
		r.Add("captured_count", fp.Captured)
		r.Add(results.ColTotalMs, total(fp)/1e6)
		r.Add("errors", n.Counts.Errors)
		r.Add(results.ColErrorsByCode, results.ErrorCodes(fp.ErrorsByCode))
		r.Add(results.ColCapturedErrorsByCode, results.ErrorCodes(fp.CapturedErrorsByCode))
		r.Add("rows_sent", fp.RowsSent)
		r.Add("rows_mismatches", fp.RowsMismatches)
		for _, p := range fingerprintPercentiles {
			r.Add(p.name+"_ms", percentileMs(n.Latency, p.q))
			r.Add(capturedPrefix+p.name+"_ms", percentileMs(fp.CapturedLatency, p.q))
		}
		r.Add(results.ColFingerprint, fp.Text)
		rows = append(rows, r)
	}
	return rows
}

// fingerprintPercentiles are fingerprints.csv's percentiles, each as PNAME_ms (replayed)
// and captured_PNAME_ms; results.ColFingerprintP95 is one of them.
var fingerprintPercentiles = []struct {
	name string
	q    float64
}{{"p50", 50}, {"p95", 95}, {"p99", 99}}

const capturedPrefix = "captured_"

func percentileMs(h *measure.Histogram, q float64) float64 {
	if h == nil || h.Count() == 0 {
		return measure.Ms(-1)
	}
	return measure.Ms(h.Percentile(q))
}
