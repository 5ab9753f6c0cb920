//go:build linux

package engine

import (
	"bytes"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// serverSide gives a wire over one end of a socketpair (a real blockingConn
// with a tiny read buffer, so packets straddle reads and the buffer grows)
// and the fd of the other end, where a test plays the server.
// With poll, the client end is a pollConn (the netpoller path of many connections).
func serverSide(t *testing.T, deprecateEOF, cacheMeta bool, poll ...bool) (*wire, int) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	var bc interface {
		packetIO
		Close() error
	}
	if len(poll) > 0 && poll[0] {
		f := os.NewFile(uintptr(fds[0]), "client")
		nc, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		pc := newPollConn(nc, 5*time.Second)
		pc.rbuf = make([]byte, 7)
		bc = pc
	} else {
		bc = &blockingConn{fd: fds[0], timeout: 5 * time.Second, readBuf: readBuf{rbuf: make([]byte, 7)}}
	}
	t.Cleanup(func() { _ = bc.Close(); _ = syscall.Close(fds[1]) })
	var caps, ext uint32 = 0, 0
	if deprecateEOF {
		caps |= capDeprecateEOF
	}
	if cacheMeta {
		ext |= extCapCacheMeta
	}
	// The driver's handshake response as the first write: the wire path reads its flags.
	hs := make([]byte, headerLen+64)
	binary.LittleEndian.PutUint32(hs[headerLen:], caps)
	binary.LittleEndian.PutUint32(hs[headerLen+28:], ext)
	if _, err := bc.Write(hs); err != nil {
		t.Fatal(err)
	}
	drain := make([]byte, len(hs))
	if _, err := syscall.Read(fds[1], drain); err != nil {
		t.Fatal(err)
	}
	w := newWire(bc, nil)
	if w == nil || w.deprecateEOF != deprecateEOF || w.cacheMeta != cacheMeta {
		t.Fatalf("capabilities not seen: %+v", w)
	}
	return w, fds[1]
}

func pkt(seq byte, payload ...byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

func send(t *testing.T, fd int, packets ...[]byte) {
	t.Helper()
	b := bytes.Join(packets, nil)
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err != nil {
			t.Fatal(err)
		}
		b = b[n:]
	}
}

func ok(seq byte, affected byte, status uint16) []byte {
	return pkt(seq, 0x00, affected, 0, byte(status), byte(status>>8), 0, 0)
}

func eofOK(seq byte, status uint16) []byte { // the terminator with CLIENT_DEPRECATE_EOF
	return pkt(seq, 0xfe, 0, 0, byte(status), byte(status>>8), 0, 0)
}

func eof(seq byte, status uint16) []byte {
	return pkt(seq, 0xfe, 0, 0, byte(status), byte(status>>8))
}

func colDef(seq byte) []byte {
	return pkt(seq, append([]byte{3, 'd', 'e', 'f'}, bytes.Repeat([]byte{1, 'x'}, 5)...)...)
}

func binRow(seq byte, s string) []byte {
	return pkt(seq, append([]byte{0x00, 0x00, byte(len(s))}, s...)...)
}

