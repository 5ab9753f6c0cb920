package executor

import (
	"time"

	"github.com/quadrant-bench/quadrant/executor/measure"
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

// HistogramLog receives every report interval's latency histograms.
type HistogramLog interface {
	Write(iv *measure.Interval) error
	Close() error
}
