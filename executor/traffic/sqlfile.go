package traffic

import (
	"io"

	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// sqlReader reads a plain SQL file as one session without times, split as the mysql client does.
type sqlReader struct{ sp *sqltext.Splitter }

func newSQLReader(r io.Reader) *sqlReader { return &sqlReader{sp: sqltext.NewSplitter(r)} }

func (r *sqlReader) next() (*Statement, error) {
	stmt, line, err := r.sp.Next()
	if err != nil {
		return nil, err
	}
	s := &Statement{Text: string(stmt), Line: line}
	unknown(s)
	return s, nil
}
