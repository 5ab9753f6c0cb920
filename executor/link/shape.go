package link

import (
	"fmt"
	"time"
)

// DefaultRTO is the retransmission delay a lost chunk costs when Shape.RTO is zero: Linux's
// minimum retransmission timeout (TCP_RTO_MIN, 200 ms).
const DefaultRTO = 200 * time.Millisecond

// Shape is what one link does to the bytes it carries, the same in each direction.
//
// A chunk (what one read from a side returned) read at t is delivered at
// max(t + Delay ± Jitter, the previous chunk's delivery, the end of its serialization at
// Bandwidth after the previous one's + Delay), so jitter never reorders bytes, as TCP
// never does.
type Shape struct {
	Delay     time.Duration // one way, each direction: a round trip of 2 ms is a Delay of 1 ms
	Jitter    time.Duration // each chunk's delay varies uniformly within ±Jitter, order kept
	Bandwidth int64         // bytes per second, each direction; 0 is unlimited
	// Loss is the fraction (0..1) of chunks lost. A TCP proxy cannot drop bytes (the
	// kernels at both ends would not retransmit them), so a lost chunk is delivered after
	// a retransmission timeout (RTO) instead, holding back every chunk after it
	// (head-of-line blocking), which is what a lost segment costs a TCP connection.
	Loss float64
	RTO  time.Duration // a lost chunk's extra delay; 0 is DefaultRTO
	// Down cuts the link (a blackhole): nothing is read or delivered until it is up
	// again, connections stay open, and bytes held are delivered when it comes back
	// (as TCP's retransmissions would), unless a connection is cut first.
	Down bool
}

// Check says what is wrong with a shape.
func (s Shape) Check() error {
	switch {
	case s.Delay < 0:
		return fmt.Errorf("link delay %s is negative", s.Delay)
	case s.Jitter < 0:
		return fmt.Errorf("link jitter %s is negative", s.Jitter)
	case s.Bandwidth < 0:
		return fmt.Errorf("link bandwidth %d bytes/s is negative", s.Bandwidth)
	case s.Loss < 0 || s.Loss > 1 || s.Loss != s.Loss:
		return fmt.Errorf("link loss %v is not a fraction between 0 and 1", s.Loss)
	case s.RTO < 0:
		return fmt.Errorf("link rto %s is negative", s.RTO)
	}
	return nil
}

func (s Shape) rto() time.Duration {
	if s.RTO == 0 {
		return DefaultRTO
	}
	return s.RTO
}

// window is how many bytes a direction holds before it stops reading: the
// bandwidth-delay product plus a little, so the sender's TCP window fills and the sender
// keeps its own backlog, as behind a real slow link. Unlimited bandwidth holds at most
// about a Linux socket's largest window.
func (s Shape) window() int {
	const slack, unlimited = 64 << 10, 4 << 20
	if s.Bandwidth == 0 {
		return unlimited
	}
	d := s.Delay + s.Jitter
	if s.Loss > 0 {
		d += s.rto()
	}
	bdp := float64(s.Bandwidth) * d.Seconds()
	return int(min(bdp, unlimited)) + slack
}

// readSize is the most one read takes: about a millisecond of the bandwidth, so a slow
// link paces in small steps.
func (s Shape) readSize() int {
	const least = 1460
	if s.Bandwidth == 0 {
		return maxRead
	}
	return int(min(max(s.Bandwidth/1000, least), maxRead))
}

const maxRead = 64 << 10

// zero is whether the shape adds nothing: bytes go through as they are read.
func (s Shape) zero() bool {
	return s.Delay == 0 && s.Jitter == 0 && s.Bandwidth == 0 && s.Loss == 0 && !s.Down
}

// serialization is how long n bytes take at the bandwidth.
func (s Shape) serialization(n int) time.Duration {
	if s.Bandwidth == 0 {
		return 0
	}
	return time.Duration(float64(n) / float64(s.Bandwidth) * float64(time.Second))
}
