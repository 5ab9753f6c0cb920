package executor

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/quadrant-bench/quadrant/reporters/results"
)

// Sink receives everything a run measures, as it is measured. The results folder writer
// (reporters/results.Writer) is the one used by the CLI; tests may collect in memory.
type Sink interface {
	WritePlan(yaml []byte) error
	WriteRunInfo(*results.RunInfo) error
	AppendSample(target string, rec results.Record) error
	AppendSummary(rec results.Record) error
	OpenHistogramLog(target string, iteration int, start time.Time) (HistogramLog, error)
	SaveResult(name string, iteration int, columns []string, rows [][]string) error
	Logf(format string, args ...any)
	Sync() error
}

// HistogramLog receives one latency histogram per report interval.
type HistogramLog interface {
	Write(h *hdrhistogram.Histogram) error
	Close() error
}
