package results

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

func TestTableWidensAndSurvivesTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ts.csv")
	tb, err := OpenTable(path)
	if err != nil {
		t.Fatal(err)
	}
	var r1 Record
	r1.AddInt("iteration", 1)
	r1.AddFloat("tps", 12.5)
	if err := tb.Append(r1); err != nil {
		t.Fatal(err)
	}
	var r2 Record
	r2.AddInt("iteration", 1)
	r2.AddFloat("tps", 13)
	r2.AddFloat("status.Binlog_commits", 4)
	if err := tb.Append(r2); err != nil {
		t.Fatal(err)
	}
	// Simulate a kill in the middle of a write, then a resumed run appending.
	tb.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("2,14")
	f.Close()
	tb, err = OpenTable(path)
	if err != nil {
		t.Fatal(err)
	}
	var r3 Record
	r3.AddInt("iteration", 2)
	r3.AddFloat("tps", 15)
	if err := tb.Append(r3); err != nil {
		t.Fatal(err)
	}
	tb.Close()
	header, rows, err := ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"iteration", "tps", "status.Binlog_commits"}
	wantRows := [][]string{{"1", "12.5", ""}, {"1", "13", "4"}, {"2", "15", ""}}
	if !reflect.DeepEqual(header, wantHeader) || !reflect.DeepEqual(rows, wantRows) {
		t.Fatalf("got %v %v, want %v %v", header, rows, wantHeader, wantRows)
	}
}

func TestFormatFloat(t *testing.T) {
	for v, want := range map[float64]string{1234.5678: "1234.57", 3: "3", 0.25: "0.25", 0.1234567: "0.123457", 12.3456: "12.346"} {
		if got := FormatFloat(v); got != want {
			t.Errorf("FormatFloat(%v) = %q, want %q", v, got, want)
		}
	}
	var nan float64
	nan = nan / nan
	if FormatFloat(nan) != "" {
		t.Error("NaN must be an empty cell")
	}
}

func TestHistogramLogRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	start := time.Now()
	hl, err := w.OpenHistogramLog("primary", 3, start)
	if err != nil {
		t.Fatal(err)
	}
	for i, warm := range []bool{true, false, false} {
		iv := &measure.Interval{Index: i + 1, Warmup: warm, Start: start.Add(time.Duration(i) * time.Second), End: start.Add(time.Duration(i+1) * time.Second)}
		iv.Latency = measure.NewHistogram()
		for v := int64(1); v <= 1000; v++ {
			iv.Latency.RecordUS(v * int64(i+1))
		}
		if err := hl.Write(iv); err != nil {
			t.Fatal(err)
		}
	}
	hl.Close()
	total, err := ReadHistograms(dir, "primary", 3, "latency")
	if err != nil {
		t.Fatal(err)
	}
	if total.Count() != 2000 {
		t.Fatalf("merged %d values, want 2000 (warmup apart)", total.Count())
	}
	if max := total.Max(); max < 2990*time.Microsecond || max > 3010*time.Microsecond {
		t.Fatalf("max %s, want about 3ms", max)
	}
	warm, _ := ReadHistograms(dir, "primary", 3, "warmup-latency")
	if warm.Count() != 1000 {
		t.Fatalf("warmup %d values, want 1000", warm.Count())
	}
}

func TestVariableCSVs(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for s := 1; s <= 3; s++ {
		iv := &measure.Interval{Start: start.Add(time.Duration(s-1) * time.Second), End: start.Add(time.Duration(s) * time.Second), Elapsed: time.Duration(s) * time.Second}
		iv.Events = 10
		w.AppendTimeseries("primary", &TimeseriesRow{Iteration: 1, Interval: iv, Workload: true, Watched: []measure.Value{{Name: "status.Com_select", Value: float64(s)}}})
	}
	w.WriteRunInfo(&RunInfo{Plan: "x", Targets: []TargetInfo{{Name: "primary", Watched: []Column{{Name: "status.Com_select", Kind: measure.Counter}}}}})
	w.Close()
	run, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := WriteVariableCSVs(run)
	if err != nil || len(paths) != 1 {
		t.Fatalf("paths %v err %v", paths, err)
	}
	header, rows, _ := ReadTable(paths[0])
	if !reflect.DeepEqual(header, []string{"target", "iteration", "elapsed_s", "time", "value"}) || len(rows) != 3 || rows[2][4] != "3" {
		t.Fatalf("got %v %v", header, rows)
	}
}

func TestKeepIterations(t *testing.T) {
	dir := t.TempDir()
	w, _ := Create(dir)
	start := time.Now()
	for it := 1; it <= 3; it++ {
		iv := &measure.Interval{Start: start, End: start.Add(time.Second), Elapsed: time.Second}
		iv.Events = int64(it)
		w.AppendTimeseries("db", &TimeseriesRow{Iteration: it, Interval: iv, Workload: true})
		w.AppendSummary(&SummaryRow{Iteration: it, Target: "db", Status: StatusDone, Total: &measure.Total{Start: start, End: start.Add(time.Second)}})
	}
	w.Close()
	if err := KeepIterations(dir, map[int]bool{1: true, 3: true}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{SummaryFile, "timeseries/db.csv"} {
		_, rows, _ := ReadTable(filepath.Join(dir, p))
		if len(rows) != 2 || rows[0][0] != "1" || rows[1][0] != "3" {
			t.Fatalf("%s: %v", p, rows)
		}
	}
}

// A folder written when host metrics were snmp.NAME reads back with host.NAME columns.
func TestOldHostColumnsLoadAsHost(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	iv := &measure.Interval{Start: start, End: start.Add(time.Second), Elapsed: time.Second}
	w.AppendTimeseries("db", &TimeseriesRow{Iteration: 1, Interval: iv, Workload: true, Watched: []measure.Value{{Name: "snmp.load1", Value: 2.5}}})
	w.AppendSummary(&SummaryRow{Iteration: 1, Target: "db", Status: StatusDone, Watched: []measure.Value{{Name: "snmp.cpu_util", Value: 40}}})
	w.WriteRunInfo(&RunInfo{Plan: "x", Targets: []TargetInfo{{Name: "db", Watched: []Column{{Name: "snmp.load1", Kind: measure.Gauge}}}}})
	w.Close()
	run, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := run.Timeseries["db"].Float(0, "host.load1"); !ok || v != 2.5 {
		t.Fatalf("host.load1 %v %v (header %v)", v, ok, run.Timeseries["db"].Header)
	}
	if v, ok := run.Summary.Float(0, "host.cpu_util"); !ok || v != 40 {
		t.Fatalf("summary host.cpu_util %v %v", v, ok)
	}
	if c := run.Info.Targets[0].Watched[0]; c.Name != "host.load1" || c.Source != "host: snmp" {
		t.Fatalf("run.json column %+v", c)
	}
}
