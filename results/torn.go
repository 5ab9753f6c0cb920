package results

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// TornLines says, one warning each, which CSV files of folder dir end in a line without
// its newline: a row cut by a kill -9 (docs/architecture.md, "Nothing measured is lost")
// or by a copy cut short. Readers drop that line (ScanTable); the warning names it as
// FILE:LINE so a truncated folder is never taken for a whole one in silence.
func TornLines(dir string) []string {
	// Every table at the top of the folder: the shared ones and the kinds' own.
	var rels []string
	if top, err := ReadDirIn(dir, "."); err == nil {
		for _, e := range top {
			if strings.HasSuffix(e.Name(), ".csv") {
				rels = append(rels, e.Name())
			}
		}
	}
	if targets, err := Targets(dir); err == nil {
		for _, t := range targets {
			rels = append(rels, filepath.Join(TimeseriesDir, t+".csv"))
		}
	}
	var out []string
	for _, rel := range rels {
		if n := tornLine(dir, rel); n > 0 {
			out = append(out, fmt.Sprintf("%s:%d: the last line has no newline (a run killed while writing it, or a copy cut short): that row is left out", filepath.Join(dir, rel), n))
		}
	}
	return out
}

// tornLine is the number of the final line of the file rel of folder dir when it lacks
// its newline, else 0 (a link planted there is not read: the readers refuse it). Only a
// torn file is read through, to count its lines.
func tornLine(dir, rel string) int {
	f, err := OpenIn(dir, rel)
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
