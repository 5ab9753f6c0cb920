package executor

import (
	"os"
	"time"

	"github.com/quadrant-bench/quadrant/executor/measure"
	"github.com/quadrant-bench/quadrant/reporters/results"
)

// FolderSink writes a run into a results folder.
func FolderSink(w *results.Writer) Sink { return folderSink{w} }

type folderSink struct{ *results.Writer }

func (f folderSink) OpenHistogramLog(target string, iteration int, start time.Time) (HistogramLog, error) {
	file, err := f.CreateHistogramFile(target, iteration)
	if err != nil {
		return nil, err
	}
	l, err := measure.NewHistogramLog(file, start)
	if err != nil {
		file.Close()
		return nil, err
	}
	return histogramFile{l, file}, nil
}

type histogramFile struct {
	*measure.HistogramLog
	f *os.File
}

func (h histogramFile) Close() error { return h.f.Close() }
