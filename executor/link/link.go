// Package link is the network between two servers, in process: a TCP proxy on 127.0.0.1
// that delays, jitters, paces and cuts each direction of every connection it carries,
// reconfigurable while they run. The kernels here have no netem, and a proxy is the one
// path every test exercises.
//
// Its buffer per direction is bounded (the bandwidth-delay product and a little): when it
// is full the proxy stops reading, the sender's TCP window fills and the sender holds its
// own backlog, as a primary does behind a slow link (which is what makes asynchronous
// replication fall behind, and lose what it had not sent when the primary dies). Bytes a
// link holds when a connection is cut or switched are lost, as what a replica had not
// received. Loss is modelled as a retransmission delay (Shape.Loss).
package link

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Link forwards connections to its upstream, shaped.
type Link struct {
	ln       net.Listener
	upstream atomic.Pointer[string]
	from     string // the local IP it dials the upstream from; "" the kernel's choice

	mu        sync.Mutex
	shape     Shape
	changed   chan struct{} // closed and replaced at every Set: the pipes look at the shape again
	downSince time.Time     // when the link went down; zero while up
	downFor   time.Duration // time held down before downSince
	upAt      time.Time     // when the link last came up: held bytes are sent again from then
	conns     map[*conn]struct{}
	zero      atomic.Bool // the shape adds nothing (read without the lock on every chunk)
	closed    bool

	stats counters
	wg    sync.WaitGroup
}

// Stats is what a link carried.
type Stats struct {
	BytesUp     int64         // client to upstream, delivered
	BytesDown   int64         // upstream to client, delivered
	Connections int64         // connections accepted and carried to the upstream
	Open        int64         // connections carried now
	Lost        int64         // chunks delayed by a retransmission timeout (Shape.Loss)
	Held        int64         // bytes read and not yet delivered, now
	Dropped     int64         // bytes held when their connection was cut: never delivered
	Waited      int64         // chunks that waited for their time (the rest were due when read, or late)
	Late        time.Duration // how much later than their time those were delivered, in all: the timers' error
	DownFor     time.Duration // time the link was down, the current cut included
}

type counters struct {
	up, down, conns, open, lost, held, dropped, waited, late atomic.Int64
}

// Listen opens a link on a free port of 127.0.0.1 to upstream (host:port), shaped by s.
func Listen(upstream string, s Shape) (*Link, error) { return ListenAt("127.0.0.1:0", upstream, "", s) }

// ListenAt opens a link on addr (host:port) to upstream, shaped by s, that dials the
// upstream from the local IP from ("": the kernel's choice). A server that records its
// peers by the address their connections come from (Galera's group communication) then
// sees every peer that came through a link as from, not as the peer's own address.
func ListenAt(addr, upstream, from string, s Shape) (*Link, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("link to %s: %w", upstream, err)
	}
	l := &Link{ln: ln, from: from, changed: make(chan struct{}), conns: map[*conn]struct{}{}}
	l.upstream.Store(&upstream)
	l.Set(s)
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// Addr is the host:port clients connect to.
func (l *Link) Addr() string { return l.ln.Addr().String() }

// Upstream is where new connections go.
func (l *Link) Upstream() string { return *l.upstream.Load() }

// Set reshapes the link at once: bytes not yet delivered are delivered by the new shape
// (a longer delay holds them longer, Down holds them, up again sends them).
// A shape Check refuses is ignored: check it first.
func (l *Link) Set(s Shape) {
	if s.Check() != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	switch {
	case s.Down && l.downSince.IsZero():
		l.downSince = now
	case !s.Down && !l.downSince.IsZero():
		l.downFor += now.Sub(l.downSince)
		l.downSince, l.upAt = time.Time{}, now
	}
	l.shape = s
	l.zero.Store(s.zero())
	close(l.changed)
	l.changed = make(chan struct{})
}

// Shape is the link's shape now.
func (l *Link) Shape() Shape {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.shape
}

// current is the shape, when the link last came up, and a channel closed at the next Set.
func (l *Link) current() (Shape, time.Time, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.shape, l.upAt, l.changed
}

// Switch sends new connections to upstream and cuts the ones carried, losing what they
// held; upstream "" closes every new connection at once.
func (l *Link) Switch(upstream string) {
	l.mu.Lock()
	l.upstream.Store(&upstream)
	l.mu.Unlock()
	l.cutAll()
}

// Close stops listening and cuts every connection.
func (l *Link) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	err := l.ln.Close()
	l.cutAll()
	l.wg.Wait()
	return err
}

// Stats is what the link carried so far.
func (l *Link) Stats() Stats {
	l.mu.Lock()
	down := l.downFor
	if !l.downSince.IsZero() {
		down += time.Since(l.downSince)
	}
	l.mu.Unlock()
	return Stats{
		BytesUp: l.stats.up.Load(), BytesDown: l.stats.down.Load(),
		Connections: l.stats.conns.Load(), Open: l.stats.open.Load(),
		Lost: l.stats.lost.Load(), Held: l.stats.held.Load(), Dropped: l.stats.dropped.Load(), DownFor: down,
		Waited: l.stats.waited.Load(), Late: time.Duration(l.stats.late.Load()),
	}
}

func (l *Link) cutAll() {
	l.mu.Lock()
	cs := make([]*conn, 0, len(l.conns))
	for c := range l.conns {
		cs = append(cs, c)
	}
	l.mu.Unlock()
	for _, c := range cs {
		c.cut()
	}
}

func (l *Link) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return // closed
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.carry(c)
		}()
	}
}

// carry forwards one client connection to the upstream of the moment it arrived; a client
// whose upstream does not answer is closed at once.
func (l *Link) carry(client net.Conn) {
	defer client.Close()
	to := l.Upstream()
	if to == "" {
		return
	}
	var d net.Dialer
	if l.from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(l.from)}
	}
	up, err := d.Dial("tcp", to)
	if err != nil {
		return
	}
	defer up.Close()
	c := &conn{client: client, up: up, done: make(chan struct{})}
	if !l.track(c, to) {
		return
	}
	defer l.untrack(c)
	l.stats.conns.Add(1)
	l.stats.open.Add(1)
	defer l.stats.open.Add(-1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); l.newPipe(c, client, up, &l.stats.up).run() }()
	go func() { defer wg.Done(); l.newPipe(c, up, client, &l.stats.down).run() }()
	wg.Wait()
}

// track registers a connection to upstream to; false when the link was switched
// meanwhile (the connection would carry on to the old upstream) or closed.
func (l *Link) track(c *conn, to string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.Upstream() != to {
		return false
	}
	l.conns[c] = struct{}{}
	return true
}

func (l *Link) untrack(c *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.conns, c)
}

// conn is one connection carried: its two ends, cut together.
type conn struct {
	client, up net.Conn
	once       sync.Once
	done       chan struct{}
}

func (c *conn) cut() {
	c.once.Do(func() {
		close(c.done)
		c.client.Close()
		c.up.Close()
	})
}
