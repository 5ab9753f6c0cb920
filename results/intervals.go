package results

import (
	"fmt"
	"path/filepath"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// LoggedHistogram is one line of an .hlog: one report interval's histogram with its tag
// (latency, service, warmup-latency, warmup-service).
type LoggedHistogram struct {
	Tag        string
	Start, End time.Time // to the millisecond, as the log keeps them
	H          *measure.Histogram
}

// ReadHistogramIntervals reads an .hlog line by line, for merging the logs of several
// shards interval by interval (ReadHistograms adds a whole log up at once).
func ReadHistogramIntervals(path string) ([]LoggedHistogram, error) {
	return readIntervals(filepath.Dir(path), filepath.Base(path))
}

// ReadIterationIntervals is ReadHistogramIntervals of the log of one iteration x target of
// the results folder dir, read through the folder's root (OpenIn).
func ReadIterationIntervals(dir, target string, iteration int) ([]LoggedHistogram, error) {
	return readIntervals(dir, histogramRel(target, iteration))
}

func readIntervals(dir, rel string) ([]LoggedHistogram, error) {
	path := filepath.Join(dir, rel)
	f, err := OpenIn(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := hdrhistogram.NewHistogramLogReader(f)
	var out []LoggedHistogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			return out, fmt.Errorf("%s: %w", path, err)
		}
		if h == nil {
			return out, nil
		}
		m := measure.NewHistogram()
		m.Hdr().Merge(h)
		out = append(out, LoggedHistogram{Tag: h.Tag(), Start: time.UnixMilli(h.StartTimeMs()).UTC(), End: time.UnixMilli(h.EndTimeMs()).UTC(), H: m})
	}
}

// WriteLogged appends one interval line as it was read (ReadHistogramIntervals).
func (l *HistogramLog) WriteLogged(lh LoggedHistogram) error {
	if lh.H == nil || lh.H.Count() == 0 {
		return nil
	}
	h := lh.H.Hdr().Clone()
	h.SetTag(lh.Tag)
	h.SetStartTimeMs(lh.Start.UnixMilli())
	h.SetEndTimeMs(lh.End.UnixMilli())
	if err := l.lw.OutputIntervalHistogram(h); err != nil {
		return l.failed(err)
	}
	return l.failed(l.w.Flush())
}

// AppendTimeseriesRecord writes one row of timeseries/TARGET.csv laid out by the caller:
// `quadrant merge` adds shards' rows up column by column.
func (w *Writer) AppendTimeseriesRecord(target string, rec Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	file := filepath.Join(TimeseriesDir, target+".csv")
	t, ok := w.timeseries[target]
	if !ok {
		var err error
		t, err = OpenTable(filepath.Join(w.Dir, file))
		if err != nil {
			return w.writeError(file, err)
		}
		w.timeseries[target] = t
	}
	return w.writeError(file, t.Append(rec))
}

// AppendSummaryRecord writes one row of summary.csv laid out by the caller.
func (w *Writer) AppendSummaryRecord(rec Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeError(SummaryFile, w.summary.Append(rec))
}
