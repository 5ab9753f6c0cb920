package watch

import (
	"math"
	"time"
)

// Rate turns successive readings of a monotonically increasing counter into per-interval rates and a total
// increase. A reading below the previous one is a reset (server restart, FLUSH STATUS, agent restart): that
// interval has no rate (its start is unknown), and the new value counts as increase, since the counter
// restarted from zero. A rate is therefore never negative.
type Rate struct {
	last      float64
	lastAt    time.Time
	have      bool
	restarted bool
	increase  float64
}

// Restart says the source was replaced (a server restarted with another pid): the next reading starts a new
// counter from zero, so it counts whole as increase and gives no rate, even when it happens to be higher.
func (c *Rate) Restart() { c.restarted = true }

// Observe records value v read at time t and returns the rate per second since the previous reading, or NaN
// when there is none: first reading, a reset, NaN input, or no time elapsed. A missing reading (NaN) keeps
// the previous one, so the next rate spans the gap: it is the true average over it.
func (c *Rate) Observe(v float64, t time.Time) float64 {
	if math.IsNaN(v) {
		return math.NaN()
	}
	prev, prevAt, had := c.last, c.lastAt, c.have
	c.last, c.lastAt, c.have = v, t, true
	if !had {
		return math.NaN()
	}
	if v < prev || c.restarted {
		c.restarted = false
		c.increase += v
		return math.NaN()
	}
	d := v - prev
	c.increase += d
	dt := t.Sub(prevAt).Seconds()
	if dt <= 0 {
		return math.NaN()
	}
	return d / dt
}

// Moved says the readings come from another source from now on under the same name (a
// front that followed a cluster's primary to the promoted replica): the next reading is a new
// starting point, neither a rate nor an increase, since what the new source counted before
// is none of this run's; the increase so far stays.
func (c *Rate) Moved() { c.have = false }

// Rebase makes the last reading the starting point of Increase.
func (c *Rate) Rebase() { c.increase = 0 }

// Increase is the total increase since Rebase (or the first reading), resets included.
func (c *Rate) Increase() float64 { return c.increase }

// Valid reports whether at least one reading was observed.
func (c *Rate) Valid() bool { return c.have }

// Wrap32 is the increase of a 32-bit counter (SNMP Counter32) from prev to cur, allowing one wrap. ok is false
// when the increase is implausible (more than half the range): then the agent restarted rather than wrapped.
func Wrap32(prev, cur uint64) (d uint64, ok bool) {
	if cur >= prev {
		d = cur - prev
	} else {
		d = cur + (1 << 32) - prev
	}
	return d, d < 1<<31
}

// SpanRate is a Rate for columns named as rates (KB/s, reads/s): its summary is the average rate since
// Rebase, not the increase.
type SpanRate struct {
	Rate
	from, to time.Time
}

// Observe is Rate.Observe, keeping the time of the readings.
func (s *SpanRate) Observe(v float64, t time.Time) float64 {
	r := s.Rate.Observe(v, t)
	if !math.IsNaN(v) {
		if s.from.IsZero() {
			s.from = t
		}
		s.to = t
	}
	return r
}

// Rebase makes the last reading the start of Average.
func (s *SpanRate) Rebase() {
	s.Rate.Rebase()
	s.from = s.to
}

// Average is the increase per second since Rebase; NaN before two readings.
func (s *SpanRate) Average() float64 {
	dt := s.to.Sub(s.from).Seconds()
	if dt <= 0 {
		return math.NaN()
	}
	return s.Increase() / dt
}
