package measure

import (
	"math"
	"strings"
)

// CostMeter turns one target's watched counters into Costs, interval by interval, and sums them over the
// measured part for the summary. It is the one place where a cost is divided by transactions.
type CostMeter struct {
	acc map[string]*costSum
}

type costSum struct {
	increase float64
	events   int64
}

// NewCostMeter starts a meter with nothing summed.
func NewCostMeter() *CostMeter { return &CostMeter{acc: map[string]*costSum{}} }

// CostsOf are the Costs a target with these watched columns has.
func CostsOf(columns []string) []Cost {
	have := map[string]bool{}
	for _, c := range columns {
		have[c] = true
	}
	var out []Cost
	for _, c := range Costs {
		for _, f := range c.From {
			if have[f] {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// CostSource describes how c is computed for run.json.
func CostSource(c Cost, columns []string) string {
	have := map[string]bool{}
	for _, x := range columns {
		have[x] = true
	}
	var from []string
	for _, f := range c.From {
		if have[f] {
			from = append(from, f)
		}
	}
	return "(" + strings.Join(from, " + ") + ") / transactions"
}

// Interval is the costs of one interval: the counters in watched (per-second rates over the interval, as
// samplers give them) times the interval's length, over its transactions. A cost is NaN when a counter had no
// value or the interval completed no transaction. Measured intervals (not warmup) are summed for Total,
// those without transactions too: a stall's work is part of what the transactions cost.
func (m *CostMeter) Interval(iv *Interval, watched []Value) []Value {
	vals := map[string]float64{}
	var names []string
	for _, v := range watched {
		vals[v.Name] = v.Value
		names = append(names, v.Name)
	}
	var out []Value
	secs := iv.Seconds()
	for _, c := range CostsOf(names) {
		inc := 0.0
		for _, f := range c.From {
			if r, ok := vals[f]; ok {
				inc += r * secs
			}
		}
		v := math.NaN()
		if iv.Events > 0 {
			v = inc / float64(iv.Events)
		}
		out = append(out, Value{Name: c.Name, Value: v})
		if iv.Warmup || math.IsNaN(inc) || secs <= 0 {
			continue
		}
		s := m.acc[c.Name]
		if s == nil {
			s = &costSum{}
			m.acc[c.Name] = s
		}
		s.increase += inc
		s.events += iv.Events
	}
	return out
}

// Total is the costs over the measured intervals seen: the summed increase over the summed transactions.
func (m *CostMeter) Total() []Value {
	var out []Value
	for _, c := range Costs {
		s := m.acc[c.Name]
		if s == nil {
			continue
		}
		v := math.NaN()
		if s.events > 0 {
			v = s.increase / float64(s.events)
		}
		out = append(out, Value{Name: c.Name, Value: v})
	}
	return out
}
