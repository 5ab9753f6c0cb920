package engine

import (
	"crypto/tls"
	"database/sql/driver"
	"net"
	"reflect"
	"unsafe"
)

// tlsIO carries the wire path over the TLS connection the driver switched to after the
// handshake: the same exchanges as on a plain socket, encrypted by the tls.Conn over our
// socket (raw, a blockingConn or pollConn), which saw the connection id in the server's
// greeting and the capability flags in the client's TLS request, both sent before TLS.
type tlsIO struct {
	tc  *tls.Conn
	raw packetIO
	readBuf
}

func newTLSIO(tc *tls.Conn, raw packetIO) *tlsIO {
	// Replies of a few KB in one read; TLS records are at most 16 KB.
	return &tlsIO{tc: tc, raw: raw, readBuf: readBuf{rbuf: make([]byte, pollBufSize), greeted: true}}
}

func (c *tlsIO) fill(buf []byte) (int, error)         { return c.tc.Read(buf) }
func (c *tlsIO) Write(b []byte) (int, error)          { return c.tc.Write(b) }
func (c *tlsIO) next(n int) ([]byte, error)           { return c.readBuf.next(c, n) }
func (c *tlsIO) discard(n int) error                  { return c.readBuf.discard(c, n) }
func (c *tlsIO) capabilities() (uint32, uint32, bool) { return c.raw.capabilities() }
func (c *tlsIO) connectionID() (uint32, bool)         { return c.raw.connectionID() }

// command arms the socket's deadline (pollConn); the tls.Conn reads through it.
func (c *tlsIO) command() { c.raw.command() }

var netConnType = reflect.TypeOf((*net.Conn)(nil)).Elem()

// driverTLS is the *tls.Conn go-sql-driver switched the connection to, nil on a plain one.
// The driver keeps it in an unexported field (mysqlConn.netConn, the socket in rawConn)
// and offers no accessor, and no hook of crypto/tls hands the tls.Conn out either; so it
// is read with reflection. A driver that renames the field leaves TLS connections on the
// driver's path (slower, still correct), and TestWireOverTLS fails to say so.
func driverTLS(dc driver.Conn) *tls.Conn {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("netConn")
	if !f.IsValid() || f.Type() != netConnType {
		return nil
	}
	nc := *(*net.Conn)(unsafe.Pointer(f.UnsafeAddr()))
	tc, _ := nc.(*tls.Conn)
	return tc
}
