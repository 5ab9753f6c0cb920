package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ReadDigests reads digests.csv back: nil without error when the run watched no digests.
func ReadDigests(dir string) ([]DigestRow, error) {
	var out []DigestRow
	err := readEvidence(dir, DigestsFile, func(d *Data, i int) {
		out = append(out, DigestRow{
			Iteration: int(evInt(d, i, "iteration")), Target: d.Value(i, "target"), Rank: int(evInt(d, i, "rank")),
			Schema: d.Value(i, "schema"), Digest: d.Value(i, "digest"), Text: d.Value(i, "digest_text"),
			Count: evInt(d, i, "count"), TotalMs: evFloat(d, i, "total_ms"), AvgMs: evFloat(d, i, "avg_ms"),
			RowsExamined: evInt(d, i, "rows_examined"), RowsSent: evInt(d, i, "rows_sent"),
			NoIndexUsed: evInt(d, i, "no_index_used"), NoGoodIndexUsed: evInt(d, i, "no_good_index_used"),
			Errors: evInt(d, i, "errors"),
		})
	})
	return out, err
}

// ReadWaits reads waits.csv back: nil without error when the run watched no waits.
func ReadWaits(dir string) ([]WaitRow, error) {
	var out []WaitRow
	err := readEvidence(dir, WaitsFile, func(d *Data, i int) {
		out = append(out, WaitRow{
			Iteration: int(evInt(d, i, "iteration")), Target: d.Value(i, "target"), Rank: int(evInt(d, i, "rank")),
			Event: d.Value(i, "event"), Count: evInt(d, i, "count"), TotalMs: evFloat(d, i, "total_ms"),
			AvgUs: evFloat(d, i, "avg_us"),
		})
	})
	return out, err
}

func readEvidence(dir, rel string, row func(d *Data, i int)) error {
	header, rows, err := ReadTableIn(dir, rel)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var link *LinkError
	if errors.As(err, &link) {
		return err // it says the file
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(dir, rel), err)
	}
	d := NewData(header, rows)
	for i := range rows {
		row(d, i)
	}
	return nil
}

func evInt(d *Data, i int, name string) int64 {
	v, _ := strconv.ParseInt(d.Value(i, name), 10, 64)
	return v
}

func evFloat(d *Data, i int, name string) float64 {
	v, _ := d.Float(i, name)
	return v
}
