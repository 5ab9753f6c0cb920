package link

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// chunk is what one read returned, with its draws of jitter and loss, made as it was
// read and applied by the shape at the time it is delivered.
type chunk struct {
	data   []byte
	readAt time.Time
	jitter float64 // -1..1, times Shape.Jitter
	loss   float64 // 0..1: lost when below Shape.Loss
	end    error   // the read's end (io.EOF, or why it failed); data is empty
}

// pipe is one direction of one connection: a reader that queues chunks while the window
// has room and the link is up, a writer that delivers each at its time.
type pipe struct {
	l         *Link
	c         *conn
	src, dst  net.Conn
	delivered *atomic.Int64

	mu    sync.Mutex
	q     []chunk
	held  int           // bytes in q
	wake  chan struct{} // a chunk was queued
	space chan struct{} // a chunk was delivered
	rnd   *rand.Rand

	lastRelease, lastTxEnd time.Time // the writer's: the previous chunk's
	timer                  *time.Timer
}

func (l *Link) newPipe(c *conn, src, dst net.Conn, delivered *atomic.Int64) *pipe {
	return &pipe{
		l: l, c: c, src: src, dst: dst, delivered: delivered,
		wake: make(chan struct{}, 1), space: make(chan struct{}, 1),
		rnd: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
	}
}

// run carries the direction until its source ends or the connection is cut; what it
// still held then is lost.
func (p *pipe) run() {
	go p.read()
	p.write()
	p.mu.Lock()
	p.l.stats.dropped.Add(int64(p.held))
	p.mu.Unlock()
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// read queues what the source sends while the link is up and the window has room.
func (p *pipe) read() {
	for {
		s, ok := p.readable()
		if !ok {
			return
		}
		buf := make([]byte, s.readSize())
		n, err := p.src.Read(buf)
		now := time.Now()
		if n > 0 {
			p.push(chunk{data: buf[:n], readAt: now, jitter: 2*p.rnd.Float64() - 1, loss: p.rnd.Float64()})
		}
		if err != nil {
			p.push(chunk{end: err, readAt: now})
			return
		}
	}
}

// readable waits until the link is up and the window has room; false once cut.
func (p *pipe) readable() (Shape, bool) {
	for {
		s, _, changed := p.l.current()
		p.mu.Lock()
		full := p.held >= s.window()
		p.mu.Unlock()
		if !s.Down && !full {
			return s, true
		}
		select {
		case <-changed:
		case <-p.space:
		case <-p.c.done:
			return s, false
		}
	}
}

func (p *pipe) push(c chunk) {
	p.mu.Lock()
	p.q = append(p.q, c)
	p.held += len(c.data)
	p.mu.Unlock()
	signal(p.wake)
}

// write delivers each chunk at its time, in order.
func (p *pipe) write() {
	p.timer = time.NewTimer(time.Hour)
	defer p.timer.Stop()
	for {
		c, ok := p.next()
		if !ok {
			return
		}
		if c.end != nil {
			p.finish(c.end)
			return
		}
		if !p.await(c) {
			return
		}
		p.delivered.Add(int64(len(c.data))) // before the write, so a reader of what arrived sees it counted
		if _, err := p.dst.Write(c.data); err != nil {
			p.c.cut()
			return
		}
		p.mu.Lock()
		p.q = p.q[1:]
		p.held -= len(c.data)
		p.mu.Unlock()
		signal(p.space)
	}
}

// next is the oldest chunk not delivered, waiting for one; false once cut.
func (p *pipe) next() (chunk, bool) {
	for {
		p.mu.Lock()
		if len(p.q) > 0 {
			c := p.q[0]
			p.mu.Unlock()
			return c, true
		}
		p.mu.Unlock()
		select {
		case <-p.wake:
		case <-p.c.done:
			return chunk{}, false
		}
	}
}

// finish passes the source's end on once everything before it was delivered: a clean end
// closes the destination's writing side (the other direction goes on), a failure cuts the
// connection.
func (p *pipe) finish(end error) {
	if errors.Is(end, io.EOF) {
		if tc, ok := p.dst.(*net.TCPConn); ok && tc.CloseWrite() == nil {
			return
		}
	}
	p.c.cut()
}

// await waits until chunk c is due under the shape of each moment (a Set while it waits
// counts); false once the connection is cut.
func (p *pipe) await(c chunk) bool {
	for {
		s, upAt, changed := p.l.current()
		if s.Down {
			select {
			case <-changed:
				continue
			case <-p.c.done:
				return false
			}
		}
		release, txEnd, lost := p.release(c, s, upAt)
		if p.sleepUntil(release, changed) {
			select {
			case <-p.c.done:
				return false
			default:
				continue // reshaped meanwhile
			}
		}
		p.lastRelease, p.lastTxEnd = release, txEnd
		if lost {
			p.l.stats.lost.Add(1)
		}
		return true
	}
}

// release is when chunk c is delivered under shape s: its serialization starts when it
// was read, after the previous chunk's, and not before the link last came up (bytes held
// through a cut are sent again then); it arrives a delay later, plus its jitter and a
// retransmission timeout when lost, never before the previous chunk.
func (p *pipe) release(c chunk, s Shape, upAt time.Time) (release, txEnd time.Time, lost bool) {
	start := c.readAt
	if start.Before(upAt) {
		start = upAt
	}
	if start.Before(p.lastTxEnd) {
		start = p.lastTxEnd
	}
	txEnd = start.Add(s.serialization(len(c.data)))
	delay := s.Delay + time.Duration(c.jitter*float64(s.Jitter))
	release = txEnd.Add(max(delay, 0))
	if lost = c.loss < s.Loss; lost {
		release = release.Add(s.rto())
	}
	if release.Before(p.lastRelease) {
		release = p.lastRelease
	}
	return release, txEnd, lost
}
