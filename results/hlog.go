package results

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// HistogramLog writes intervals as a standard HdrHistogram interval log
// (".hlog", readable by HdrHistogram's HistogramLogProcessor and
// hdrhistogram-go's HistogramLogReader). Each interval gives one line tagged
// "latency" (and "service" in open loop); values are microseconds.
type HistogramLog struct {
	w  *bufio.Writer
	lw *hdrhistogram.HistogramLogWriter
	f  *os.File // set by Writer.OpenHistogramLog, closed by Close
	// name and wrap say which file of a results folder failed, when the log writes one.
	name string
	wrap func(file string, err error) error
}

// HistogramPath is where the latency histograms of one iteration on one target go.
func HistogramPath(dir, target string, iteration int) string {
	return filepath.Join(dir, histogramRel(target, iteration))
}

// histogramRel is HistogramPath inside the folder.
func histogramRel(target string, iteration int) string {
	return filepath.Join(HistogramsDir, target, fmt.Sprintf("iteration-%04d.hlog", iteration))
}

// OpenHistogramLog creates (or, on resume, truncates) the .hlog file of one
// iteration x target and writes its header; start is the workload's start.
func (w *Writer) OpenHistogramLog(target string, iteration int, start time.Time) (*HistogramLog, error) {
	path := HistogramPath(w.Dir, target, iteration)
	rel, _ := filepath.Rel(w.Dir, path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, w.writeError(rel, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, w.writeError(rel, err)
	}
	l, err := NewHistogramLog(f, start)
	if err != nil {
		f.Close()
		return nil, w.writeError(rel, err)
	}
	l.f, l.name = f, rel
	l.wrap = w.writeError
	return l, nil
}

// ReadHistograms merges the interval histograms of one iteration x target with the
// given tag ("latency", "service", "tx.NAME", "stmt.CLASS"; "warmup-latency" for the
// warmup; see HistogramTag), from which any percentile of the iteration can be recomputed.
func ReadHistograms(dir, target string, iteration int, tag string) (*measure.Histogram, error) {
	path := HistogramPath(dir, target, iteration)
	f, err := OpenIn(dir, histogramRel(target, iteration))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := ReadHistogramLog(f, tag)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
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
	// The log keeps its StartTime in whole seconds and readers add the lines' relative
	// times to it: relative to the whole second, every line reads back at its own time
	// (relative to start itself, each came back start's milliseconds early).
	lw.SetBaseTime(start.Truncate(time.Second).UnixMilli())
	if err := lw.OutputLegend(); err != nil {
		return nil, err
	}
	return &HistogramLog{w: bw, lw: lw}, bw.Flush()
}

// Write appends iv's histograms and flushes, so an interrupted run keeps them.
// Warmup intervals are tagged "warmup-latency" and "warmup-service": kept, but apart
// from the measured part; "connect" has connect: per_transaction's logins. Each named transaction and statement class gets lines of its
// own, tagged "tx.NAME" and "stmt.CLASS" (HistogramTag), so its percentiles can be
// recomputed by merging them.
func (l *HistogramLog) Write(iv *measure.Interval) error {
	prefix := ""
	if iv.Warmup {
		prefix = "warmup-"
	}
	write := func(tag string, x *measure.Histogram) error {
		if x == nil || x.Count() == 0 {
			return nil
		}
		h := x.Hdr().Clone()
		h.SetTag(prefix + tag)
		h.SetStartTimeMs(iv.Start.UnixMilli())
		h.SetEndTimeMs(iv.End.UnixMilli())
		return l.lw.OutputIntervalHistogram(h)
	}
	if err := write("latency", iv.Latency); err != nil {
		return l.failed(err)
	}
	if err := write("service", iv.Service); err != nil {
		return l.failed(err)
	}
	if err := write("connect", iv.Connect); err != nil {
		return l.failed(err)
	}
	for _, n := range iv.Transactions {
		if err := write(HistogramTag("tx", n.Name), n.Latency); err != nil {
			return l.failed(err)
		}
	}
	for _, n := range iv.Statements {
		if err := write(HistogramTag("stmt", n.Name), n.Latency); err != nil {
			return l.failed(err)
		}
	}
	return l.failed(l.w.Flush())
}

// HistogramTag is the .hlog tag of a named histogram, "tx.new_order" or "stmt.point_select":
// its column prefix. A character the log format cannot hold in a tag (a comma, a blank)
// becomes '_'.
func HistogramTag(family, name string) string {
	b := []byte(family + "." + name)
	for i, c := range b {
		if c <= ' ' || c == ',' || c >= 0x7f {
			b[i] = '_'
		}
	}
	return string(b)
}

// failed says which file of the results folder could not be written, when the log writes one.
func (l *HistogramLog) failed(err error) error {
	if err == nil || l.wrap == nil {
		return err
	}
	return l.wrap(l.name, err)
}

// Close flushes and closes the file opened by Writer.OpenHistogramLog.
func (l *HistogramLog) Close() error {
	err := l.w.Flush()
	if l.f != nil {
		if e := l.f.Close(); err == nil {
			err = e
		}
		l.f = nil
	}
	return err
}

// ReadHistogramLog merges every histogram of an .hlog with the given tag
// ("latency" or "service"), e.g. to recompute any percentile of a run.
//
// A line in quadrant's own geometry is added into one counts array straight from its
// compressed payload: decoding each line into a histogram of its own allocates its full
// counts array (~150 KB) and a zlib window, and an hour at 1 s is 3600 lines per file.
// Lines in any other geometry (another tool's log) go through the library's decoder.
func ReadHistogramLog(r io.Reader, tag string) (*measure.Histogram, error) {
	out := measure.NewHistogram()
	ours := out.Hdr().Export()
	counts := ours.Counts
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		raw    []byte
		zr     io.ReadCloser
		inflat bytes.Buffer
		merged bool
	)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: a histogram of an unusual geometry.
			rest, err2 := br.ReadBytes('\n')
			line, err = append(append([]byte(nil), line...), rest...), err2
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read histogram log: %w", err)
		}
		if b, ok := lineTagged(line, tag); ok {
			n, derr := base64Decode(&raw, b)
			if derr != nil {
				return nil, fmt.Errorf("read histogram log: line %d: %w", lineNo, derr)
			}
			ok, derr := addOurs(counts, raw[:n], &zr, &inflat, ours)
			if derr != nil {
				return nil, fmt.Errorf("read histogram log: line %d: %w", lineNo, derr)
			}
			if !ok {
				h, derr := hdrhistogram.Decode(b)
				if derr != nil {
					return nil, fmt.Errorf("read histogram log: line %d: %w", lineNo, derr)
				}
				out.Hdr().Merge(h)
			}
			merged = true
		}
		if err == io.EOF {
			break
		}
	}
	if zr != nil {
		zr.Close()
	}
	if merged {
		out.Hdr().Merge(hdrhistogram.Import(ours))
	}
	return out, nil
}

