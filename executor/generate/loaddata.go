package generate

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
)

// The ways rows reach the server (Options.Method).
const (
	MethodAuto     = "auto"      // LOAD DATA where the server allows it, else INSERT
	MethodInsert   = "insert"    // multi-row INSERTs
	MethodLoadData = "load_data" // LOAD DATA LOCAL INFILE, an error where the server refuses it
)

// loadChunk bounds the bytes of one LOAD DATA statement: each is its own autocommit
// transaction, so a chunk is what a deadlock makes the server roll back and the client send
// again, and what InnoDB keeps undo for; the client never holds more than a read buffer of it.
const loadChunk = 8 << 20

// chooseMethod says whether the tables go in with LOAD DATA LOCAL INFILE, and why, for the
// log. The driver always offers the client's local-files capability and a Reader:: handler
// needs no allowAllFiles, so the server's local_infile is what decides.
func chooseMethod(ctx context.Context, conn *sql.Conn, method string) (bool, string, error) {
	switch method {
	case "", MethodAuto, MethodLoadData:
	case MethodInsert:
		return false, "multi-row INSERTs (method: insert)", nil
	default:
		return false, "", fmt.Errorf("method %q is not one of auto, insert, load_data", method)
	}
	var on sql.NullString
	err := conn.QueryRowContext(ctx, "SELECT @@GLOBAL.local_infile").Scan(&on)
	allowed := err == nil && (on.String == "1" || strings.EqualFold(on.String, "ON"))
	switch {
	case allowed:
		return true, "LOAD DATA LOCAL INFILE (the server's local_infile is ON)", nil
	case method == MethodLoadData && err != nil:
		return false, "", fmt.Errorf("method: load_data: cannot read the server's local_infile: %w", err)
	case method == MethodLoadData:
		return false, "", errors.New("method: load_data, but the server's local_infile is OFF: SET GLOBAL local_infile = ON on it, or use method: insert (or auto)")
	case err != nil:
		return false, fmt.Sprintf("multi-row INSERTs (local_infile unreadable: %v)", err), nil
	}
	return false, "multi-row INSERTs (the server's local_infile is OFF)", nil
}

// loadable says whether every column's literal of a table's first row has a LOAD DATA field
// form (NULL, a number, a quoted or hex string); else the table goes in with INSERTs.
func loadable(tp *tablePlan) error {
	if tp.rows == 0 {
		return nil
	}
	var lit, out []byte
	for _, g := range tp.gens {
		lit = g.emit(lit[:0], 0)
		var err error
		if out, err = appendField(out[:0], lit, g.col.dataType == "bit"); err != nil {
			return fmt.Errorf("column %s: %w", g.col.name, err)
		}
	}
	return nil
}

// loadDataRange loads rows [from, to) of a table on its own connection, in LOAD DATA
// statements of about loadChunk bytes each, whose file is a reader that formats the rows as
// the server asks for them: no file, and no more of the table in memory than a read buffer.
func loadDataRange(ctx context.Context, db *sql.DB, database string, tp *tablePlan, from, to int64, done *atomic.Int64, retry *engine.LoadRetry) error {
	conn, err := loadConn(ctx, db)
	if err != nil {
		return err
	}
	defer func() { discard(conn) }()
	// The file is read in the connection's character set, as an INSERT's text would be.
	var charset string
	if err := conn.QueryRowContext(ctx, "SELECT @@character_set_client").Scan(&charset); err != nil {
		return fmt.Errorf("read character_set_client: %w", err)
	}
	var a, b int64 // the chunk the handler serves; set before each statement
	rr := &rowReader{tp: tp}
	// The driver's handlers are one map for the process: the reader's address keeps the name
	// unique among the threads and loads running at once.
	name := fmt.Sprintf("quadrant-generate-%p", rr)
	mysql.RegisterReaderHandler(name, func() io.Reader { rr.reset(a, b); return rr })
	defer mysql.DeregisterReaderHandler(name)
	stmt := loadStatement(name, database, tp, charset)
	per := int64(1)
	if n := rr.rowBytes(from); n > 0 {
		per = max(1, loadChunk/int64(n))
	}
	for a = from; a < to; a = b {
		b = min(to, a+per)
		if err := sendBatch(ctx, db, &conn, retry, stmt, tp.name, a, b); err != nil {
			return err
		}
		if rr.err != nil {
			return rr.err
		}
		// LOAD DATA LOCAL turns what an INSERT would refuse in strict mode (a value that
		// does not fit) into a warning: ask for it, so the rows stay exactly the generator's.
		var level, msg string
		var code int
		switch err := conn.QueryRowContext(ctx, "SHOW WARNINGS LIMIT 1").Scan(&level, &code, &msg); {
		case err == nil:
			return fmt.Errorf("rows %d to %d: the server changed a value: %s %d: %s", a+1, b, level, code, msg)
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("read warnings: %w", err)
		}
		done.Add(b - a)
	}
	return nil
}

