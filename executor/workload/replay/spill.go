package replay

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// spill holds the statements of the sessions a replay runs, written once by the scan, so
// that each session reads its own statements back without waiting for any other: a reader
// in file order would have to hand them out, and a session blocked on a lock would hold up
// the one that owns the lock (its COMMIT stuck behind the blocked session's full queue).
// It is one file for all sessions, so thousands of sessions need one descriptor: each
// session's statements are buffered and written as chunks, and the session keeps the list
// of its chunks (offset, length), read back with ReadAt, one chunk at a time. Memory stays
// bounded by the sessions times a chunk, whatever the capture's size.
type spill struct {
	dir     string
	f       *os.File
	w       *bufio.Writer
	size    int64     // bytes written (and buffered in w) so far
	bufs    [][]byte  // per session: records not yet written
	chunks  [][]chunk // per session: where its records are, in order
	pending int       // bytes in bufs
}

type chunk struct {
	off int64
	n   int64
}

// chunkSize is when a session's buffer is written; spillBuffered is when every buffer is,
// whatever their sizes: together they bound the scan's memory with many sessions.
const (
	chunkSize     = 16 << 10
	spillBuffered = 32 << 20
)

func newSpill() (*spill, error) {
	dir, err := os.MkdirTemp("", "quadrant-replay-")
	if err != nil {
		return nil, fmt.Errorf("spill directory: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, "sessions.spill"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("spill file: %w", err)
	}
	return &spill{dir: dir, f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// Close removes the spill file.
func (s *spill) Close() error {
	err := s.f.Close()
	return errors.Join(err, os.RemoveAll(s.dir))
}

// add appends one encoded record to session w's statements.
func (s *spill) add(w int, rec []byte) error {
	for len(s.bufs) <= w {
		s.bufs, s.chunks = append(s.bufs, nil), append(s.chunks, nil)
	}
	s.bufs[w] = append(s.bufs[w], rec...)
	s.pending += len(rec)
	if len(s.bufs[w]) >= chunkSize {
		if err := s.flush(w); err != nil {
			return err
		}
	}
	if s.pending >= spillBuffered {
		return s.flushAll()
	}
	return nil
}

func (s *spill) flush(w int) error {
	b := s.bufs[w]
	if len(b) == 0 {
		return nil
	}
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("spill file: %w", err)
	}
	s.chunks[w] = append(s.chunks[w], chunk{off: s.size, n: int64(len(b))})
	s.size += int64(len(b))
	s.pending -= len(b)
	// Given back rather than kept: with thousands of sessions, kept buffers would be the
	// scan's memory.
	s.bufs[w] = nil
	return nil
}

func (s *spill) flushAll() error {
	for w := range s.bufs {
		if err := s.flush(w); err != nil {
			return err
		}
	}
	return nil
}

// finish writes what is buffered: the file is complete and readers may start.
func (s *spill) finish() error {
	if err := s.flushAll(); err != nil {
		return err
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spill file: %w", err)
	}
	s.bufs = nil
	return nil
}

// reader reads session w's records back, in the order they were added.
func (s *spill) reader(w int) *spillReader {
	r := &spillReader{f: s.f}
	if w < len(s.chunks) {
		r.chunks = s.chunks[w]
	}
	return r
}

// all reads every record, in file order (the captured durations, after the replay).
func (s *spill) all() *spillReader {
	return &spillReader{f: s.f, chunks: []chunk{{off: 0, n: s.size}}}
}

// record is one captured statement as the spill keeps it. Unknown numbers are -1.
type record struct {
	fp       int   // the scan's fingerprint number
	startUs  int64 // Unix µs; 0 unknown
	duration time.Duration
	rows     int64
	err      int
	line     int
	// at is what the statement waits for on the order's clock (order.go), and order what it is
	// to the commit order: a commit's number + 1, 0 a statement that waits, -1 a read that does not.
	at     int64
	order  int64
	lock   bool // order: commit keeps it in the locking statements' order (lockorder.go)
	schema string
	text   string
}

func (r *record) append(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(r.fp))
	b = binary.AppendVarint(b, r.startUs)
	b = binary.AppendVarint(b, int64(r.duration))
	b = binary.AppendVarint(b, r.rows)
	b = binary.AppendVarint(b, int64(r.err))
	b = binary.AppendUvarint(b, uint64(r.line))
	b = binary.AppendVarint(b, r.at)
	b = binary.AppendVarint(b, r.order)
	lock := uint64(0)
	if r.lock {
		lock = 1
	}
	b = binary.AppendUvarint(b, lock)
	b = binary.AppendUvarint(b, uint64(len(r.schema)))
	b = append(b, r.schema...)
	b = binary.AppendUvarint(b, uint64(len(r.text)))
	return append(b, r.text...)
}

type spillReader struct {
	f      *os.File
	chunks []chunk
	buf    []byte // the current chunk
	pos    int
}

// errCorrupt says the spill file does not hold what the scan wrote (a disk error).
var errCorrupt = errors.New("spill file corrupt")

// next decodes the next record into r; false at the end.
func (sr *spillReader) next(r *record) (bool, error) {
	for sr.pos >= len(sr.buf) {
		if len(sr.chunks) == 0 {
			sr.buf, sr.pos = nil, 0 // a session that has ended holds no chunk
			return false, nil
		}
		if err := sr.load(); err != nil {
			return false, err
		}
	}
	b := sr.buf[sr.pos:]
	var vals [11]int64
	for i := range vals {
		var v int64
		var n int
		if i == 0 || i == 5 || i >= 8 {
			var u uint64
			u, n = binary.Uvarint(b)
			v = int64(u)
		} else {
			v, n = binary.Varint(b)
		}
		if n <= 0 {
			return false, errCorrupt
		}
		b = b[n:]
		vals[i] = v
		if i == 9 { // the schema's length, then its bytes
			if v < 0 || v > int64(len(b)) {
				return false, errCorrupt
			}
			r.schema, b = string(b[:v]), b[v:]
		}
	}
	if vals[10] < 0 || vals[10] > int64(len(b)) {
		return false, errCorrupt
	}
	r.text, b = string(b[:vals[10]]), b[vals[10]:]
	r.fp, r.startUs, r.duration, r.rows, r.err, r.line = int(vals[0]), vals[1], time.Duration(vals[2]), vals[3], int(vals[4]), int(vals[5])
	r.at, r.order, r.lock = vals[6], vals[7], vals[8] == 1
	sr.pos = len(sr.buf) - len(b)
	return true, nil
}

// load reads the next chunk. A chunk of all() is the whole file, read in windows that end on
// a record's end: the window grows until it holds at least one whole record.
func (sr *spillReader) load() error {
	c := &sr.chunks[0]
	n := c.n
	if n > 4<<20 {
		n = 4 << 20
	}
	for {
		if cap(sr.buf) < int(n) {
			sr.buf = make([]byte, n)
		}
		sr.buf = sr.buf[:n]
		if _, err := sr.f.ReadAt(sr.buf, c.off); err != nil && !(err == io.EOF && n == c.n) {
			return fmt.Errorf("spill file: %w", err)
		}
		end := n
		if n < c.n {
			end = int64(wholeRecords(sr.buf))
			if end == 0 {
				n = min(2*n, c.n)
				continue
			}
		}
		sr.buf, sr.pos = sr.buf[:end], 0
		c.off += end
		c.n -= end
		if c.n == 0 {
			sr.chunks = sr.chunks[1:]
		}
		return nil
	}
}

// wholeRecords is the length of b's leading whole records.
func wholeRecords(b []byte) int {
	end := 0
	for {
		p := b[end:]
		for i := range 11 {
			_, n := binary.Uvarint(p)
			if n <= 0 {
				return end
			}
			if i == 9 || i == 10 { // the schema's and the text's lengths, then their bytes
				l, _ := binary.Uvarint(p)
				if uint64(len(p)-n) < l {
					return end
				}
				n += int(l)
			}
			p = p[n:]
		}
		end = len(b) - len(p)
	}
}
