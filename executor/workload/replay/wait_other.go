//go:build !linux

package replay

import "time"

// finalWait sleeps on a Go timer where there is no timerfd: up to a millisecond late.
type finalWait struct{ raw bool }

func (*finalWait) longest() time.Duration { return timerSlack }

func (*finalWait) until(due time.Time, _ <-chan struct{}) bool {
	time.Sleep(time.Until(due))
	return true
}

func (*finalWait) close() {}
