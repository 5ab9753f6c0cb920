package engine

import (
	"bytes"
	"encoding/binary"
	"net"
	"time"
)

// readBuf is a connection's read buffer shared by the driver (Read) and the
// wire path (next, discard); src refills it.
type readBuf struct {
	rbuf []byte
	r, w int
	// The server's first packet, its handshake, carries the connection id.
	greeted bool
	id      uint32
	idSeen  bool
}

type filler interface {
	fill(buf []byte) (int, error)
}

func (b *readBuf) read(src filler, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if b.r == b.w {
		n, err := src.fill(b.rbuf)
		if err != nil {
			return 0, err
		}
		b.r, b.w = 0, n
		if !b.greeted {
			b.greet(b.rbuf[:n])
		}
	}
	n := copy(p, b.rbuf[b.r:b.w])
	b.r += n
	return n, nil
}

// greet reads the connection id from the server's handshake packet, the first read of a
// connection: after the header, protocol version 10, the server's version ending in a NUL,
// then the id. A first read too short to hold it leaves the id unknown.
func (b *readBuf) greet(p []byte) {
	b.greeted = true
	if len(p) < headerLen+1 || p[3] != 0 || p[headerLen] != 10 {
		return
	}
	v := bytes.IndexByte(p[headerLen+1:], 0)
	if at := headerLen + 1 + v + 1; v >= 0 && len(p) >= at+4 {
		b.id, b.idSeen = binary.LittleEndian.Uint32(p[at:]), true
	}
}

func (b *readBuf) connectionID() (uint32, bool) { return b.id, b.idSeen }

func (b *readBuf) next(src filler, n int) ([]byte, error) {
	if b.r == b.w {
		b.r, b.w = 0, 0
	}
	for b.w-b.r < n {
		if len(b.rbuf)-b.r < n {
			if n > len(b.rbuf) {
				nb := make([]byte, n)
				b.w = copy(nb, b.rbuf[b.r:b.w])
				b.rbuf = nb
			} else {
				b.w = copy(b.rbuf, b.rbuf[b.r:b.w])
			}
			b.r = 0
		}
		m, err := src.fill(b.rbuf[b.w:])
		if err != nil {
			return nil, err
		}
		b.w += m
	}
	p := b.rbuf[b.r : b.r+n]
	b.r += n
	return p, nil
}

func (b *readBuf) discard(src filler, n int) error {
	for n > 0 {
		if b.r == b.w {
			m, err := src.fill(b.rbuf)
			if err != nil {
				return err
			}
			b.r, b.w = 0, m
		}
		k := min(n, b.w-b.r)
		b.r += k
		n -= k
	}
	return nil
}

// handshake remembers the capability flags of the driver's handshake response.
type handshake struct {
	caps, extCaps uint32
	seen          bool
}

// sniff looks at the client's first packet: its handshake response, with the
// capability flags and (MariaDB, when the CLIENT_MYSQL bit is clear) the
// extended flags at the end of the filler.
func (h *handshake) sniff(b []byte) {
	if h.seen || len(b) < headerLen+32 {
		return
	}
	h.seen = true
	h.caps = binary.LittleEndian.Uint32(b[headerLen:])
	if h.caps&1 == 0 {
		h.extCaps = binary.LittleEndian.Uint32(b[headerLen+28:])
	}
}

func (h *handshake) capabilities() (uint32, uint32, bool) { return h.caps, h.extCaps, h.seen }

// pollConn carries the wire path over an ordinary (netpoller) connection: with
// hundreds of connections a parked goroutine per connection is cheaper than a
// thread and a P each (see maxBlockingThreads).
type pollConn struct {
	net.Conn
	readBuf
	handshake
	timeout time.Duration
}

func newPollConn(c net.Conn, timeout time.Duration) *pollConn {
	return &pollConn{Conn: c, timeout: timeout, readBuf: readBuf{rbuf: make([]byte, pollBufSize)}}
}

// pollBufSize: replies of a few KB in one read, without 16 KB per idle connection.
const pollBufSize = 4 << 10

func (c *pollConn) fill(buf []byte) (int, error) { return c.Conn.Read(buf) }

func (c *pollConn) Read(p []byte) (int, error)           { return c.read(c, p) }
func (c *pollConn) next(n int) ([]byte, error)           { return c.readBuf.next(c, n) }
func (c *pollConn) discard(n int) error                  { return c.readBuf.discard(c, n) }
func (c *pollConn) capabilities() (uint32, uint32, bool) { return c.handshake.capabilities() }

func (c *pollConn) Write(b []byte) (int, error) {
	c.sniff(b)
	return c.Conn.Write(b)
}

// command bounds the wire path's next exchange by the read timeout, as the
// driver does before each of its reads (its last deadline may have passed).
func (c *pollConn) command() {
	if c.timeout > 0 {
		_ = c.Conn.SetDeadline(time.Now().Add(c.timeout))
	}
}
