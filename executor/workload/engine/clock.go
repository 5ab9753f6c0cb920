package engine

import (
	"context"
	"time"
)

// Clock is the engine loop's interval clock: it cuts an interval every Interval from Start
// during warmup, exactly at Measured, then every Interval from there, until the workers have
// exited, even while they are stuck in a query.
type Clock struct {
	Start, Measured time.Time
	End             time.Time // zero: no time limit
	Interval        time.Duration
	Active          func() int                       // workers running now
	Cut             func(now time.Time, threads int) // cut one interval
	Halt            func()                           // stop the workers: the end came, or ctx was cancelled
	Pending         func() bool                      // something was recorded since the last cut
}

// Next is the first tick after t.
func (c *Clock) Next(t time.Time) time.Time {
	iv := c.Interval
	if t.Before(c.Measured) {
		n := c.Start.Add(iv * (t.Sub(c.Start)/iv + 1))
		if n.After(c.Measured) {
			return c.Measured
		}
		return n
	}
	return c.Measured.Add(iv * (t.Sub(c.Measured)/iv + 1))
}

// Run ticks until done is closed; the last interval, cut then, says finalThreads.
func (c *Clock) Run(ctx context.Context, done <-chan struct{}, finalThreads int) {
	next := c.Next(c.Start)
	var endTimer <-chan time.Time
	if !c.End.IsZero() {
		t := time.NewTimer(time.Until(c.End))
		defer t.Stop()
		endTimer = t.C
	}
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	last := c.Start
	for {
		select {
		case <-timer.C:
			now := time.Now()
			if next.Equal(c.Measured) {
				now = c.Measured // the warmup interval ends exactly there
			}
			// At the end, wait for the workers' last events (the done case cuts)
			// rather than emitting a sliver of an interval; stuck workers get one interval.
			if c.End.IsZero() || next.Before(c.End) || now.Sub(c.End) >= c.Interval {
				c.Cut(now, c.Active())
				last = now
			}
			next = c.Next(now)
			timer.Reset(time.Until(next))
		case <-endTimer:
			c.Halt()
		case <-ctx.Done():
			c.Halt()
			ctx = context.Background() // keep ticking until workers exit
		case <-done:
			now := time.Now()
			// No sliver of an interval at the end, unless it holds something (an error
			// that came just after the last tick): a measured figure is never dropped.
			if now.Sub(last) >= time.Millisecond || last.Equal(c.Start) || c.Pending != nil && c.Pending() {
				c.Cut(now, finalThreads)
			}
			c.Halt()
			return
		}
	}
}
