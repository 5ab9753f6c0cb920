package executor

import (
	"time"

	"github.com/quadrant-bench/quadrant/reporters/results"
)

// FolderSink writes a run into a results folder.
func FolderSink(w *results.Writer) Sink { return folderSink{w} }

type folderSink struct{ *results.Writer }

func (f folderSink) OpenHistogramLog(target string, iteration int, start time.Time) (HistogramLog, error) {
	return f.Writer.OpenHistogramLog(target, iteration, start)
}