func TestWireReplies(t *testing.T) {
	long := string(bytes.Repeat([]byte("r"), 200))
	for _, c := range []struct {
		name               string
		deprecateEOF, meta bool
		server             [][]byte
		want               []reply // one per reply; then an OK with affected 7 must follow cleanly
		wantErr            []int   // MySQL error number per reply, 0 for none
	}{
		{name: "ok and err", deprecateEOF: true, server: [][]byte{
			ok(1, 1, 2),
			pkt(1, append([]byte{0xff, 0xbd, 0x04, '#', '4', '0', '0', '0', '1'}, "Deadlock found"...)...),
		}, want: []reply{{affected: 1}, {}}, wantErr: []int{0, 1213}},
		{name: "result set with metadata", deprecateEOF: true, meta: true, server: [][]byte{
			pkt(1, 1, 1), colDef(2), binRow(3, "a"), binRow(4, long), binRow(5, ""), eofOK(6, 2),
		}, want: []reply{{resultSet: true}}},
		{name: "result set, metadata cached", deprecateEOF: true, meta: true, server: [][]byte{
			pkt(1, 2, 0), binRow(2, "a"), eofOK(3, 2),
		}, want: []reply{{resultSet: true}}},
		{name: "classic EOF packets", server: [][]byte{
			pkt(1, 2), colDef(2), colDef(3), eof(4, 2),
			// a text row whose first value is 0xfe-prefixed (a long length) is not the terminator
			pkt(5, append([]byte{0xfe}, bytes.Repeat([]byte{0}, 9)...)...),
			binRow(6, "x"), eof(7, 2),
		}, want: []reply{{resultSet: true}}},
		{name: "error after rows", deprecateEOF: true, server: [][]byte{
			pkt(1, 1), colDef(2), binRow(3, "a"), pkt(4, append([]byte{0xff, 0xb5, 0x04, '#', 'H', 'Y', '0', '0', '0'}, "Lock wait timeout"...)...),
		}, want: []reply{{resultSet: true}}, wantErr: []int{1205}},
		{name: "more results", deprecateEOF: true, server: [][]byte{
			pkt(1, 1), colDef(2), binRow(3, "a"), eofOK(4, 2|statusMoreResults), ok(5, 3, 2),
		}, want: []reply{{resultSet: true, affected: 3}}},
	} {
		for _, poll := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/poll=%v", c.name, poll), func(t *testing.T) {
				w, fd := serverSide(t, c.deprecateEOF, c.meta, poll)
				send(t, fd, append(c.server, ok(1, 7, 2))...)
				for i, want := range c.want {
					r, err := w.readReply()
					code := 0
					if err != nil {
						var me *mysql.MySQLError
						if !errors.As(err, &me) {
							t.Fatalf("reply %d: %v", i, err)
						}
						code = int(me.Number)
					}
					if wantCode := 0; c.wantErr != nil {
						wantCode = c.wantErr[i]
						if code != wantCode {
							t.Fatalf("reply %d: error %d (%v), want %d", i, code, err, wantCode)
						}
					} else if err != nil {
						t.Fatalf("reply %d: %v", i, err)
					}
					if err == nil && r != want {
						t.Fatalf("reply %d = %+v, want %+v", i, r, want)
					}
				}
				if r, err := w.readReply(); err != nil || r.affected != 7 {
					t.Fatalf("the next reply = %+v, %v: the stream lost its place", r, err)
				}
			})
		}
	}
}

func TestWirePrepare(t *testing.T) {
	for _, deprecateEOF := range []bool{true, false} {
		w, fd := serverSide(t, deprecateEOF, false)
		reply := [][]byte{pkt(1, 0x00, 9, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0), colDef(2), colDef(3)}
		if !deprecateEOF {
			reply = append(reply, eof(4, 2))
		}
		reply = append(reply, colDef(5))
		if !deprecateEOF {
			reply = append(reply, eof(6, 2))
		}
		send(t, fd, append(reply, ok(1, 7, 2))...)
		id, params, err := w.readPrepare()
		if err != nil || id != 9 || params != 2 {
			t.Fatalf("deprecateEOF=%v: id %d params %d %v", deprecateEOF, id, params, err)
		}
		if r, err := w.readReply(); err != nil || r.affected != 7 {
			t.Fatalf("deprecateEOF=%v: next reply %+v %v", deprecateEOF, r, err)
		}
	}
}

