package measure

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// FormatLine renders iv like a sysbench interval line:
//
//	[ 10s ] thds: 16 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 8.43 err/s: 0.00 reconn/s: 0.00
//
// Warmup intervals show a negative elapsed time and "(warmup)"; open-loop
// intervals append the backlog as sysbench's "queue".
func FormatLine(iv *Interval, openLoop bool) string {
	r := iv.Rates()
	var b strings.Builder
	fmt.Fprintf(&b, "[ %ss ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,95%%): %.2f err/s: %.2f reconn/s: %.2f",
		fmtSeconds(iv.Elapsed), iv.Threads, r.TPS, r.QPS, r.Reads, r.Writes, r.Other,
		ms(iv.Lat.P95), r.Errors, r.Reconnects)
	if openLoop {
		fmt.Fprintf(&b, " queue: %d", iv.Backlog)
	}
	if iv.Warmup {
		b.WriteString(" (warmup)")
	}
	return b.String()
}

func fmtSeconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64)
}

// ms converts to milliseconds; unknown (negative) stays negative.
func ms(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return float64(d) / float64(time.Millisecond)
}

// Ms converts a latency to milliseconds for reports (-1 when unknown).
func Ms(d time.Duration) float64 { return ms(d) }

// HistogramLog writes intervals as a standard HdrHistogram interval log
// (".hlog", readable by HdrHistogram's HistogramLogProcessor and
// hdrhistogram-go's HistogramLogReader). Each interval gives one line tagged
// "latency" (and "service" in open loop); values are microseconds.
type HistogramLog struct {
	w  *bufio.Writer
	lw *hdrhistogram.HistogramLogWriter
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
func (l *HistogramLog) Write(iv *Interval) error {
	prefix := ""
	if iv.Warmup {
		prefix = "warmup-"
	}
	for _, x := range []struct {
		tag string
		h   *Histogram
	}{{"latency", iv.Latency}, {"service", iv.Service}} {
		if x.h == nil || x.h.Count() == 0 {
			continue
		}
		h := x.h.h.Clone()
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
func ReadHistogramLog(r io.Reader, tag string) (*Histogram, error) {
	lr := hdrhistogram.NewHistogramLogReader(r)
	out := NewHistogram()
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return nil, fmt.Errorf("read histogram log: %w", err)
		}
		if h == nil {
			return out, nil
		}
		if h.Tag() == tag {
			out.h.Merge(h)
		}
	}
}
