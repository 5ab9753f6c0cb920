package snmpwatch

import (
	"math"

	"github.com/quadrant-bench/quadrant/executor/watch"
)

// cpuState turns the agent's raw CPU tick counters into utilisation percentages. net-snmp refreshes those
// counters every 5 s and reports zeros until its first refresh, so at 1 s sampling most reads repeat the
// previous ticks: a value is computed only when the ticks moved, and held until they move again. Before the
// first movement there is no value (empty cell), never a division by zero.
type cpuState struct {
	prev  [nTicks]uint64
	have  bool
	held  [4]float64 // util, user, system, iowait; meaningful when valid
	valid bool
	acc   [nTicks]uint64
}

func (c *cpuState) observe(t [nTicks]uint64, restarted bool) {
	if t == ([nTicks]uint64{}) {
		return // not refreshed yet
	}
	if !c.have || restarted {
		c.prev, c.have = t, true
		if restarted {
			c.valid = false
		}
		return
	}
	if t == c.prev {
		return
	}
	var d [nTicks]uint64
	var total uint64
	for i := range t {
		di, ok := watch.Wrap32(c.prev[i], t[i])
		if !ok {
			// A counter ran backwards by more than a wrap explains: the agent restarted unseen. Start over.
			c.prev, c.valid = t, false
			return
		}
		d[i] = di
		total += di
	}
	c.prev = t
	if total == 0 {
		return
	}
	c.held, c.valid = percentages(d), true
	for i := range d {
		c.acc[i] += d[i]
	}
}

func percentages(d [nTicks]uint64) [4]float64 {
	var total uint64
	for _, x := range d {
		total += x
	}
	if total == 0 {
		return [4]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	}
	pct := func(x uint64) float64 { return 100 * float64(x) / float64(total) }
	return [4]float64{
		pct(total - d[tIdle]),
		pct(d[tUser] + d[tNice]),
		pct(d[tSystem] + d[tIRQ] + d[tSoftIRQ]),
		pct(d[tWait]),
	}
}

func cpuIndex(name string) int {
	switch name {
	case CPUUser:
		return 1
	case CPUSystem:
		return 2
	case CPUIOWait:
		return 3
	}
	return 0
}

// value is the held percentage for a cpu_* metric, NaN before the ticks first moved.
func (c *cpuState) value(name string) float64 {
	if !c.valid {
		return math.NaN()
	}
	return c.held[cpuIndex(name)]
}

// rebase starts the whole-span accumulation (Summary) afresh.
func (c *cpuState) rebase() { c.acc = [nTicks]uint64{} }

// overall is the percentage over every tick movement since rebase.
func (c *cpuState) overall(name string) float64 { return percentages(c.acc)[cpuIndex(name)] }