// lineTagged returns the base64 payload of an interval line tagged tag
// ("Tag=latency,start,length,max,HISTF..."); comments, the legend and other tags are skipped.
func lineTagged(line []byte, tag string) ([]byte, bool) {
	line = bytes.TrimRight(line, "\r\n")
	rest, ok := bytes.CutPrefix(line, []byte("Tag="))
	if ok {
		var t []byte
		if t, rest, ok = bytes.Cut(rest, []byte(",")); !ok || string(t) != tag {
			return nil, false
		}
	} else if tag != "" || len(line) == 0 || line[0] < '0' || line[0] > '9' {
		return nil, false
	}
	i := bytes.LastIndexByte(rest, ',')
	if i < 0 {
		return nil, false
	}
	return rest[i+1:], true
}

func base64Decode(buf *[]byte, src []byte) (int, error) {
	if n := base64.StdEncoding.DecodedLen(len(src)); cap(*buf) < n {
		*buf = make([]byte, n)
	} else {
		*buf = (*buf)[:n]
	}
	return base64.StdEncoding.Decode(*buf, src)
}

// addOurs adds the counts of one V2 compressed histogram into counts when its geometry
// is ours; ok is false (and nothing added) otherwise.
func addOurs(counts []int64, enc []byte, zr *io.ReadCloser, inflated *bytes.Buffer, ours *hdrhistogram.Snapshot) (ok bool, err error) {
	if len(enc) < 8 || int32(binary.BigEndian.Uint32(enc))&^0xf0 != hdrhistogram.V2CompressedEncodingCookieBase {
		return false, nil
	}
	n := int(binary.BigEndian.Uint32(enc[4:]))
	if n < 0 || n > len(enc)-8 {
		return false, errors.New("histogram: truncated compressed contents")
	}
	src := bytes.NewReader(enc[8 : 8+n])
	if *zr == nil {
		if *zr, err = zlib.NewReader(src); err != nil {
			return false, err
		}
	} else if err = (*zr).(zlib.Resetter).Reset(src, nil); err != nil {
		return false, err
	}
	inflated.Reset()
	if _, err = inflated.ReadFrom(*zr); err != nil {
		return false, err
	}
	b := inflated.Bytes()
	if len(b) < 40 || int32(binary.BigEndian.Uint32(b))&^0xf0 != hdrhistogram.V2EncodingCookieBase {
		return false, nil
	}
	payload := int(binary.BigEndian.Uint32(b[4:]))
	digits := int64(binary.BigEndian.Uint32(b[12:]))
	lowest, highest := int64(binary.BigEndian.Uint64(b[16:])), int64(binary.BigEndian.Uint64(b[24:]))
	if digits != ours.SignificantFigures || lowest != ours.LowestTrackableValue || highest != ours.HighestTrackableValue ||
		payload < 0 || payload > len(b)-40 {
		return false, nil
	}
	// Validate the whole payload before adding anything, so a corrupt line is not half merged.
	for pass := 0; pass < 2; pass++ {
		idx := 0
		for p := b[40 : 40+payload]; len(p) > 0; {
			v, k := zigzag(p)
			if k == 0 {
				return false, errors.New("histogram: truncated payload")
			}
			p = p[k:]
			if v < 0 {
				if -v > int64(len(counts)-idx) || v == math.MinInt64 {
					return false, errors.New("histogram: zero run past the last bucket")
				}
				idx += int(-v)
				continue
			}
			if idx >= len(counts) {
				return false, errors.New("histogram: bucket past the last one")
			}
			if pass == 1 {
				counts[idx] += v
			}
			idx++
		}
	}
	return true, nil
}

// zigzag reads one of HdrHistogram's ZigZag LEB128 numbers: up to 8 bytes of 7 bits and
// a ninth of 8. k is 0 when p ends mid-number.
func zigzag(p []byte) (v int64, k int) {
	var u uint64
	for k < 9 {
		if k >= len(p) {
			return 0, 0
		}
		c := p[k]
		if k == 8 {
			u |= uint64(c) << 56
			k++
			break
		}
		u |= uint64(c&0x7f) << (7 * k)
		k++
		if c&0x80 == 0 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1), k
}
