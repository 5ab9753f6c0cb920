package results

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// TornLines says, one warning each, which CSV files of folder dir end in a line without
// its newline: a row cut by a kill -9 (docs/architecture.md, "Nothing measured is lost")
// or by a copy cut short. Readers drop that line (ScanTable); the warning names it as
// FILE:LINE so a truncated folder is never taken for a whole one in silence.
func TornLines(dir string) []string {
	// Every table at the top of the folder: the shared ones and the kinds' own.
	paths, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	if targets, err := Targets(dir); err == nil {
		for _, t := range targets {
			paths = append(paths, filepath.Join(dir, TimeseriesDir, t+".csv"))
		}
	}
	var out []string
	for _, p := range paths {
		if n := tornLine(p); n > 0 {
			out = append(out, fmt.Sprintf("%s:%d: the last line has no newline (a run killed while writing it, or a copy cut short): that row is left out", p, n))
		}
	}
	return out
}

// tornLine is the number of path's final line when it lacks its newline, else 0. Only a
// torn file is read through, to count its lines.
func tornLine(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return 0
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil || last[0] == '\n' {
		return 0
	}
	n, buf := 1, make([]byte, 256<<10)
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n
		}
		if err != nil {
			return 0
		}
	}
}
