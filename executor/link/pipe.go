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
	buf    *[]byte // the pooled buffer data is in, given back once delivered
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

	// wmu is held by whoever delivers: the writer, or the reader writing a chunk through at
	// once when the shape is zero and nothing waits (a link that adds nothing costs least).
	wmu                    sync.Mutex
	lastRelease, lastTxEnd time.Time // the previous chunk's, under wmu
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
	read := make(chan struct{})
	go func() {
		defer close(read)
		p.read()
	}()
	p.write() // returns after the reader's last chunk, or once the connection is cut
	<-read
	p.mu.Lock()
	p.l.stats.dropped.Add(int64(p.held))
	p.l.stats.held.Add(-int64(p.held))
	p.held = 0
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
		buf := buffers.Get().(*[]byte)
		n, err := p.src.Read((*buf)[:s.readSize()])
		now := time.Now()
		switch through, ok := p.through((*buf)[:n], now); {
		case !ok:
			return
		case through:
			buffers.Put(buf)
		case n > 0:
			p.push(chunk{data: (*buf)[:n], buf: buf, readAt: now, jitter: 2*p.rnd.Float64() - 1, loss: p.rnd.Float64()})
		}
		if err != nil {
			p.push(chunk{end: err, readAt: now})
			return
		}
	}
}

// buffers are the chunks' memory: a read takes at most readSize's most.
var buffers = sync.Pool{New: func() any { b := make([]byte, maxRead); return &b }}

// through delivers b at once when the link adds nothing now and nothing is queued or
// being delivered before it: whether it did, and false for ok when the write failed.
func (p *pipe) through(b []byte, now time.Time) (through, ok bool) {
	if len(b) == 0 || !p.l.zero.Load() || !p.wmu.TryLock() {
		return false, true
	}
	defer p.wmu.Unlock()
	p.mu.Lock()
	waiting := len(p.q) > 0
	p.mu.Unlock()
	if waiting {
		return false, true
	}
	p.lastRelease, p.lastTxEnd = now, now
	p.delivered.Add(int64(len(b)))
	if _, err := p.dst.Write(b); err != nil {
		p.c.cut()
		return true, false
	}
	return true, true
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
	p.l.stats.held.Add(int64(len(c.data)))
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
		if !p.deliver(c) {
			return
		}
	}
}

// deliver writes chunk c at its time and takes it off the queue; false once cut.
func (p *pipe) deliver(c chunk) bool {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if !p.await(c) {
		return false
	}
	p.delivered.Add(int64(len(c.data))) // before the write, so a reader of what arrived sees it counted
	if _, err := p.dst.Write(c.data); err != nil {
		p.c.cut()
		return false
	}
	p.mu.Lock()
	p.q[0] = chunk{}
	p.q = p.q[1:]
	p.held -= len(c.data)
	p.l.stats.held.Add(-int64(len(c.data)))
	p.mu.Unlock()
	buffers.Put(c.buf)
	signal(p.space)
	return true
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
		waits := time.Now().Before(release)
		if p.sleepUntil(release, changed) {
			select {
			case <-p.c.done:
				return false
			default:
				continue // reshaped meanwhile
			}
		}
		if waits {
			p.l.stats.waited.Add(1)
			p.l.stats.late.Add(int64(time.Since(release)))
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
