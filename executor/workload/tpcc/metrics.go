package tpcc

import (
	"math"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Metrics are tpcc's own columns of the time series and the summary, after the counts: the
// results folder describes them in run.json, so a report reads them without this package.
var Metrics = []measure.Metric{
	perMinute("tpmC", "tpcc only: NewOrder transactions per minute, rolled back ones included (also called NOPM); TPC-C-like, not an audited TPC-C result", true,
		func(s *measure.Stats) int64 { return s.Tx(newOrder) }),
	perMinute("tpmTotal", "tpcc only: transactions of all five types per minute", false,
		func(s *measure.Stats) int64 { return s.Events }),
	{Name: "efficiency", Doc: "tpcc with wait_times only: tpmC / (12.86 x warehouses), in percent; the specification's pacing allows at most 100", Kind: measure.Gauge, Better: measure.Higher,
		Interval: func(iv *measure.Interval) float64 { return efficiency(&iv.Stats, iv.Seconds()) }, IntervalUnit: measure.Percent,
		Total: func(t *measure.Total) float64 { return efficiency(&t.Stats, t.Seconds()) }, TotalUnit: measure.Percent},
}

// newOrder is the transaction tpmC counts.
const newOrder = "new_order"

// The settings of a run's Own.Params that the metrics are relative to.
const (
	paramWarehouses = "warehouses"
	paramWaitTimes  = "wait_times"
)

// maxPerWarehouse is the specification's ceiling with keying and think times: 10 terminals
// per warehouse, each at most 1.286 NewOrders per minute.
const maxPerWarehouse = 12.86

// own is what a run of p adds to its intervals and total.
func own(p *Params) *measure.Own {
	wait := 0.0
	if p.WaitTimes {
		wait = 1
	}
	return &measure.Own{Metrics: Metrics, Params: map[string]float64{paramWarehouses: float64(p.Warehouses), paramWaitTimes: wait}}
}

// perMinute is a per-minute figure: n per minute over the interval or the measured part.
func perMinute(name, doc string, headline bool, n func(*measure.Stats) int64) measure.Metric {
	return measure.Metric{Name: name, Doc: doc, Kind: measure.Rate, Better: measure.Higher, Headline: headline,
		Interval: func(iv *measure.Interval) float64 { return rate(n(&iv.Stats), iv.Seconds()) }, IntervalUnit: measure.PerMinute,
		Total: func(t *measure.Total) float64 { return rate(n(&t.Stats), t.Seconds()) }, TotalUnit: measure.PerMinute}
}

func rate(n int64, sec float64) float64 {
	if sec <= 0 {
		return 0
	}
	return float64(n) * 60 / sec
}

func efficiency(s *measure.Stats, sec float64) float64 {
	wh, _ := s.Param(paramWarehouses)
	if wait, _ := s.Param(paramWaitTimes); wait == 0 || wh <= 0 {
		return math.NaN()
	}
	return rate(s.Tx(newOrder), sec) / (maxPerWarehouse * wh) * 100
}
