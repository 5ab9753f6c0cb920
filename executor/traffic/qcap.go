package traffic

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// QCapVersion is the capture file format this quadrant writes and the newest it reads.
// A .qcap file is JSON lines: a header {"qcap": VERSION, ...}, then one statement per line.
// Version 1's statement fields are those of qcapRecord; readers ignore fields they do not
// know, so adding one does not need a new version, changing one's meaning does.
const QCapVersion = 1

// QCapHeader is a capture file's first line.
type QCapHeader struct {
	Version int       `json:"qcap"`
	Created time.Time `json:"created"`
	// Source says how the statements were captured (slow_log table, performance_schema, a log file).
	Source string `json:"source,omitempty"`
	Target string `json:"target,omitempty"`
	// Timed is false when the statements carry no start times.
	Timed bool `json:"timed"`
	// EndOrder says the statements are in the order they ended (a slow log's, converted),
	// not the order they started: replay's commit order reads the file order so.
	EndOrder bool `json:"end_order,omitempty"`
	// State is the checksums of the tables the capture saw written, at its start and end.
	State *State `json:"state,omitempty"`
}

type qcapRecord struct {
	Session      uint64 `json:"session"`
	StartUs      int64  `json:"start_us,omitempty"`    // Unix time of the start, µs
	DurationUs   *int64 `json:"duration_us,omitempty"` // absent: unknown
	Schema       string `json:"schema,omitempty"`
	User         string `json:"user,omitempty"`
	RowsSent     *int64 `json:"rows_sent,omitempty"`
	RowsExamined *int64 `json:"rows_examined,omitempty"`
	Error        *int   `json:"error,omitempty"` // the error number it ended with, 0 none; absent: unknown
	// ClockStart and ClockEnd are on the capture's own clock, picoseconds (see Statement).
	ClockStart int64  `json:"clock_start_ps,omitempty"`
	ClockEnd   int64  `json:"clock_end_ps,omitempty"`
	Text       string `json:"text"`
}

// outOfRange names a number no capture holds: a negative count, duration or error number
// (the writer leaves an unknown one out), or a duration past time.Duration's range.
func (rec *qcapRecord) outOfRange() string {
	switch {
	case rec.DurationUs != nil && (*rec.DurationUs < 0 || *rec.DurationUs > math.MaxInt64/int64(time.Microsecond)):
		return fmt.Sprintf("duration_us %d is out of range", *rec.DurationUs)
	case rec.RowsSent != nil && *rec.RowsSent < 0:
		return fmt.Sprintf("rows_sent %d is negative", *rec.RowsSent)
	case rec.RowsExamined != nil && *rec.RowsExamined < 0:
		return fmt.Sprintf("rows_examined %d is negative", *rec.RowsExamined)
	case rec.Error != nil && *rec.Error < 0:
		return fmt.Sprintf("error %d is negative", *rec.Error)
	case rec.ClockStart < 0 || rec.ClockEnd < rec.ClockStart && rec.ClockEnd != 0:
		return fmt.Sprintf("clock_start_ps %d, clock_end_ps %d are out of order", rec.ClockStart, rec.ClockEnd)
	}
	return ""
}

type qcapReader struct {
	l      *lines
	header QCapHeader
}

func newQCapReader(l *lines) (*qcapReader, error) {
	line, err := l.next()
	if err != nil {
		return nil, l.errorf(1, "empty capture file")
	}
	var h QCapHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Version == 0 {
		return nil, l.errorf(1, "not a quadrant capture header ({\"qcap\": VERSION, ...})")
	}
	if h.Version > QCapVersion {
		return nil, fmt.Errorf("%s: capture file format version %d: %w (version %d); upgrade quadrant", l.name, h.Version, ErrNewerVersion, QCapVersion)
	}
	return &qcapReader{l: l, header: h}, nil
}

func (r *qcapReader) next() (*Statement, error) {
	for {
		line, err := r.l.next()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			continue
		}
		var rec qcapRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, r.l.errorf(r.l.n, "malformed capture record: %v", err)
		}
		if msg := rec.outOfRange(); msg != "" {
			return nil, r.l.errorf(r.l.n, "malformed capture record: %s", msg)
		}
		s := &Statement{Session: rec.Session, Schema: rec.Schema, User: rec.User, Text: rec.Text, Line: r.l.n,
			ClockStart: rec.ClockStart, ClockEnd: rec.ClockEnd}
		unknown(s)
		if rec.StartUs != 0 {
			s.Start = time.UnixMicro(rec.StartUs)
		}
		if rec.DurationUs != nil {
			s.Duration = time.Duration(*rec.DurationUs) * time.Microsecond
		}
		if rec.RowsSent != nil {
			s.RowsSent = *rec.RowsSent
		}
		if rec.RowsExamined != nil {
			s.RowsExamined = *rec.RowsExamined
		}
		if rec.Error != nil {
			s.Error = *rec.Error
		}
		return s, nil
	}
}

// Writer writes a capture file.
type Writer struct {
	w      *bufio.Writer
	enc    *json.Encoder
	header *QCapHeader // until it is written, with the first statement or Flush
}

// NewWriter returns a writer for the statements after h (its Version set to QCapVersion),
// which is written with the first statement or at Flush: until then SetState may add to it.
func NewWriter(w io.Writer, h QCapHeader) (*Writer, error) {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	h.Version = QCapVersion
	return &Writer{w: bw, enc: enc, header: &h}, nil
}

// SetState records the capture's tables' state in the header; only before the first
// statement is written.
func (w *Writer) SetState(st *State) error {
	if w.header == nil {
		return fmt.Errorf("capture file: the state comes before the first statement")
	}
	w.header.State = st
	return nil
}

func (w *Writer) writeHeader() error {
	if w.header == nil {
		return nil
	}
	h := w.header
	w.header = nil
	return w.enc.Encode(h)
}

// Write appends one statement.
func (w *Writer) Write(s *Statement) error {
	if err := w.writeHeader(); err != nil {
		return err
	}
	rec := qcapRecord{Session: s.Session, Schema: s.Schema, User: s.User, Text: s.Text, ClockStart: s.ClockStart, ClockEnd: s.ClockEnd}
	if !s.Start.IsZero() {
		rec.StartUs = s.Start.UnixMicro()
	}
	if s.Duration >= 0 {
		d := s.Duration.Microseconds()
		rec.DurationUs = &d
	}
	if s.RowsSent >= 0 {
		rec.RowsSent = &s.RowsSent
	}
	if s.RowsExamined >= 0 {
		rec.RowsExamined = &s.RowsExamined
	}
	if s.Error >= 0 {
		rec.Error = &s.Error
	}
	return w.enc.Encode(rec)
}

// Flush hands what was written to the file.
func (w *Writer) Flush() error {
	if err := w.writeHeader(); err != nil {
		return err
	}
	return w.w.Flush()
}
