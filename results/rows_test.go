package results

import (
	"maps"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

func TestGridSeconds(t *testing.T) {
	for _, c := range []struct {
		elapsed, interval time.Duration
		want              float64
	}{
		{2025 * time.Millisecond, time.Second, 2},
		{8300 * time.Millisecond, time.Second, 8},
		{-4 * time.Second, time.Second, -4},
		{1480 * time.Millisecond, 500 * time.Millisecond, 1.5},
		{3 * time.Second, 0, 3},
	} {
		if got := GridSeconds(c.elapsed, c.interval); got != c.want {
			t.Errorf("GridSeconds(%s, %s) = %v, want %v", c.elapsed, c.interval, got, c.want)
		}
	}
}

// A workload that never ran has no duration and no watched values: empty cells, never 0.
func TestSummaryRowNotMeasuredIsEmpty(t *testing.T) {
	watched := []measure.Value{{Name: "status.Com_select", Value: 0}}
	cells := func(o SummaryRow) map[string]string {
		m := map[string]string{}
		for _, f := range o.record() {
			m[f.Name] = f.Value
		}
		return m
	}
	ran := cells(SummaryRow{Iteration: 1, Target: "db", Status: StatusDone, Duration: 2 * time.Second, Watched: watched})
	if ran["duration_s"] != "2" || ran["status.Com_select"] != "0" {
		t.Fatalf("a measured row: %v", ran)
	}
	never := cells(SummaryRow{Iteration: 1, Target: "db", Status: StatusFailed, Watched: watched, NotMeasured: true})
	if v, ok := never["duration_s"]; !ok || v != "" {
		t.Fatalf("duration_s of a workload that never ran: %q (present %v), want an empty cell", v, ok)
	}
	if v, ok := never["status.Com_select"]; !ok || v != "" {
		t.Fatalf("status.Com_select of a workload that never ran: %q, want an empty cell", v)
	}
}

// Figures are what assertions are judged on before the row is written: every figure cell
// of it as written (rounded as the cell is), an empty cell absent, the row keys left out.
func TestSummaryRowFiguresAreItsCells(t *testing.T) {
	o := SummaryRow{Iteration: 1, Target: "db", Status: StatusDone, Duration: 2 * time.Second,
		Watched: []measure.Value{{Name: "status.Com_select", Value: 1.23456789}, {Name: "host.load1", Value: math.NaN()}}}
	got := o.Figures()
	want := map[string]float64{"status.Com_select": 1.235}
	if !maps.Equal(got, want) {
		t.Fatalf("figures %v, want %v", got, want)
	}
	for _, c := range o.record() {
		if v, ok := got[c.Name]; ok && FormatFloat(v) != c.Value {
			t.Errorf("%s: figure %v, cell %q", c.Name, v, c.Value)
		}
	}
}

// A load interrupted 0.3 s after its 5 s tick rounds to 5 on the grid; its row keeps its
// real end instead, so no two rows of an iteration share an elapsed_s (merge keys rows by
// it and would keep only one; export's primary key would refuse the second). A warmup tick
// just before the start is 0, not -0, and the next iteration starts its own grid again.
func TestElapsedStrictlyIncreasesWithinAnIteration(t *testing.T) {
	w, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ms := time.Millisecond
	rows := []struct {
		iteration int
		elapsed   time.Duration
		want      string
	}{
		{1, -1300 * ms, "-1"},
		{1, -300 * ms, "0"}, // a 2.3 s warmup's second tick
		{1, 0, "0.001"},     // its end: the grid's 0 is taken
		{1, 1003 * ms, "1"},
		{1, 2 * time.Second, "2"},
		{1, 2300 * ms, "2.3"}, // interrupted
		{2, 1 * time.Second, "1"},
		{2, 1000*ms + 200*time.Microsecond, "1.001"}, // a sliver: rounded up, at least 1 ms after the previous row
	}
	for _, r := range rows {
		iv := &measure.Interval{Elapsed: r.elapsed, End: time.Now()}
		if err := w.AppendTimeseries("db", &TimeseriesRow{Iteration: r.iteration, Interval: iv, ReportInterval: time.Second}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	header, got, err := ReadTable(filepath.Join(w.Dir, TimeseriesDir, "db.csv"))
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(header, "elapsed_s")
	for i, r := range rows {
		if got[i][col] != r.want {
			t.Errorf("row %d (iteration %d, elapsed %s): elapsed_s %q, want %q", i+1, r.iteration, r.elapsed, got[i][col], r.want)
		}
	}
}

// A stage row carries the stage's level of load (what a knee is drawn against), read back
// through Run.Stages as a row key; the iteration's row leaves it empty, and a matrix axis of
// the same name is never written twice.
func TestStageRowsCarryTheirLevel(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	total := func(stage int) *measure.Total {
		return &measure.Total{Stage: stage, Stats: measure.Stats{Latency: measure.NewHistogram()}}
	}
	rows := []*SummaryRow{
		{Iteration: 1, Repeat: 1, Target: "db", Status: StatusDone, Total: total(0)},
		{Iteration: 1, Repeat: 1, Target: "db", Stage: 1, StageThreads: 8, Status: StatusDone, Total: total(1)},
		{Iteration: 1, Repeat: 1, Target: "db", Stage: 2, StageThreads: 64, Status: StatusDone, Total: total(2)},
		{Iteration: 2, Repeat: 1, Target: "db", Stage: 1, StageThreads: 4, StageRate: 250.5, Status: StatusDone, Total: total(1)},
	}
	for _, o := range rows {
		if err := w.AppendSummary(o); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if err := WriteJSON(filepath.Join(dir, RunFile), &RunInfo{}); err != nil {
		t.Fatal(err)
	}
	run, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range run.Stages.Rows {
		got = append(got, run.Stages.Value(i, ColStageThreads)+"/"+run.Stages.Value(i, ColStageRate))
	}
	if want := []string{"8/", "64/", "4/250.5"}; !slices.Equal(got, want) {
		t.Errorf("stage rows' threads/rate %v, want %v", got, want)
	}
	if v := run.Summary.Value(0, ColStageThreads); v != "" {
		t.Errorf("the iteration's row has threads %q", v)
	}
	for _, name := range []string{ColStageThreads, ColStageRate} {
		if !IsKey(SummaryCSV, name) {
			t.Errorf("%s of a summary row is not a row key", name)
		}
	}
	axis := SummaryRow{Iteration: 1, Matrix: []Field{{Name: "threads", Value: "8"}}, Target: "db", Stage: 1, StageThreads: 8, Status: StatusDone}
	n := 0
	for _, f := range axis.record() {
		if f.Name == ColStageThreads {
			n++
		}
	}
	if n != 1 {
		t.Errorf("a matrix axis named threads and the stage's threads: %d threads columns, want 1", n)
	}
}

// tpcc's summary leads with tpmC, a headline metric run.json describes, and its
// transactions' p90; a workload without tpmC (tpmC's cells empty, tx.NAME.p90_ms of a custom
// workload present) has no headline, nor a folder whose run.json does not say tpmC leads.
func TestHeadlineFollowsTheMetricTable(t *testing.T) {
	header := []string{ColIteration, "tps", "tpmC", "tx.new_order.count", "tx.new_order.p90_ms", "tx.payment.p90_ms", "tx.payment.p95_ms"}
	info := &RunInfo{Metrics: []MetricInfo{{Name: "tpmC", Kind: measure.Rate, TotalUnit: measure.PerMinute, Summary: true, Headline: true, Better: measure.Higher}}}
	tpcc := &Run{Info: info, Summary: NewData(header, [][]string{{"1", "100", "2400", "40", "12.5", "3.1", "4"}})}
	if got, want := tpcc.Headline(), []string{"tpmC", "tx.new_order.p90_ms", "tx.payment.p90_ms"}; !slices.Equal(got, want) {
		t.Errorf("tpcc headline %v, want %v", got, want)
	}
	if c := tpcc.Describe(SummaryCSV, "tpmC"); c.Role != RoleMetric || c.Merge != MergeSum || c.Better != measure.Higher || c.Unit != measure.PerMinute {
		t.Errorf("tpmC as run.json describes it: %+v", c)
	}
	custom := &Run{Info: info, Summary: NewData(header, [][]string{{"1", "100", "", "40", "12.5", "3.1", "4"}})}
	if got := custom.Headline(); got != nil {
		t.Errorf("a workload without tpmC has headline %v", got)
	}
	if got := (&Run{Info: &RunInfo{}, Summary: tpcc.Summary}).Headline(); got != nil {
		t.Errorf("a folder that describes no metric of its kinds has headline %v", got)
	}
	if got := (&Run{Info: info, Summary: NewData(nil, nil)}).Headline(); got != nil {
		t.Errorf("an empty summary has headline %v", got)
	}
}
