package link

import (
	"bufio"
	"io"
	"net"
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