// The execute packet must be what the driver sends for the same arguments.
func TestWireExecutePacket(t *testing.T) {
	w := &wire{loc: time.UTC}
	args := []driver.Value{int64(-2), "abc", nil, 1.5, true, []byte("xy")}
	if err := w.queueExecute(0x01020304, args, nil); err != nil {
		t.Fatal(err)
	}
	want := []byte{comStmtExecute, 4, 3, 2, 1, 0, 1, 0, 0, 0,
		0b100, // null bitmap: arg 2
		1,     // new params bound
		typeLongLong, 0, typeString, 0, typeNull, 0, typeDouble, 0, typeTiny, 0, typeString, 0,
	}
	want = binary.LittleEndian.AppendUint64(want, uint64(0xfffffffffffffffe))
	want = append(want, 3, 'a', 'b', 'c')
	want = binary.LittleEndian.AppendUint64(want, math.Float64bits(1.5))
	want = append(want, 1, 2, 'x', 'y')
	want = pkt(0, want...)
	if !bytes.Equal(w.out, want) {
		t.Fatalf("execute packet\n got %v\nwant %v", w.out, want)
	}
	w.out = w.out[:0]
	if err := w.queueExecute(1, []driver.Value{uint8(1)}, nil); err == nil {
		t.Fatal("an unsupported type must be an error")
	}

	// Types go out on the first execution and when they change, not otherwise.
	var sent []byte
	for i, c := range []struct {
		args  []driver.Value
		types bool
	}{
		{[]driver.Value{int64(1), "a"}, true},
		{[]driver.Value{int64(2), "bc"}, false},
		{[]driver.Value{nil, "bc"}, true},
		{[]driver.Value{nil, "d"}, false},
	} {
		w.out = w.out[:0]
		if err := w.queueExecute(7, c.args, &sent); err != nil {
			t.Fatal(err)
		}
		p := w.out[headerLen:]
		bound := p[executeFixedLength+1] == 1
		var values []byte
		if bound {
			values = p[executeFixedLength+2+4:]
		} else {
			values = p[executeFixedLength+2:]
		}
		want := []byte{}
		if c.args[0] != nil {
			want = binary.LittleEndian.AppendUint64(want, uint64(c.args[0].(int64)))
		}
		want = append(append(want, byte(len(c.args[1].(string)))), c.args[1].(string)...)
		if bound != c.types || !bytes.Equal(values, want) {
			t.Fatalf("execution %d: types sent %v (want %v), values %v (want %v)", i, bound, c.types, values, want)
		}
	}
}

func TestLenEnc(t *testing.T) {
	for _, n := range []uint64{0, 250, 251, 65535, 65536, 1<<24 - 1, 1 << 24, 1 << 40} {
		b := appendLenEnc(nil, n)
		if v, k := readLenEnc(b); v != n || k != len(b) {
			t.Errorf("%d: read %d using %d of %d bytes", n, v, k, len(b))
		}
	}
	if _, k := readLenEnc([]byte{0xfc, 1}); k != 0 {
		t.Error("a short length must not decode")
	}
}

// A read sent with the COMMIT behind it: both are counted when the read
// succeeds, neither when it fails (the COMMIT would not have been sent), and
// the stream stays in place either way.
func TestExecCommitCounts(t *testing.T) {
	resultSet := [][]byte{pkt(1, 1), colDef(2), binRow(3, "a"), eofOK(4, 2)}
	deadlock := pkt(1, append([]byte{0xff, 0xbd, 0x04, '#', '4', '0', '0', '0', '1'}, "Deadlock found"...)...)
	for _, c := range []struct {
		name   string
		begin  bool
		server [][]byte
		want   Tally
		code   int
	}{
		{"read and commit", false, append(resultSet, ok(1, 0, 0)), Tally{Reads: 1, Other: 1}, 0},
		{"begin, read and commit", true, append(append([][]byte{ok(1, 0, 3)}, resultSet...), ok(1, 0, 0)), Tally{Reads: 1, Other: 2}, 0},
		{"failed read", false, [][]byte{deadlock, ok(1, 0, 0)}, Tally{}, 1213},
		{"begin, failed read", true, [][]byte{ok(1, 0, 3), deadlock, ok(1, 0, 0)}, Tally{Other: 1}, 1213},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, fd := serverSide(t, true, true)
			conn := &Conn{w: w, begin: c.begin}
			s := &Stmt{wired: true, rows: true, id: 1}
			send(t, fd, append(c.server, ok(1, 7, 2))...)
			err := conn.ExecCommit(s, nil)
			if Code(err) != c.code || conn.T != c.want {
				t.Fatalf("error %v (code %d), tally %+v; want code %d, %+v", err, Code(err), conn.T, c.code, c.want)
			}
			if r, err := w.readReply(); err != nil || r.affected != 7 {
				t.Fatalf("the next reply = %+v, %v: the stream lost its place", r, err)
			}
		})
	}
}
