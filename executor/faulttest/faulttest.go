// Package faulttest puts a TCP proxy between quadrant and a server in tests, with network
// faults turned on and off while a run goes: added latency, every connection reset,
// traffic blackholed (accepted, never answered). The proxy is Shopify's
// toxiproxy, in process, on 127.0.0.1.
package faulttest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// Proxy forwards Addr to a server.
type Proxy struct {
	Addr string // host:port to point a DSN at
	p    *toxiproxy.Proxy
	t    testing.TB
}

// Start proxies upstream (host:port) on a free loopback port until the test ends.
func Start(t testing.TB, upstream string) *Proxy {
	t.Helper()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(srv, strings.ReplaceAll(t.Name(), "/", "_"), "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("fault proxy for %s: %v", upstream, err)
	}
	t.Cleanup(p.Stop)
	return &Proxy{Addr: p.Listen, p: p, t: t}
}

// DSN is dsn with its address replaced by the proxy's.
func (x *Proxy) DSN(dsn, upstream string) string {
	return strings.Replace(dsn, upstream, x.Addr, 1)
}

func (x *Proxy) add(name, kind, stream string, attrs map[string]any) {
	x.t.Helper()
	body, _ := json.Marshal(map[string]any{"name": name, "type": kind, "stream": stream, "attributes": attrs})
	if _, err := x.p.Toxics.AddToxicJson(strings.NewReader(string(body))); err != nil {
		x.t.Errorf("fault %s: %v", name, err)
	}
}

// Latency delays every reply by ms milliseconds.
func (x *Proxy) Latency(ms int) {
	x.add("latency", "latency", "downstream", map[string]any{"latency": ms})
}

// Reset resets every connection as soon as data flows (TCP RST), until Clear.
func (x *Proxy) Reset() { x.add("reset", "reset_peer", "upstream", map[string]any{"timeout": 0}) }

// Blackhole lets connections open but passes no data either way, until Clear.
func (x *Proxy) Blackhole() {
	x.add("blackhole_up", "timeout", "upstream", map[string]any{"timeout": 0})
	x.add("blackhole_down", "timeout", "downstream", map[string]any{"timeout": 0})
}

// Clear removes every fault.
func (x *Proxy) Clear() { x.p.Toxics.ResetToxics(context.Background()) }
