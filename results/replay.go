package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Files of a replay of captured traffic, one row per iteration and target (replay.csv) and
// per statement fingerprint (fingerprints.csv).
const (
	FingerprintsFile = "fingerprints.csv"
	ReplayFile       = "replay.csv"
)

// TableFiles are the files of the workloads' own tables (AppendTables), which every check
// of a folder's CSV files (TornLines) reads as it reads the shared ones.
var TableFiles = []string{FingerprintsFile, ReplayFile}

// FingerprintRows lays out a replay's per-fingerprint figures, top N by replayed total time
// first and "other" last: replayed latency percentiles from the fingerprint's own histogram
// beside the captured durations' percentiles.
func FingerprintRows(iteration int, target string, t *measure.Total) []Record {
	if t == nil || t.Replay == nil {
		return nil
	}
	named := map[string]measure.Named{}
	for _, n := range t.Transactions {
		named[n.Name] = n
	}
	fps := slices.Clone(t.Replay.Fingerprints)
	total := func(f measure.Fingerprint) float64 {
		n := named[f.ID]
		if n.Latency == nil {
			return 0
		}
		return float64(n.Latency.Count()) * float64(n.Latency.Mean())
	}
	slices.SortStableFunc(fps, func(a, b measure.Fingerprint) int {
		if (a.ID == OtherFingerprint) != (b.ID == OtherFingerprint) {
			if a.ID == OtherFingerprint {
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
	var recs []Record
	for i, f := range fps {
		n := named[f.ID]
		var r Record
		r.AddInt(ColIteration, int64(iteration))
		r.Add(ColTarget, target)
		r.AddInt(ColRank, int64(i+1))
		r.Add(ColFingerprintID, f.ID)
		r.AddInt(ColCount, n.Counts.Events)
		r.AddInt("captured_count", f.Captured)
		r.AddFloat(ColTotalMs, total(f)/1e6)
		r.AddInt("errors", n.Counts.Errors)
		r.Add(ColErrorsByCode, ErrorCodes(f.ErrorsByCode))
		r.Add(ColCapturedErrorsByCode, ErrorCodes(f.CapturedErrorsByCode))
		r.AddInt("rows_sent", f.RowsSent)
		r.AddInt("rows_mismatches", f.RowsMismatches)
		for _, p := range fingerprintPercentiles {
			r.AddFloat(p.name+"_ms", percentileMs(n.Latency, p.q))
			r.AddFloat(capturedPrefix+p.name+"_ms", percentileMs(f.CapturedLatency, p.q))
		}
		r.Add(ColFingerprint, f.Text)
		recs = append(recs, r)
	}
	return recs
}

// fingerprintPercentiles are fingerprints.csv's percentiles, each as PNAME_ms (replayed)
// and captured_PNAME_ms; ColFingerprintP95 is one of them.
var fingerprintPercentiles = []struct {
	name string
	q    float64
}{{"p50", 50}, {"p95", 95}, {"p99", 99}}

const capturedPrefix = "captured_"

// OtherFingerprint is the fingerprint id of the statements outside a replay's top ones,
// ranked last.
const OtherFingerprint = "other"

func percentileMs(h *measure.Histogram, q float64) float64 {
	if h == nil || h.Count() == 0 {
		return measure.Ms(-1)
	}
	return measure.Ms(h.Percentile(q))
}

// ErrorCodes writes errors by code as fingerprints.csv's errors_by_code cell: "1062:3 1213:1",
// by code.
func ErrorCodes(m map[int]int64) string {
	codes := make([]int, 0, len(m))
	for c := range m {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d:%d", c, m[c])
	}
	return strings.Join(parts, " ")
}

// AddErrorCodes adds an errors_by_code cell ("1062:3 1213:1") to m; a part that is not
// CODE:COUNT is skipped.
func AddErrorCodes(m map[int]int64, cell string) {
	for _, part := range strings.Fields(cell) {
		c, v, ok := strings.Cut(part, ":")
		code, err1 := strconv.Atoi(c)
		count, err2 := strconv.ParseInt(v, 10, 64)
		if ok && err1 == nil && err2 == nil {
			m[code] += count
		}
	}
}

// ReplayRecord is one row of replay.csv: how faithfully an iteration's replay reproduced the
// capture (its errors against the captured ones), how long its sessions spent blocked (lock
// waits that ended in 1205/1213, statements longer than captured), and how far behind its
// schedule the replayer ran (lag = actual minus intended start).
func ReplayRecord(iteration int, target string, t *measure.Total) (Record, bool) {
	if t == nil || t.Replay == nil {
		return nil, false
	}
	rp := t.Replay
	var r Record
	r.AddInt(ColIteration, int64(iteration))
	r.Add(ColTarget, target)
	r.AddInt("sessions_captured", rp.SessionsCaptured)
	r.AddInt("sessions_replayed", rp.SessionsReplayed)
	r.AddInt("statements_captured", rp.StatementsCaptured)
	r.AddInt("statements_replayed", rp.StatementsReplayed)
	for _, k := range []string{"read_only", "include", "exclude"} {
		r.AddInt("skipped_"+k, rp.Skipped[k])
	}
	r.AddInt("errors", t.Errors)
	r.AddInt("errors_captured", rp.ErrorsCaptured)
	r.AddInt("errors_unlike_capture", rp.ErrorsUnlikeCapture)
	r.AddInt("sessions_blocked", rp.SessionsBlocked)
	r.AddFloat(ColBlockedMaxMs, measure.Ms(rp.BlockedMost))
	r.AddInt("lock_waits", rp.LockWaits)
	r.AddFloat("lock_wait_ms", measure.Ms(rp.LockWaitTime))
	r.AddInt("long_statements", rp.LongStatements)
	r.AddFloat("long_ms", measure.Ms(rp.LongTime))
	r.AddInt("rows_mismatches", rp.RowsMismatches)
	r.AddFloat("lag_p50_ms", percentileMs(t.Lag, 50))
	r.AddFloat("lag_p99_ms", percentileMs(t.Lag, 99))
	r.AddInt("order_waits", rp.OrderWaits)
	r.AddFloat("order_wait_ms", measure.Ms(rp.OrderWaitTime))
	r.AddInt("order_timeouts", rp.OrderTimeouts)
	r.Add(ColEndState, rp.EndState)
	r.Add(ColEndDiffers, strings.Join(rp.EndDiffers, " "))
	return r, true
}

// AppendTables adds the files of a workload's own figures for an iteration, those its
// total holds (a replay's: replay.csv and fingerprints.csv), so the executor writes them
// without knowing which kind has which.
func (w *Writer) AppendTables(iteration int, target string, t *measure.Total) error {
	rec, ok := ReplayRecord(iteration, target, t)
	if !ok {
		return nil
	}
	if err := w.appendRows(ReplayFile, []Record{rec}); err != nil {
		return err
	}
	return w.appendRows(FingerprintsFile, FingerprintRows(iteration, target, t))
}