// loadStatement names the columns in the table's order; a BIT column goes through a
// variable, as LOAD DATA would take its digits for characters.
func loadStatement(handler, database string, tp *tablePlan, charset string) string {
	var cols, set []string
	for i, g := range tp.gens {
		if g.col.dataType == "bit" {
			v := "@b" + strconv.Itoa(i)
			cols = append(cols, v)
			set = append(set, quoteID(g.col.name)+" = CAST("+v+" AS UNSIGNED)")
			continue
		}
		cols = append(cols, quoteID(g.col.name))
	}
	s := "LOAD DATA LOCAL INFILE 'Reader::" + handler + "' INTO TABLE " + quoteID(database) + "." + quoteID(tp.name) +
		" CHARACTER SET " + charset + ` FIELDS TERMINATED BY '\t' ESCAPED BY '\\' LINES TERMINATED BY '\n' (` + strings.Join(cols, ", ") + ")"
	if len(set) > 0 {
		s += " SET " + strings.Join(set, ", ")
	}
	return s
}

// rowReader is the file of one LOAD DATA: rows [row, to) as tab-separated lines, made as
// they are read.
type rowReader struct {
	tp      *tablePlan
	row, to int64
	buf     []byte // formatted, not yet read from off
	off     int
	lit     []byte // one value's SQL literal
	err     error  // a value with no field form: the load stops at it
}

func (r *rowReader) reset(from, to int64) {
	r.row, r.to, r.buf, r.off, r.err = from, to, r.buf[:0], 0, nil
}

// rowBytes is the length of one formatted row, to size the chunks.
func (r *rowReader) rowBytes(row int64) int {
	r.reset(row, row+1)
	if r.fill() != nil {
		return 0
	}
	return len(r.buf)
}

