package link

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"
)

// echo is a server that sends back every line it reads.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

func open(t *testing.T, upstream string, s Shape) *Link {
	t.Helper()
	l, err := Listen(upstream, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip sends a line and waits for it back.
func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader) time.Duration {
	t.Helper()
	start := time.Now()
	if _, err := c.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

func TestRoundTripTakesTheRTT(t *testing.T) {
	l := open(t, echo(t), Shape{Delay: 10 * time.Millisecond})
	c := dial(t, l.Addr())
	r := bufio.NewReader(c)
	for i := range 5 {
		if rtt := roundTrip(t, c, r); rtt < 20*time.Millisecond {
			t.Fatalf("round trip %d through a link of 20 ms RTT took %s", i, rtt)
		}
	}
	if s := l.Stats(); s.BytesUp != 25 || s.BytesDown != 25 || s.Connections != 1 {
		t.Errorf("stats %+v, want 25 bytes each way over 1 connection", s)
	}
}

// recorder is a server that keeps everything it receives, for a test to read.
type recorder struct {
	mu  sync.Mutex
	got []byte
}

func (r *recorder) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.got...)
}

func record(t *testing.T) (string, *recorder) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	r := &recorder{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := c.Read(buf)
					r.mu.Lock()
					r.got = append(r.got, buf[:n]...)
					r.mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), r
}

// closed is whether the other end closed c within a minute (a timeout is not a close).
func closed(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(time.Minute))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// eventually polls cond for up to a minute (a busy host is slow, never a failure).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestJitterKeepsTheOrder(t *testing.T) {
	l := open(t, echo(t), Shape{Delay: time.Millisecond, Jitter: time.Millisecond})
	c := dial(t, l.Addr())
	sent := make([]byte, 4<<20)
	rand.NewChaCha8([32]byte{1}).Read(sent)
	go func() {
		for b := sent; len(b) > 0; {
			n := min(len(b), 1+rand.IntN(9000)) // many chunks of many sizes
			c.Write(b[:n])
			b = b[n:]
		}
	}()
	c.SetReadDeadline(time.Now().Add(5 * time.Minute))
	got := make([]byte, len(sent))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(got) != sha256.Sum256(sent) {
		t.Fatal("the stream came back through a jittered link with its bytes out of order")
	}
}

func TestBandwidthPacesABulkTransfer(t *testing.T) {
	to, rec := record(t)
	const bw, size = 256 << 10, 512 << 10
	l := open(t, to, Shape{Bandwidth: bw})
	c := dial(t, l.Addr())
	start := time.Now()
	go c.Write(make([]byte, size))
	eventually(t, "the transfer arrives", func() bool { return len(rec.bytes()) == size })
	// The first chunk leaves at once, every other one after its predecessor's
	// serialization: the whole takes at least (size - one read) / bandwidth.
	least := time.Duration(float64(size-Shape{Bandwidth: bw}.readSize()) / bw * float64(time.Second))
	if took := time.Since(start); took < least {
		t.Fatalf("%d bytes at %d bytes/s took %s, less than %s", size, bw, took, least)
	}
}

func TestWindowKeepsTheBacklogOnTheSender(t *testing.T) {
	to, _ := record(t)
	s := Shape{Bandwidth: 64 << 10, Delay: 10 * time.Millisecond}
	l := open(t, to, s)
	c := dial(t, l.Addr())
	go c.Write(make([]byte, 64<<20)) // far more than the link takes in the test's time
	eventually(t, "the link holds a window's worth", func() bool { return l.Stats().Held >= int64(s.window()) })
	time.Sleep(500 * time.Millisecond)
	if held := l.Stats().Held; held > int64(s.window()+s.readSize()) {
		t.Fatalf("a link of window %d bytes holds %d: it should stop reading when full", s.window(), held)
	}
}

func TestDownHoldsBytesUntilUp(t *testing.T) {
	l := open(t, echo(t), Shape{})
	c := dial(t, l.Addr())
	r := bufio.NewReader(c)
	roundTrip(t, c, r) // connected through
	l.Set(Shape{Down: true})
	if _, err := c.Write([]byte("held\n")); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if line, err := r.ReadString('\n'); err == nil {
		t.Fatalf("a line %q came back through a link that is down", line)
	}
	l.Set(Shape{})
	c.SetReadDeadline(time.Now().Add(time.Minute))
	if line, err := r.ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("after the link came up: %q, %v; want the held line", line, err)
	}
	if down := l.Stats().DownFor; down < 300*time.Millisecond {
		t.Errorf("down for %s, want at least the 300 ms it was", down)
	}
}

