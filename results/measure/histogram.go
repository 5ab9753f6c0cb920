// Package measure is the measurement model of a workload: per-worker recorders
// merged into one Interval per report interval and a Total over the measured part.
// Latencies are HdrHistograms in microseconds (1µs..100s, 3 significant digits)
// so any percentile can be recomputed later from the saved encoding.
package measure

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: values are microseconds. Values outside are clamped so a
// 5-minute stall still counts (as 100 s) instead of being dropped.
const (
	LowestUS  = 1
	HighestUS = 100_000_000
	SigFigs   = 3
)

// Histogram is a latency histogram in microseconds. The zero value is not
// usable; use NewHistogram. It is not safe for concurrent use.
type Histogram struct {
	h *hdrhistogram.Histogram
}

// NewHistogram returns an empty histogram with the package's fixed geometry.
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(LowestUS, HighestUS, SigFigs)}
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	h.RecordUS(d.Microseconds())
}

// RecordUS adds one latency given in microseconds.
func (h *Histogram) RecordUS(us int64) {
	if us < LowestUS {
		us = LowestUS
	} else if us > HighestUS {
		us = HighestUS
	}
	_ = h.h.RecordValue(us) // cannot fail: clamped into range
}

// Merge adds all values of o into h.
func (h *Histogram) Merge(o *Histogram) {
	if o != nil {
		h.h.Merge(o.h)
	}
}

// Reset empties the histogram, keeping its memory.
func (h *Histogram) Reset() { h.h.Reset() }

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Percentile returns the value at percentile p (0..100); 0 when empty.
func (h *Histogram) Percentile(p float64) time.Duration {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.h.ValueAtPercentile(p)) * time.Microsecond
}

// Mean is the average recorded value; 0 when empty.
func (h *Histogram) Mean() time.Duration {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.h.Mean() * float64(time.Microsecond))
}

// Max is the highest recorded value (at histogram precision); 0 when empty.
func (h *Histogram) Max() time.Duration {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.h.Max()) * time.Microsecond
}

// Min is the lowest recorded value; 0 when empty.
func (h *Histogram) Min() time.Duration {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.h.Min()) * time.Microsecond
}

// Clone returns an independent copy.
func (h *Histogram) Clone() *Histogram {
	return &Histogram{h: h.h.Clone()}
}

// Hdr exposes the underlying HdrHistogram (values in µs), e.g. for a
// hdrhistogram.HistogramLogWriter.
func (h *Histogram) Hdr() *hdrhistogram.Histogram { return h.h }

// Encode returns the standard HdrHistogram V2 compressed encoding in base64,
// the same string HdrHistogram interval logs (.hlog) carry, so HdrHistogram
// tools in any language can read it.
func (h *Histogram) Encode() (string, error) {
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// DecodeHistogram parses the output of Encode.
func DecodeHistogram(s string) (*Histogram, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: not base64: %w", err)
	}
	h, err := hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return &Histogram{h: h}, nil
}

// MarshalJSON encodes the histogram as its base64 Encode string.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	s, err := h.Encode()
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// UnmarshalJSON accepts the output of MarshalJSON.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("histogram: want a base64 string: %w", err)
	}
	d, err := DecodeHistogram(s)
	if err != nil {
		return err
	}
	h.h = d.h
	return nil
}
