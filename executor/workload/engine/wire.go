package engine

import (
	"bytes"
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/go-sql-driver/mysql"
)

// packetIO is a connection the engine can speak the protocol on directly,
// below the driver: a blockingConn. The driver still dials, authenticates,
// and runs everything off the hot path (replay text, prepare's loading).
type packetIO interface {
	Write(b []byte) (int, error)
	// next consumes and returns the next n bytes, valid until the next read.
	next(n int) ([]byte, error)
	// discard consumes n bytes without looking at them.
	discard(n int) error
	// capabilities are the client capability flags the driver sent in its
	// handshake response (MariaDB's extended flags in ext); ok is false
	// before the handshake or when it could not be seen (TLS).
	capabilities() (caps, ext uint32, ok bool)
	// command is called before each exchange (to arm a read deadline).
	command()
	// connectionID is the server's id of the connection, from its handshake.
	connectionID() (uint32, bool)
}

// Protocol constants used by the wire path (MySQL/MariaDB client/server protocol).
const (
	capDeprecateEOF    = 1 << 24
	extCapCacheMeta    = 1 << 4 // MARIADB_CLIENT_CACHE_METADATA
	comQuery           = 0x03
	comStmtPrepare     = 0x16
	comStmtExecute     = 0x17
	statusMoreResults  = 0x0008
	maxPacket          = 1<<24 - 1
	typeTiny           = 0x01
	typeDouble         = 0x05
	typeNull           = 0x06
	typeLongLong       = 0x08
	typeString         = 0xfe
	pktOK, pktEOF      = 0x00, 0xfe
	pktERR, pktInfile  = 0xff, 0xfb
	headerLen          = 4
	executeFixedLength = 1 + 4 + 1 + 4
)

// errProtocol marks the connection unusable: the reply did not parse.
var errProtocol = fmt.Errorf("unexpected packet from server: %w", mysql.ErrInvalidConn)

// wire sends the hot path's commands (execute a prepared statement, BEGIN,
// COMMIT, ROLLBACK) and reads their replies without decoding rows: the
// workloads count statements and never look at values, and decoding each
// column into a driver.Value was most of the driver's allocations (a range
// select returns 100 rows). Commands may be queued and sent in one write.
type wire struct {
	io           packetIO
	deprecateEOF bool
	cacheMeta    bool
	loc          *time.Location
	pay          []byte // payload being built
	out          []byte // framed packets waiting for the next write
}

func newWire(io packetIO, loc *time.Location) *wire {
	caps, ext, ok := io.capabilities()
	if !ok {
		return nil
	}
	if loc == nil {
		loc = time.UTC
	}
	return &wire{io: io, loc: loc, deprecateEOF: caps&capDeprecateEOF != 0, cacheMeta: ext&extCapCacheMeta != 0}
}

// reply is what a command answered.
type reply struct {
	resultSet bool  // at least one result set (a read)
	affected  int64 // affected rows of the last OK packet
}

// frame appends w.pay to w.out as one command (split at the 16 MB packet limit).
func (w *wire) frame() {
	p, seq := w.pay, byte(0)
	for {
		n := min(len(p), maxPacket)
		w.out = append(w.out, byte(n), byte(n>>8), byte(n>>16), seq)
		w.out = append(w.out, p[:n]...)
		p, seq = p[n:], seq+1
		if n < maxPacket {
			break
		}
	}
}

func (w *wire) queueQuery(sql string) {
	w.pay = append(append(w.pay[:0], comQuery), sql...)
	w.frame()
}

func (w *wire) queuePrepare(sql string) {
	w.pay = append(append(w.pay[:0], comStmtPrepare), sql...)
	w.frame()
}

