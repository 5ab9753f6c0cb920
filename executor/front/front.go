// Package front is a quadrant-owned TCP address in front of a sandbox cluster's primary:
// the workload connects to it, and a failover drill switches it to the promoted replica.
// A switch cuts the connections it carries, so their clients reconnect, to the new
// primary. Loopback only.
package front

import (
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Front forwards connections to its current upstream.
type Front struct {
	ln       net.Listener
	upstream atomic.Pointer[string]

	mu    sync.Mutex
	conns map[net.Conn]bool // both ends (true: the client's) of every connection carried, to cut them at a switch
	wg    sync.WaitGroup
}

// Listen opens a front on a free port of 127.0.0.1, forwarding to upstream (host:port).
func Listen(upstream string) (*Front, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("front address for %s: %w", upstream, err)
	}
	f := &Front{ln: ln, conns: map[net.Conn]bool{}}
	f.upstream.Store(&upstream)
	f.wg.Add(1)
	go f.accept()
	return f, nil
}

// Addr is the host:port clients connect to.
func (f *Front) Addr() string { return f.ln.Addr().String() }

// Upstream is where new connections go.
func (f *Front) Upstream() string { return *f.upstream.Load() }

// Switch sends new connections to upstream and cuts the ones carried (to the old one);
// upstream "" closes every new connection at once (a switchover's pause).
func (f *Front) Switch(upstream string) {
	f.upstream.Store(&upstream)
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		c.Close()
	}
}

// Close stops listening and cuts every connection.
func (f *Front) Close() error {
	err := f.ln.Close()
	f.mu.Lock()
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
	return err
}

func (f *Front) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return // closed
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.carry(c)
		}()
	}
}

// carry forwards one client connection to the upstream of the moment it arrived; a client
// whose upstream does not answer (the dead primary before a switch) is closed at once.
func (f *Front) carry(client net.Conn) {
	defer client.Close()
	to := f.Upstream()
	if to == "" {
		return
	}
	up, err := net.Dial("tcp", to)
	if err != nil {
		return
	}
	defer up.Close()
	f.track(client, up)
	defer f.untrack(client, up)
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		dst.Close()
		src.Close()
		done <- struct{}{}
	}
	go pipe(up, client)
	go pipe(client, up)
	<-done
	<-done
}

// track registers a connection's two ends.
func (f *Front) track(client, up net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.conns[client], f.conns[up] = true, false
}

func (f *Front) untrack(client, up net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.conns, client)
	delete(f.conns, up)
}