func (r *rowReader) Read(p []byte) (int, error) {
	if r.off == len(r.buf) {
		if r.row == r.to {
			return 0, io.EOF
		}
		if err := r.fill(); err != nil {
			r.err = err
			return 0, err
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// fill formats the next rows, about the driver's 16 KB packet of them.
func (r *rowReader) fill() error {
	r.buf, r.off = r.buf[:0], 0
	for r.row < r.to && len(r.buf) < 16<<10 {
		for i, g := range r.tp.gens {
			if i > 0 {
				r.buf = append(r.buf, '\t')
			}
			r.lit = g.emit(r.lit[:0], r.row)
			var err error
			if r.buf, err = appendField(r.buf, r.lit, g.col.dataType == "bit"); err != nil {
				return fmt.Errorf("row %d, column %s: %w", r.row+1, g.col.name, err)
			}
		}
		r.buf = append(r.buf, '\n')
		r.row++
	}
	return nil
}

// appendField turns one SQL literal as the generator writes it for an INSERT into the same
// value as a LOAD DATA field: NULL is \N; a quoted string loses its quotes and SQL escapes and
// gains the field's (backslash, tab, newline, NUL); a hex string is decoded; a number stays.
// For a BIT column a string becomes the number its bytes make, as an INSERT would store it.
// It allocates nothing: it runs for every value of the table.
func appendField(dst, lit []byte, bit bool) ([]byte, error) {
	switch {
	case string(lit) == "NULL":
		return append(dst, `\N`...), nil
	case len(lit) > 0 && (lit[0] >= '0' && lit[0] <= '9' || lit[0] == '-' || lit[0] == '+' || lit[0] == '.') && !isHex(lit):
		return append(dst, lit...), nil
	}
	if bit {
		raw, err := unquote(nil, lit, false)
		if err != nil {
			return dst, err
		}
		if len(raw) > 8 {
			return dst, fmt.Errorf("%d bytes do not fit a BIT column", len(raw))
		}
		var v uint64
		for _, c := range raw {
			v = v<<8 | uint64(c)
		}
		return strconv.AppendUint(dst, v, 10), nil
	}
	return unquote(dst, lit, true)
}

func isHex(lit []byte) bool { return len(lit) > 1 && lit[0] == '0' && (lit[1] == 'x' || lit[1] == 'X') }

// unquote appends the bytes of a string literal to dst, escaped for a LOAD DATA field if
// field: '...' with the server's backslash escapes and doubled quotes (sql_mode without
// NO_BACKSLASH_ESCAPES, as the load's session sets), after a charset introducer such as
// _binary (the bytes are the same), X'..' or 0x...
func unquote(dst, lit []byte, field bool) ([]byte, error) {
	if len(lit) > 0 && lit[0] == '_' {
		if i := bytes.IndexByte(lit, '\''); i > 0 {
			lit = lit[i:]
		}
	}
	n := len(lit)
	switch {
	case n >= 3 && (lit[0] == 'x' || lit[0] == 'X') && lit[1] == '\'' && lit[n-1] == '\'':
		return appendHex(dst, lit[2:n-1], field)
	case isHex(lit):
		return appendHex(dst, lit[2:], field)
	case n < 2 || lit[0] != '\'' || lit[n-1] != '\'':
		return dst, fmt.Errorf("literal %.40q has no LOAD DATA form; use method: insert", lit)
	}
	body := lit[1 : n-1]
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\'' && i+1 < len(body) && body[i+1] == '\'':
			i++
		case c == '\\' && i+1 < len(body):
			i++
			switch e := body[i]; e {
			case '0':
				c = 0
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'Z':
				c = 0x1a
			case '%', '_':
				// the server keeps the backslash of these two
				dst = appendByte(dst, '\\', field)
				c = e
			default:
				c = e
			}
		}
		dst = appendByte(dst, c, field)
	}
	return dst, nil
}

// appendByte appends c, escaped as LOAD DATA reads it back if field.
func appendByte(dst []byte, c byte, field bool) []byte {
	if field {
		switch c {
		case '\\':
			return append(dst, '\\', '\\')
		case '\t':
			return append(dst, '\\', 't')
		case '\n':
			return append(dst, '\\', 'n')
		case 0:
			return append(dst, '\\', '0')
		}
	}
	return append(dst, c)
}

func appendHex(dst, h []byte, field bool) ([]byte, error) {
	odd := len(h) % 2
	for i := 0; i < len(h); {
		hi, lo := byte('0'), h[i]
		if i > 0 || odd == 0 {
			hi, lo = h[i], h[i+1]
			i += 2
		} else {
			i++
		}
		a, ok1 := unhex(hi)
		b, ok2 := unhex(lo)
		if !ok1 || !ok2 {
			return dst, fmt.Errorf("hex literal %.40q has a non-hex digit", h)
		}
		dst = appendByte(dst, a<<4|b, field)
	}
	return dst, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