// queueExecute appends COM_STMT_EXECUTE with args in the binary protocol,
// typed as the driver types them. The types go out only when they differ
// from *sent, the types last sent for this statement (then updated), as C
// clients do: the server keeps them, and the driver's resending them on
// every execution cost the server a little on each.
func (w *wire) queueExecute(id uint32, args []driver.Value, sent *[]byte) error {
	b := append(w.pay[:0], comStmtExecute, byte(id), byte(id>>8), byte(id>>16), byte(id>>24), 0, 1, 0, 0, 0)
	if n := len(args); n > 0 {
		mask := len(b)
		for range (n + 7) / 8 {
			b = append(b, 0)
		}
		b = append(b, 1) // new-params-bound: types follow
		types := len(b)
		for range n {
			b = append(b, 0, 0)
		}
		for i, a := range args {
			t := byte(typeString)
			switch v := a.(type) {
			case int64:
				t = typeLongLong
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			case string:
				b = appendLenEnc(b, uint64(len(v)))
				b = append(b, v...)
			case []byte:
				if v == nil {
					t = typeNull
					b[mask+i/8] |= 1 << (i % 8)
					break
				}
				b = appendLenEnc(b, uint64(len(v)))
				b = append(b, v...)
			case nil:
				t = typeNull
				b[mask+i/8] |= 1 << (i % 8)
			case float64:
				t = typeDouble
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
			case bool:
				t = typeTiny
				if v {
					b = append(b, 1)
				} else {
					b = append(b, 0)
				}
			case time.Time:
				s := "0000-00-00"
				if !v.IsZero() {
					s = v.In(w.loc).Format("2006-01-02 15:04:05.999999")
				}
				b = appendLenEnc(b, uint64(len(s)))
				b = append(b, s...)
			default:
				w.pay = b
				return fmt.Errorf("cannot convert type: %T", a)
			}
			b[types+2*i] = t
		}
		if t := b[types : types+2*n]; sent != nil && bytes.Equal(*sent, t) {
			b[types-1] = 0 // new-params-bound: use the types sent before
			b = b[:types+copy(b[types:], b[types+2*n:])]
		} else if sent != nil {
			*sent = append((*sent)[:0], t...)
		}
	}
	w.pay = b
	w.frame()
	return nil
}

// flush writes the queued commands in one write(2).
func (w *wire) flush() error {
	if len(w.out) == 0 {
		return nil
	}
	w.io.command()
	_, err := w.io.Write(w.out)
	w.out = w.out[:0]
	return err
}

// packet reads one packet header and returns its payload length; a payload
// of maxPacket continues in the next packet.
func (w *wire) packet() (int, error) {
	h, err := w.io.next(headerLen)
	if err != nil {
		return 0, err
	}
	return int(h[0]) | int(h[1])<<8 | int(h[2])<<16, nil
}

// skipPacket consumes n payload bytes and any continuation packets.
func (w *wire) skipPacket(n int) error {
	for {
		if err := w.io.discard(n); err != nil {
			return err
		}
		if n < maxPacket {
			return nil
		}
		var err error
		if n, err = w.packet(); err != nil {
			return err
		}
	}
}

// readReply reads one command's whole reply: OK, ERR, or result sets whose
// column definitions and rows are skipped unread.
func (w *wire) readReply() (reply, error) {
	var r reply
	for {
		n, err := w.packet()
		if err != nil {
			return r, err
		}
		if n == 0 || n >= maxPacket {
			return r, errProtocol
		}
		p, err := w.io.next(n)
		if err != nil {
			return r, err
		}
		switch p[0] {
		case pktOK:
			affected, status, err := parseOK(p[1:])
			if err != nil {
				return r, err
			}
			r.affected = affected
			if status&statusMoreResults == 0 {
				return r, nil
			}
			continue
		case pktERR:
			return r, parseErr(p[1:])
		case pktInfile:
			return r, fmt.Errorf("LOAD DATA LOCAL INFILE on the statement path: %w", mysql.ErrInvalidConn)
		}
		cols, k := readLenEnc(p)
		if k == 0 || cols == 0 {
			return r, errProtocol
		}
		meta := true
		if w.cacheMeta {
			meta = k < len(p) && p[k] == 1
		}
		if meta {
			for range cols {
				n, err := w.packet()
				if err != nil {
					return r, err
				}
				if err := w.skipPacket(n); err != nil {
					return r, err
				}
			}
		}
		if !w.deprecateEOF {
			if err := w.skipOne(); err != nil {
				return r, err
			}
		}
		r.resultSet = true
		status, err := w.skipRows()
		if err != nil {
			return r, err
		}
		if status&statusMoreResults == 0 {
			return r, nil
		}
	}
}

func (w *wire) skipOne() error {
	n, err := w.packet()
	if err != nil {
		return err
	}
	return w.skipPacket(n)
}

