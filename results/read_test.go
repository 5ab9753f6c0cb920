package results

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Open and EachRow see what Load sees, and the per-variable files are the same
// whichever of the two read the folder.
func TestOpenStreamsWhatLoadReads(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for s := 1; s <= 50; s++ {
		for _, target := range []string{"primary", "replica"} {
			iv := &measure.Interval{Start: t0.Add(time.Duration(s-1) * time.Second), End: t0.Add(time.Duration(s) * time.Second), Elapsed: time.Duration(s) * time.Second}
			iv.Events = int64(10 * s)
			r := &TimeseriesRow{Iteration: 1 + s/20, Interval: iv, ReportInterval: time.Second, Workload: true}
			if target == "replica" || s > 10 { // a column that appears later widens the file
				r.Watched = []measure.Value{{Name: "status.Com_select", Value: float64(s)}}
			}
			if err := w.AppendTimeseries(target, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.WriteRunInfo(&RunInfo{Plan: "x"})
	w.Close()
	f, _ := os.OpenFile(filepath.Join(dir, TimeseriesDir, "primary.csv"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("3,51,") // torn by a kill
	f.Close()

	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded.Targets, opened.Targets) || !reflect.DeepEqual(loaded.Summary, opened.Summary) ||
		!reflect.DeepEqual(loaded.Watched(), opened.Watched()) {
		t.Fatalf("Open read %v %v, Load %v %v", opened.Targets, opened.Watched(), loaded.Targets, loaded.Watched())
	}
	for _, target := range loaded.Targets {
		if !reflect.DeepEqual(loaded.Timeseries[target].Header, opened.Timeseries[target].Header) {
			t.Fatalf("%s: header %v, Load %v", target, opened.Timeseries[target].Header, loaded.Timeseries[target].Header)
		}
		var streamed [][]string
		if err := opened.EachRow(target, func(row []string) error {
			streamed = append(streamed, append([]string(nil), row...))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(streamed, loaded.Timeseries[target].Rows) {
			t.Fatalf("%s: streamed %d rows, Load read %d", target, len(streamed), len(loaded.Timeseries[target].Rows))
		}
	}
	read := func(run *Run) [][]string {
		paths, err := WriteVariableCSVs(run)
		if err != nil || len(paths) != 1 {
			t.Fatalf("paths %v err %v", paths, err)
		}
		_, rows, err := ReadTable(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	a, b := read(loaded), read(opened)
	if len(a) < 100 || !reflect.DeepEqual(a, b) {
		t.Fatalf("variable file from Load has %d rows, from Open %d", len(a), len(b))
	}
}

// ScanTable splits plain rows itself; quoted cells (commas, quotes, line breaks) must
// come out as encoding/csv reads them, and empty lines and a torn last line as ReadTable
// treats them.
func TestScanTableReadsWhatReadTableReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	tb, err := OpenTable(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{"1.5", "a,b", `say "hi"`, "two\nlines", "", "x\r\ny", "3"} {
		var r Record
		r.AddInt("iteration", int64(i))
		r.Add("query.text", v)
		if i > 3 {
			r.AddFloat("status.late", float64(i))
		}
		if err := tb.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	tb.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n7,\"torn")
	f.Close()
	header, want, err := ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	err = ScanTable(path, func(h, row []string) error {
		if !reflect.DeepEqual(h, header) {
			t.Fatalf("header %q, want %q", h, header)
		}
		got = append(got, append([]string(nil), row...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ScanTable read\n%q\nReadTable\n%q", got, want)
	}
}
