package link

import (
	"time"

	"golang.org/x/sys/unix"
)

// coarse is how far from a deadline the Go timer hands over to nanosleep(2). The runtime
// waits for timers in epoll_wait, whose timeout is in whole milliseconds: a Go timer of
// 200 µs fired 0.9 ms late, one of 2.5 ms 0.7 ms late (median, on this project's 2-core
// VM under load), while nanosleep(2) on the goroutine's thread is about 50 µs late. A
// blocking nanosleep holds a thread but not a P, and only for the last stretch.
const coarse = 2 * time.Millisecond

// sleepUntil waits until t, never less; true when changed was closed or the connection
// cut first (the caller looks at the shape again).
func (p *pipe) sleepUntil(t time.Time, changed <-chan struct{}) bool {
	for {
		d := time.Until(t)
		if d <= 0 {
			return false
		}
		if d > coarse {
			p.timer.Reset(d - coarse)
			select {
			case <-p.timer.C:
				continue
			case <-changed:
			case <-p.c.done:
			}
			p.timer.Stop()
			return true
		}
		ts := unix.NsecToTimespec(int64(d))
		for unix.Nanosleep(&ts, &ts) == unix.EINTR {
		}
		select {
		case <-changed:
			return true
		case <-p.c.done:
			return true
		default:
		}
	}
}
