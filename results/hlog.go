package results

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// HistogramLog writes intervals as a standard HdrHistogram interval log
// (".hlog", readable by HdrHistogram's HistogramLogProcessor and
// hdrhistogram-go's HistogramLogReader). Each interval gives one line tagged
// "latency" (and "service" in open loop); values are microseconds.
type HistogramLog struct {
	w  *bufio.Writer
	lw *hdrhistogram.HistogramLogWriter
	f  *os.File // nil when the log writes to a caller's io.Writer
}

// NewHistogramLog writes the log header; start is the workload start.
func NewHistogramLog(w io.Writer, start time.Time) (*HistogramLog, error) {
	bw := bufio.NewWriter(w)
	lw := hdrhistogram.NewHistogramLogWriter(bw)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return nil, err
	}
	if err := lw.OutputComment("quadrant latency histograms, values in microseconds"); err != nil {
		return nil, err
	}
	if err := lw.OutputStartTime(start.UnixMilli()); err != nil {
		return nil, err
	}
	lw.SetBaseTime(start.UnixMilli())
	if err := lw.OutputLegend(); err != nil {
		return nil, err
	}
	return &HistogramLog{w: bw, lw: lw}, bw.Flush()
}

// Write appends iv's histograms and flushes, so an interrupted run keeps them.
// Warmup intervals are tagged "warmup-latency" and "warmup-service": kept, but apart
// from the measured part.
func (l *HistogramLog) Write(iv *measure.Interval) error {
	prefix := ""
	if iv.Warmup {
		prefix = "warmup-"
	}
	for _, x := range []struct {
		tag string
		h   *measure.Histogram
	}{{"latency", iv.Latency}, {"service", iv.Service}} {
		if x.h == nil || x.h.Count() == 0 {
			continue
		}
		h := x.h.Hdr().Clone()
		h.SetTag(prefix + x.tag)
		h.SetStartTimeMs(iv.Start.UnixMilli())
		h.SetEndTimeMs(iv.End.UnixMilli())
		if err := l.lw.OutputIntervalHistogram(h); err != nil {
			return fmt.Errorf("histogram log: %w", err)
		}
	}
	return l.w.Flush()
}

// ReadHistogramLog merges every histogram of an .hlog with the given tag
// ("latency" or "service"), e.g. to recompute any percentile of a run.
func ReadHistogramLog(r io.Reader, tag string) (*measure.Histogram, error) {
	lr := hdrhistogram.NewHistogramLogReader(r)
	out := measure.NewHistogram()
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return nil, fmt.Errorf("read histogram log: %w", err)
		}
		if h == nil {
			return out, nil
		}
		if h.Tag() == tag {
			out.Hdr().Merge(h)
		}
	}
}

// Close closes the log's file, when it owns one.
func (l *HistogramLog) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}
