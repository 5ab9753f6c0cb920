package results

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// A results folder is a stranger's input when `report`, `compare` or `rerun` reads a
// colleague's: these targets feed its files arbitrary bytes. Inputs over maxFuzzInput are
// skipped so the fuzzer's memory stays bounded; the readers stream, so a longer input
// exercises nothing a shorter one does not.
const maxFuzzInput = 64 << 10

const fuzzFolder = "../reporters/testdata/v1-folder"

func seedFile(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func hangWatch(what string) *time.Timer {
	return time.AfterFunc(20*time.Second, func() { panic("hang reading " + what) })
}

// FuzzReadTable: any bytes as a results CSV. ReadTable and ScanTable never panic, every
// row has the header's width, and when both read the file they read the same rows: report
// streams what compare holds, and the two must not see different runs.
func FuzzReadTable(f *testing.F) {
	f.Add(seedFile(f, filepath.Join(fuzzFolder, SummaryFile)))
	f.Add(seedFile(f, filepath.Join(fuzzFolder, TimeseriesDir, "primary.csv")))
	f.Add([]byte("a,b,c\n1,\"x\ny\",3\n4,5\n6,7,8,9\n\"torn,"))
	f.Add([]byte("a,\"b\"c\n1\r\n2,\"\"\"\"\n"))
	p := filepath.Join(f.TempDir(), "t.csv")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			t.Skip("input over 64 KiB")
		}
		defer hangWatch("a CSV").Stop()
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		header, rows, rerr := ReadTable(p)
		for i, row := range rows {
			if len(row) != len(header) {
				t.Fatalf("ReadTable: row %d has %d fields, the header %d", i+1, len(row), len(header))
			}
		}
		var sheader []string
		var srows [][]string
		serr := ScanTable(p, func(h, row []string) error {
			if len(row) != len(h) {
				t.Fatalf("ScanTable: row %d has %d fields, the header %d", len(srows)+1, len(row), len(h))
			}
			sheader = h
			srows = append(srows, append([]string(nil), row...))
			return nil
		})
		if rerr != nil || serr != nil || len(srows) == 0 && len(rows) == 0 {
			return
		}
		if !reflect.DeepEqual(header, sheader) || !reflect.DeepEqual(rows, srows) {
			t.Fatalf("ReadTable read %q %q\nScanTable read %q %q", header, rows, sheader, srows)
		}
	})
}

// FuzzLoadFolder: any run.json, summary.csv and time series in a folder. Load and Open never
// panic, what they read answers the questions reports ask of it (Watched, Describe,
// Broken, Why), and Open's streamed rows are Load's.
func FuzzLoadFolder(f *testing.F) {
	f.Add(seedFile(f, filepath.Join(fuzzFolder, RunFile)), seedFile(f, filepath.Join(fuzzFolder, SummaryFile)),
		seedFile(f, filepath.Join(fuzzFolder, TimeseriesDir, "primary.csv")))
	f.Add([]byte(`{"tool":"quadrant","status":"failed","targets":[{"name":"p","watched":[{"name":"snmp.cpu"}]}],`+
		`"iterations":[{"index":1,"status":"failed","failed":["x"]},{"index":2,"status":"error","error":"lost"}]}`),
		[]byte("iteration,target,stage,snmp.cpu\n1,p,,1\n1,p,warm,2\n"), []byte("elapsed_s,snmp.cpu,tps\n1,2\n"))
	f.Add([]byte(`{"targets":null,"iterations":[{}]}`), []byte(""), []byte("\"\n"))
	f.Fuzz(func(t *testing.T, runJSON, summary, series []byte) {
		if len(runJSON)+len(summary)+len(series) > maxFuzzInput {
			t.Skip("inputs over 64 KiB")
		}
		defer hangWatch("a results folder").Stop()
		dir := t.TempDir()
		for name, b := range map[string][]byte{RunFile: runJSON, SummaryFile: summary, filepath.Join(TimeseriesDir, "p.csv"): series} {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		loaded, lerr := Load(dir)
		opened, oerr := Open(dir)
		if oerr == nil {
			oerr = opened.CheckRows() // Open streams the time series later; CheckRows reads them as Load does
		}
		if (lerr == nil) != (oerr == nil) {
			t.Fatalf("Load: %v, Open: %v", lerr, oerr)
		}
		if lerr != nil {
			return
		}
		ask(loaded)
		ask(opened)
		var streamed [][]string
		if err := opened.EachRow("p", func(row []string) error {
			streamed = append(streamed, append([]string(nil), row...))
			return nil
		}); err != nil {
			return
		}
		if want := loaded.Timeseries["p"].Rows; len(want)+len(streamed) > 0 && !reflect.DeepEqual(want, streamed) {
			t.Fatalf("Load read the time series as %q, Open streamed %q", want, streamed)
		}
	})
}

// ask asks of a run what reports ask of it; a panic fails the fuzz.
func ask(r *Run) {
	r.Watched()
	for _, d := range []struct {
		csv CSV
		d   *Data
	}{{SummaryCSV, r.Summary}, {SummaryCSV, r.Stages}, {TimeseriesCSV, r.Timeseries["p"]}} {
		for _, h := range d.d.Header {
			r.Describe(d.csv, h)
		}
		for i := range d.d.Rows {
			for _, h := range d.d.Header {
				d.d.Float(i, h)
			}
		}
	}
	for i := range r.Info.Iterations {
		r.Info.Iterations[i].Broken()
		r.Info.Iterations[i].Why()
	}
}

// FuzzReadHistogramLog: any bytes as an .hlog, for each tag a report reads. No panic, no
// loop, and no histogram for a tag the file does not name.
func FuzzReadHistogramLog(f *testing.F) {
	for _, p := range []string{"iteration-0001.hlog", "iteration-0002.hlog"} {
		f.Add(seedFile(f, filepath.Join(fuzzFolder, HistogramsDir, "primary", p)))
	}
	f.Add([]byte("#c\n\"StartTimestamp\"\nTag=latency,0.0,1.0,0.0,HISTFAAAAA==\n0.0,1.0,0.0,AAAA\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			t.Skip("input over 64 KiB")
		}
		defer hangWatch("an .hlog").Stop()
		for _, tag := range []string{"latency", "service", "warmup-latency", ""} {
			h, err := ReadHistogramLog(bytes.NewReader(b), tag)
			if err != nil {
				continue
			}
			if tag != "" && !bytes.Contains(b, []byte("Tag="+tag+",")) && h.Hdr().TotalCount() != 0 {
				t.Fatalf("tag %q: %d values from a file without the tag", tag, h.Hdr().TotalCount())
			}
		}
	})
}
