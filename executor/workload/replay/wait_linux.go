//go:build linux

package replay

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// finalWait sleeps the last moments before a statement is due on a timerfd read through
// Go's netpoller: the kernel's high-resolution timer wakes the goroutine tens of
// microseconds after due (measured: 15-40 µs late, against a millisecond for a Go timer,
// whose poller sleeps in whole milliseconds), and the session costs no CPU while it
// waits: a park, two system calls and a wake-up per statement.
type finalWait struct {
	f   *os.File
	fd  int
	buf [8]byte
	bad bool // no timerfd (out of descriptors): sleep on a Go timer, a millisecond late
}

// until returns at due (a few tens of microseconds after).
func (w *finalWait) until(due time.Time) {
	d := time.Until(due)
	if d <= 0 {
		return
	}
	if w.f == nil && !w.bad {
		fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
		if err != nil {
			w.bad = true
		} else {
			w.fd, w.f = fd, os.NewFile(uintptr(fd), "replay timer") // non-blocking: the poller's
		}
	}
	if !w.bad && unix.TimerfdSettime(w.fd, 0, &unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}, nil) == nil {
		if _, err := w.f.Read(w.buf[:]); err == nil {
			return
		}
	}
	time.Sleep(time.Until(due))
}

func (w *finalWait) close() {
	if w.f != nil {
		_ = w.f.Close()
		w.f = nil
	}
}
