package results

import (
	"math"
	"strconv"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// TimeFormat is how the time column is written: UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// TimeseriesRow is one row of timeseries/TARGET.csv: the workload's figures over one report
// interval (on the workload's target only) and every watched column read at its end.
type TimeseriesRow struct {
	Iteration int
	// Interval is the workload's interval; its end is the row's time. Every target's row
	// of one tick carries it, Workload says which one also gets its figures.
	Interval       *measure.Interval
	ReportInterval time.Duration
	Workload       bool
	Watched        []measure.Value
}

// record lays the sample out as the contract's columns: iteration, elapsed_s, time, the
// workload's metrics (measure.Metrics then measure.Families), then the watched columns.
func (s *TimeseriesRow) record(elapsed float64) Record {
	iv := s.Interval
	var rec Record
	rec.AddInt(ColIteration, int64(s.Iteration))
	rec.AddFloat(ColElapsed, elapsed)
	rec.Add(ColTime, iv.End.UTC().Format(TimeFormat))
	if s.Workload {
		for _, v := range measure.IntervalValues(iv) {
			rec.AddFloat(v.Name, v.Value)
		}
	}
	for _, v := range s.Watched {
		rec.AddFloat(v.Name, v.Value)
	}
	return rec
}

// AppendTimeseries writes one row of timeseries/TARGET.csv.
func (w *Writer) AppendTimeseries(target string, s *TimeseriesRow) error {
	return w.AppendTimeseriesRecord(target, s.record(w.elapsed(target, s)))
}

// lastRow is where a target's time series stands: elapsed_s of its last row, and its iteration.
type lastRow struct {
	iteration int
	elapsed   float64
}

// elapsed is s's elapsed_s: its place on the report-interval grid (GridSeconds), unless the
// previous row of the iteration took that place. An interval cut short (a load interrupted,
// aborted or cut off by a lost server 0.3 s after a tick) rounds to the tick before it; it gets
// its real elapsed time instead, rounded up to the millisecond, so elapsed_s strictly increases
// within an iteration: readers key rows by it (merge, export's primary key, the charts' x).
func (w *Writer) elapsed(target string, s *TimeseriesRow) float64 {
	el := GridSeconds(s.Interval.Elapsed, s.ReportInterval)
	w.mu.Lock()
	defer w.mu.Unlock()
	if prev, ok := w.last[target]; ok && prev.iteration == s.Iteration && el <= prev.elapsed {
		actual := math.Ceil(float64(s.Interval.Elapsed)/float64(time.Millisecond)) / 1000
		el = math.Max(actual, math.Round((prev.elapsed+0.001)*1000)/1000)
	}
	w.last[target] = lastRow{s.Iteration, el}
	return el
}

// GridSeconds puts a tick on the report-interval grid (1, 2, 3 s...): a tick delivered a
// few milliseconds late on a busy machine still joins the rows of other iterations and
// targets for the same second. The real end of the interval is in the time column.
func GridSeconds(elapsed, interval time.Duration) float64 {
	if interval <= 0 {
		interval = time.Second
	}
	k := math.Round(float64(elapsed) / float64(interval))
	return math.Round(k*interval.Seconds()*1000)/1000 + 0 // + 0: -0 (a warmup tick just before the start) is 0
}

// SummaryRow is one row of summary.csv: an iteration on one target, once its status is known.
type SummaryRow struct {
	Iteration, Repeat int
	Matrix            []Field
	Target            string
	// Stage is a load shape's stage the row covers (Total is that stage's), 0 for the
	// whole iteration; stage rows have a stage column, iteration rows leave it empty.
	Stage int
	// StageThreads and StageRate are the stage's level of load as the plan gives it
	// (stage rows only; 0: not given).
	StageThreads int
	StageRate    float64
	Status       string
	Duration     time.Duration
	// Total is the measured workload's, on the workload's target only (nil elsewhere, and
	// when the iteration failed before measuring).
	Total *measure.Total
	// Records are the iteration's record_as metrics (workload's target only), sorted.
	Records []measure.Value
	// Watched are the samplers' summaries: counters' increases, gauges' last values.
	Watched []measure.Value
	// NotMeasured is an iteration whose workload never ran (it failed before, or could not
	// start): duration_s and the watched columns are written empty, never as a measured 0.
	NotMeasured bool
}

// record lays the outcome out as summary.csv's columns: iteration, repeat, the matrix
// axes, target, status, duration_s, the metrics, record_as names, the metric families,
// the watched columns.
func (o *SummaryRow) record() Record {
	var rec Record
	rec.AddInt(ColIteration, int64(o.Iteration))
	rec.AddInt(ColRepeat, int64(o.Repeat))
	for _, f := range o.Matrix {
		rec.Add(f.Name, f.Value)
	}
	rec.Add(ColTarget, o.Target)
	if o.Stage > 0 {
		rec.AddInt(ColStage, int64(o.Stage))
		// A matrix axis of the same name already holds the row's value of it.
		if o.StageThreads > 0 && !hasField(o.Matrix, ColStageThreads) {
			rec.AddInt(ColStageThreads, int64(o.StageThreads))
		}
		if o.StageRate > 0 && !hasField(o.Matrix, ColStageRate) {
			rec.AddFloat(ColStageRate, o.StageRate)
		}
	}
	rec.Add(ColStatus, o.Status)
	if o.NotMeasured {
		rec.AddFloat(ColDuration, math.NaN())
	} else {
		rec.AddFloat(ColDuration, math.Round(o.Duration.Seconds()*1000)/1000)
	}
	o.figures(rec.AddFloat)
	return rec
}

// figures hands add the row's figures in column order: the metrics, record_as names, the
// metric families, the watched columns.
func (o *SummaryRow) figures(add func(name string, v float64)) {
	if o.Total != nil {
		fixed, family := measure.TotalValues(o.Total)
		for _, v := range fixed {
			add(v.Name, v.Value)
		}
		for _, v := range o.Records {
			add(v.Name, v.Value)
		}
		for _, v := range family {
			add(v.Name, v.Value)
		}
	}
	for _, v := range o.Watched {
		if o.NotMeasured {
			v.Value = math.NaN()
		}
		add(v.Name, v.Value)
	}
}

// Figures are the row's figures by column name, each as summary.csv will hold it (rounded
// as its cell is written; an empty cell is absent): what the iteration's assertions are
// judged on (spec/verdict) before the row is written, the same numbers a reader of the
// folder, quadrant merge among them, sees.
func (o *SummaryRow) Figures() map[string]float64 {
	m := map[string]float64{}
	o.figures(func(name string, v float64) {
		if f, err := strconv.ParseFloat(FormatFloat(v), 64); err == nil {
			m[name] = f
		}
	})
	return m
}

// AppendSummary writes one row of summary.csv.
func (w *Writer) AppendSummary(o *SummaryRow) error {
	return w.AppendSummaryRecord(o.record())
}

func hasField(fields []Field, name string) bool {
	for _, f := range fields {
		if f.Name == name {
			return true
		}
	}
	return false
}