func TestACutConnectionLosesWhatTheLinkHeld(t *testing.T) {
	to, rec := record(t)
	l := open(t, to, Shape{Delay: time.Hour}) // read and held: on the wire
	c := dial(t, l.Addr())
	if _, err := c.Write([]byte("never\n")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the link holds the line", func() bool { return l.Stats().Held == 6 })
	l.Set(Shape{Down: true})
	l.Switch(to) // cuts the connection
	if !closed(c) {
		t.Fatal("the client's connection is open after the switch")
	}
	l.Set(Shape{})
	c2 := dial(t, l.Addr())
	c2.Write([]byte("after\n"))
	eventually(t, "the next connection's line arrives", func() bool { return len(rec.bytes()) > 0 })
	if got := string(rec.bytes()); got != "after\n" {
		t.Fatalf("upstream received %q: the held line of the cut connection must be lost", got)
	}
	if s := l.Stats(); s.Dropped != 6 || s.Held != 0 {
		t.Errorf("stats %+v, want 6 bytes dropped and none held", s)
	}
}

func TestSwitchCutsCarriedConnections(t *testing.T) {
	a, b := echo(t), echo(t)
	l := open(t, a, Shape{})
	c := dial(t, l.Addr())
	roundTrip(t, c, bufio.NewReader(c))
	l.Switch(b)
	if !closed(c) {
		t.Fatal("a connection to the old upstream is still carried after the switch")
	}
	if l.Upstream() != b {
		t.Fatalf("upstream %s after switching to %s", l.Upstream(), b)
	}
	c2 := dial(t, l.Addr())
	roundTrip(t, c2, bufio.NewReader(c2))
	l.Switch("")
	c3 := dial(t, l.Addr())
	if !closed(c3) {
		t.Fatal("a link switched to nowhere carried a connection")
	}
}

func TestSetReshapesALiveConnection(t *testing.T) {
	l := open(t, echo(t), Shape{})
	c := dial(t, l.Addr())
	r := bufio.NewReader(c)
	roundTrip(t, c, r)
	l.Set(Shape{Delay: 25 * time.Millisecond})
	if rtt := roundTrip(t, c, r); rtt < 50*time.Millisecond {
		t.Fatalf("round trip %s after setting a 50 ms RTT on the live connection", rtt)
	}
	// A chunk waiting out an hour's delay is delivered once the delay is set back.
	l.Set(Shape{Delay: time.Hour})
	c.Write([]byte("waiting\n"))
	eventually(t, "the link holds the line", func() bool { return l.Stats().Held > 0 })
	l.Set(Shape{})
	c.SetReadDeadline(time.Now().Add(time.Minute))
	if line, err := r.ReadString('\n'); err != nil || line != "waiting\n" {
		t.Fatalf("after the hour's delay was set back to 0: %q, %v", line, err)
	}
}

func TestLossDelaysByTheRetransmissionTimeout(t *testing.T) {
	l := open(t, echo(t), Shape{Loss: 1, RTO: 150 * time.Millisecond})
	c := dial(t, l.Addr())
	if rtt := roundTrip(t, c, bufio.NewReader(c)); rtt < 300*time.Millisecond {
		t.Fatalf("round trip %s with every chunk lost once at an RTO of 150 ms", rtt)
	}
	if s := l.Stats(); s.Lost < 2 {
		t.Errorf("stats %+v, want at least 2 chunks lost", s)
	}
}

func TestShapeCheck(t *testing.T) {
	for _, s := range []Shape{{Delay: -1}, {Jitter: -1}, {Bandwidth: -1}, {Loss: 1.5}, {Loss: -0.1}, {RTO: -1}} {
		if s.Check() == nil {
			t.Errorf("%+v passed its check", s)
		}
	}
	if _, err := Listen("127.0.0.1:1", Shape{Loss: 2}); err == nil {
		t.Error("Listen took a loss of 2")
	}
}