// skipRows consumes rows up to the result set's terminator and returns its status flags.
func (w *wire) skipRows() (uint16, error) {
	for {
		n, err := w.packet()
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, errProtocol
		}
		first, err := w.io.next(1)
		if err != nil {
			return 0, err
		}
		switch {
		case first[0] == pktERR:
			p, err := w.io.next(n - 1)
			if err != nil {
				return 0, err
			}
			return 0, parseErr(p)
		case first[0] == pktEOF && (w.deprecateEOF && n < maxPacket || !w.deprecateEOF && n < 9):
			// A text row can start with 0xfe only as the length of a value of
			// 16 MB or more, so a shorter packet is the terminator.
			p, err := w.io.next(n - 1)
			if err != nil {
				return 0, err
			}
			if w.deprecateEOF {
				_, status, err := parseOK(p)
				return status, err
			}
			if len(p) < 4 {
				return 0, errProtocol
			}
			return binary.LittleEndian.Uint16(p[2:]), nil
		}
		if err := w.skipPacket(n - 1); err != nil {
			return 0, err
		}
	}
}

// readPrepare reads a COM_STMT_PREPARE reply: the statement id and its number of parameters.
func (w *wire) readPrepare() (id uint32, params int, err error) {
	n, err := w.packet()
	if err != nil {
		return 0, 0, err
	}
	if n == 0 || n >= maxPacket {
		return 0, 0, errProtocol
	}
	p, err := w.io.next(n)
	if err != nil {
		return 0, 0, err
	}
	if p[0] == pktERR {
		return 0, 0, parseErr(p[1:])
	}
	if p[0] != pktOK || len(p) < 9 {
		return 0, 0, errProtocol
	}
	id = binary.LittleEndian.Uint32(p[1:])
	cols := int(binary.LittleEndian.Uint16(p[5:]))
	params = int(binary.LittleEndian.Uint16(p[7:]))
	for _, defs := range []int{params, cols} {
		if defs == 0 {
			continue
		}
		for range defs {
			if err := w.skipOne(); err != nil {
				return 0, 0, err
			}
		}
		if !w.deprecateEOF {
			if err := w.skipOne(); err != nil {
				return 0, 0, err
			}
		}
	}
	return id, params, nil
}

// parseOK returns an OK packet's affected rows and status flags (p: the
// payload after its header byte).
func parseOK(p []byte) (int64, uint16, error) {
	affected, k := readLenEnc(p)
	if k == 0 {
		return 0, 0, errProtocol
	}
	pos := k
	_, k = readLenEnc(p[pos:]) // last insert id
	if k == 0 {
		return 0, 0, errProtocol
	}
	pos += k
	if len(p) < pos+2 {
		return 0, 0, errProtocol
	}
	return int64(affected), binary.LittleEndian.Uint16(p[pos:]), nil
}

// parseErr turns an ERR packet (p: the payload after its header byte) into
// the driver's error type, so Code and Broken classify it as they do the driver's.
func parseErr(p []byte) error {
	if len(p) < 2 {
		return errProtocol
	}
	e := &mysql.MySQLError{Number: binary.LittleEndian.Uint16(p)}
	msg := p[2:]
	if len(msg) >= 6 && msg[0] == '#' {
		copy(e.SQLState[:], msg[1:6])
		msg = msg[6:]
	}
	e.Message = string(msg)
	return e
}

func appendLenEnc(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// readLenEnc decodes a length-encoded integer; k is the bytes used, 0 if p is too short.
func readLenEnc(p []byte) (v uint64, k int) {
	if len(p) == 0 {
		return 0, 0
	}
	switch p[0] {
	case 0xfb:
		return 0, 1
	case 0xfc:
		if len(p) < 3 {
			return 0, 0
		}
		return uint64(binary.LittleEndian.Uint16(p[1:])), 3
	case 0xfd:
		if len(p) < 4 {
			return 0, 0
		}
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4
	case 0xfe:
		if len(p) < 9 {
			return 0, 0
		}
		return binary.LittleEndian.Uint64(p[1:]), 9
	}
	return uint64(p[0]), 1
}

// noWire turns the wire path off (QUADRANT_NO_WIRE=1): everything goes
// through the driver, to compare the two or to rule the wire path out.
var noWire = os.Getenv("QUADRANT_NO_WIRE") != ""
