//go:build !linux

package replay

import "time"

// finalWait sleeps on a Go timer where there is no timerfd: up to a millisecond late.
type finalWait struct{}

func (*finalWait) until(due time.Time) { time.Sleep(time.Until(due)) }

func (*finalWait) close() {}
