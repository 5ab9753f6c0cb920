//go:build linux

package replay

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// finalWait sleeps a session until its statement is due, precisely and without spinning.
//
// With a spare P per session (raw: GOMAXPROCS above the sessions, as the engine sets it for
// up to 64 workers, whose replies it reads the same way), the session's thread sleeps in
// nanosleep(2) without telling the runtime (a raw system call: the thread keeps its P):
// one system call per statement and no scheduler work, 50-60 µs late at most (the kernel's
// timer slack). A signal interrupts the sleep at once (the runtime preempts with one,
// GC stops the world with one), and the rest of the wait then goes through the runtime,
// so a P is never held against it; waits are cut in slices of rawSlice to see the stop.
//
// Without (more sessions than that), the session parks on a timerfd read through Go's
// netpoller: the kernel's high-resolution timer wakes it 15-40 µs after due (measured), for
// a park, two system calls and a wake-up per statement.
//
// Go's own timers are a millisecond late (the poller sleeps in whole milliseconds): see
// timerSlack.
type finalWait struct {
	raw bool
	f   *os.File
	fd  int
	buf [8]byte
	bad bool // no timerfd (out of descriptors): sleep on a Go timer, a millisecond late
}

// rawSlice is the longest raw sleep: a stop is seen within it.
const rawSlice = 10 * time.Millisecond

// rawWait is the longest wait a session with a P of its own sleeps raw all the way; a
// longer one sleeps on a Go timer until timerSlack before due first.
const rawWait = 50 * time.Millisecond

// longest is how much of a wait until may take raw: all of a short one, the last
// timerSlack of a long one.
func (w *finalWait) longest() time.Duration {
	if w.raw {
		return rawWait
	}
	return timerSlack
}

// until returns at due (tens of microseconds after), or false when stop closed first.
func (w *finalWait) until(due time.Time, stop <-chan struct{}) bool {
	for w.raw {
		d := min(time.Until(due), rawSlice)
		if d <= 0 {
			return true
		}
		ts := syscall.NsecToTimespec(int64(d))
		if _, _, e := syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0); e == syscall.EINTR {
			break // the runtime wants this thread: the rest through it
		}
		select {
		case <-stop:
			return false
		default:
		}
	}
	w.park(due)
	return true
}

// park sleeps on the timerfd until due.
func (w *finalWait) park(due time.Time) {
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
