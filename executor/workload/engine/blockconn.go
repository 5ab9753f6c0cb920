//go:build linux

package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// blockingConn is a net.Conn over a blocking socket, so a worker waiting for
// the server's reply sleeps in read(2) as a C client's thread does.
//
// Measured on 2 cores (oltp_read_write, 4 threads): through the netpoller
// (EAGAIN, park, epoll_wait, futex wake-ups) quadrant reached ~0.7x
// sysbench's tps; a blocking read through syscall.Read did no better, because
// sysmon then wakes every 20 µs to retake Ps from threads in syscalls. A raw
// read (no entersyscall: the thread keeps its P while the server answers)
// reached parity. It is used only when there is a spare P per worker
// (GOMAXPROCS > threads) and only for rawSlice: SO_RCVTIMEO makes the raw
// read give up after that, then ordinary syscall.Read calls (P released) wait
// for the rest of the timeout. A runtime preemption signal (GC stop-the-world
// sends them every 100 µs) interrupts the raw read at once. So a P is never
// held against the runtime, and a stuck server cannot stall GC or the ticker.
type blockingConn struct {
	fd      int
	raw     bool
	timeout time.Duration
	// The driver reads through a 4 KB buffer; a range select's 100 rows would
	// take several read(2) calls. One read here takes whatever has arrived.
	readBuf
	handshake
	local  net.Addr
	remote net.Addr
	closed atomic.Bool
}

// readBufSize holds a sysbench range select's reply (100 rows of CHAR(120)) in
// one read(2) while keeping thousands of connections cheap.
const readBufSize = 16 << 10

const blockingSockets = true

// rawSlice bounds a read that keeps its P (see blockingConn).
const rawSlice = 10 * time.Millisecond

// dialBlocking dials with the standard dialer, then takes the socket over in
// blocking mode with the given read/write timeout; raw allows reads that keep their P.
func dialBlocking(ctx context.Context, network, addr string, timeout time.Duration, raw bool) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c, nil
	}
	fd := -1
	var derr error
	if err := rc.Control(func(f uintptr) { fd, derr = syscall.Dup(int(f)) }); err != nil || derr != nil {
		return c, nil // keep the ordinary connection
	}
	if timeout <= 0 {
		timeout = time.Hour
	}
	bc := &blockingConn{fd: fd, raw: raw, timeout: timeout, readBuf: readBuf{rbuf: make([]byte, readBufSize)}, local: c.LocalAddr(), remote: c.RemoteAddr()}
	_ = c.Close() // the dup keeps the socket open
	if err := syscall.SetNonblock(fd, false); err != nil {
		_ = bc.Close()
		return nil, fmt.Errorf("blocking socket: %w", err)
	}
	rcv := timeout
	if raw {
		rcv = rawSlice
	}
	for opt, d := range map[int]time.Duration{syscall.SO_RCVTIMEO: rcv, syscall.SO_SNDTIMEO: timeout} {
		tv := syscall.NsecToTimeval(d.Nanoseconds())
		if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			_ = bc.Close()
			return nil, fmt.Errorf("socket timeout: %w", err)
		}
	}
	return bc, nil
}

type timeoutError struct{ op string }

func (e timeoutError) Error() string   { return e.op + ": i/o timeout" }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return true }

func (c *blockingConn) Read(b []byte) (int, error)           { return c.read(c, b) }
func (c *blockingConn) next(n int) ([]byte, error)           { return c.readBuf.next(c, n) }
func (c *blockingConn) discard(n int) error                  { return c.readBuf.discard(c, n) }
func (c *blockingConn) capabilities() (uint32, uint32, bool) { return c.handshake.capabilities() }

// command: the socket timeouts set at dial bound every read.
func (c *blockingConn) command() {}

// fill reads what has arrived into buf.
func (c *blockingConn) fill(buf []byte) (int, error) {
	if c.raw {
		var first time.Time
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
			if e != syscall.EAGAIN && e != syscall.EINTR {
				return c.result(int(r), e)
			}
			// EINTR: the runtime asked this goroutine to give up its P (with
			// SO_RCVTIMEO set the kernel does not restart the read). Mostly it
			// is sysmon's preemption, sent every 10 ms to a goroutine that has
			// not been rescheduled, which is every worker here; the goroutine
			// yields at its next function call anyway. Waiting below with the
			// P released would have sysmon hand the P to another thread and
			// back, several wake-ups: on a loaded machine, where replies often
			// take 10 ms, that cost a fifth of the client's CPU. So keep
			// reading raw, within rawSlice in all (GC stop-the-world waits no longer).
			if e == syscall.EAGAIN {
				break
			}
			if first.IsZero() {
				first = time.Now()
			} else if time.Since(first) >= rawSlice {
				break
			}
		}
	}
	deadline := time.Now().Add(c.timeout)
	for {
		n, err := syscall.Read(c.fd, buf)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN && time.Now().Before(deadline):
			continue // SO_RCVTIMEO is the raw slice; keep waiting up to the timeout
		}
		var e syscall.Errno
		if err != nil {
			e = err.(syscall.Errno)
		}
		return c.result(n, e)
	}
}

func (c *blockingConn) result(n int, e syscall.Errno) (int, error) {
	switch {
	case e == syscall.EAGAIN:
		return 0, &net.OpError{Op: "read", Net: "tcp", Addr: c.remote, Err: timeoutError{"read"}}
	case e != 0:
		if c.closed.Load() {
			return 0, net.ErrClosed
		}
		return 0, &net.OpError{Op: "read", Net: "tcp", Addr: c.remote, Err: os.NewSyscallError("read", e)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *blockingConn) Write(b []byte) (int, error) {
	c.sniff(b)
	done := 0
	for done < len(b) {
		n, err := syscall.Write(c.fd, b[done:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return done, &net.OpError{Op: "write", Net: "tcp", Addr: c.remote, Err: timeoutError{"write"}}
		case err != nil:
			if c.closed.Load() {
				return done, net.ErrClosed
			}
			return done, &net.OpError{Op: "write", Net: "tcp", Addr: c.remote, Err: os.NewSyscallError("write", err)}
		}
		done += n
	}
	return done, nil
}

// Close shuts the socket down first, which wakes a read blocked in another goroutine.
func (c *blockingConn) Close() error {
	if c.closed.Swap(true) {
		return net.ErrClosed
	}
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	return syscall.Close(c.fd)
}

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

// Deadlines are not supported: the socket timeouts set at dial apply instead.
func (c *blockingConn) SetDeadline(time.Time) error      { return errNoDeadline }
func (c *blockingConn) SetReadDeadline(time.Time) error  { return errNoDeadline }
func (c *blockingConn) SetWriteDeadline(time.Time) error { return errNoDeadline }

var errNoDeadline = errors.New("blocking connection: deadlines are set once as socket timeouts")
