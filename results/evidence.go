package results

import "path/filepath"

// Files of what performance_schema says an iteration's statements and waits cost.
const (
	DigestsFile = "digests.csv"
	WaitsFile   = "waits.csv"
)

// DigestRow is one line of digests.csv: one statement class (performance_schema digest) among the top N by
// total time on one target during one iteration's workload. Figures are increases over the workload.
type DigestRow struct {
	Iteration       int
	Target          string
	Rank            int // 1 = most total time
	Schema          string
	Digest          string
	Text            string // DIGEST_TEXT: the statement with literals as ?
	Count           int64
	TotalMs         float64
	AvgMs           float64
	RowsExamined    int64
	RowsSent        int64
	NoIndexUsed     int64
	NoGoodIndexUsed int64
	Errors          int64
}

func (d *DigestRow) record() Record {
	var r Record
	r.AddInt("iteration", int64(d.Iteration))
	r.Add("target", d.Target)
	r.AddInt("rank", int64(d.Rank))
	r.Add("schema", d.Schema)
	r.Add("digest", d.Digest)
	r.AddInt("count", d.Count)
	r.AddFloat("total_ms", d.TotalMs)
	r.AddFloat("avg_ms", d.AvgMs)
	r.AddInt("rows_examined", d.RowsExamined)
	r.AddInt("rows_sent", d.RowsSent)
	r.AddInt("no_index_used", d.NoIndexUsed)
	r.AddInt("no_good_index_used", d.NoGoodIndexUsed)
	r.AddInt("errors", d.Errors)
	r.Add("digest_text", d.Text)
	return r
}

// WaitRow is one line of waits.csv: one wait event (performance_schema event name) among the top N by total
// time on one target during one iteration's workload.
type WaitRow struct {
	Iteration int
	Target    string
	Rank      int
	Event     string
	Count     int64
	TotalMs   float64
	AvgUs     float64
}

func (w *WaitRow) record() Record {
	var r Record
	r.AddInt("iteration", int64(w.Iteration))
	r.Add("target", w.Target)
	r.AddInt("rank", int64(w.Rank))
	r.Add("event", w.Event)
	r.AddInt("count", w.Count)
	r.AddFloat("total_ms", w.TotalMs)
	r.AddFloat("avg_us", w.AvgUs)
	return r
}

// AppendDigests adds an iteration's top digests to digests.csv.
func (w *Writer) AppendDigests(rows []DigestRow) error {
	recs := make([]Record, len(rows))
	for i := range rows {
		recs[i] = rows[i].record()
	}
	return w.appendRows(DigestsFile, recs)
}

// AppendWaits adds an iteration's top waits to waits.csv.
func (w *Writer) AppendWaits(rows []WaitRow) error {
	recs := make([]Record, len(rows))
	for i := range rows {
		recs[i] = rows[i].record()
	}
	return w.appendRows(WaitsFile, recs)
}

func (w *Writer) appendRows(file string, recs []Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.extra[file]
	if !ok {
		var err error
		if t, err = OpenTable(filepath.Join(w.Dir, file)); err != nil {
			return w.writeError(file, err)
		}
		w.extra[file] = t
	}
	for _, r := range recs {
		if err := t.Append(r); err != nil {
			return w.writeError(file, err)
		}
	}
	return nil
}
