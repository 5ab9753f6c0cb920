//go:build !linux

package engine

import (
	"context"
	"net"
	"time"
)

const blockingSockets = false

// dialBlocking: blocking sockets are implemented on Linux only; elsewhere the
// driver's ordinary (netpoller) connection is used.
func dialBlocking(ctx context.Context, network, addr string, _ time.Duration, _ bool) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
