package traffic

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"time"
)

// generalReader parses the general query log written to a file: one line per command,
// "TIME\tID COMMAND\tARGUMENT", where MariaDB and MySQL 5.6 leave TIME empty while the second
// does not change and MySQL 5.7+ writes it on every line with microseconds. A statement with
// newlines continues on the following lines. The log has neither durations nor rows, and the
// database is followed through Connect and Init DB.
type generalReader struct {
	l        *lines
	time     time.Time
	sessions map[uint64]*genSession // open connections: their user and database
	pending  *Statement             // a Query whose continuation lines may follow
}

type genSession struct {
	user, schema string
	// textExecute: the session's last Query was a text-protocol EXECUTE, which the server logs
	// again, expanded, as an Execute line: that line is not a statement of its own.
	textExecute bool
}

type genLine struct {
	time    []byte
	id      uint64
	command string
	arg     []byte
}

// generalCommands are the command names the server writes (the Command column of SHOW
// PROCESSLIST); a line that does not start with one is the continuation of a statement.
var generalCommands = map[string]bool{
	"Sleep": true, "Quit": true, "Init DB": true, "Query": true, "Field List": true, "Create DB": true,
	"Drop DB": true, "Refresh": true, "Shutdown": true, "Statistics": true, "Processlist": true,
	"Connect": true, "Kill": true, "Debug": true, "Ping": true, "Time": true, "Delayed insert": true,
	"Change user": true, "Binlog Dump": true, "Table Dump": true, "Connect Out": true,
	"Register Slave": true, "Prepare": true, "Execute": true, "Long Data": true, "Close stmt": true,
	"Reset stmt": true, "Set option": true, "Fetch": true, "Daemon": true, "Binlog Dump GTID": true,
	"Reset Connection": true, "Error": true,
}

// parseGeneral splits a general log line; false when it is not one (a continuation).
func parseGeneral(line []byte) (genLine, bool) {
	var g genLine
	tab := bytes.IndexByte(line, '\t')
	if tab < 0 {
		return g, false
	}
	g.time = bytes.TrimSpace(line[:tab])
	if len(g.time) > 0 {
		if _, _, ok := parseLogTime(string(g.time)); !ok {
			return g, false
		}
	}
	rest := bytes.TrimLeft(line[tab:], "\t ")
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i == len(rest) || rest[i] != ' ' {
		return g, false
	}
	id, err := strconv.ParseUint(string(rest[:i]), 10, 64)
	if err != nil {
		return g, false
	}
	g.id = id
	rest = rest[i+1:]
	cmd := rest
	if j := bytes.IndexByte(rest, '\t'); j >= 0 {
		cmd, g.arg = rest[:j], rest[j+1:]
	}
	g.command = string(bytes.TrimSpace(cmd))
	if !generalCommands[g.command] {
		return g, false
	}
	return g, true
}

func (r *generalReader) session(id uint64) *genSession {
	s := r.sessions[id]
	if s == nil {
		s = &genSession{}
		r.sessions[id] = s
	}
	return s
}

func (r *generalReader) next() (*Statement, error) {
	for {
		line, err := r.l.next()
		if err == io.EOF {
			if p := r.pending; p != nil {
				r.pending = nil
				return p, nil
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		g, ok := parseGeneral(line)
		if !ok {
			if serverHeader(line) {
				continue
			}
			if r.pending != nil {
				r.pending.Text += "\n" + string(line)
				continue
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			return nil, r.l.errorf(r.l.n, "not a general log line (TIME<tab>ID COMMAND<tab>ARGUMENT) and not the continuation of a query")
		}
		if len(g.time) > 0 {
			r.time, _, _ = parseLogTime(string(g.time))
		}
		out := r.pending
		r.pending = nil
		switch g.command {
		case "Connect":
			// "user@host on db using TCP/IP"
			s := r.session(g.id)
			arg := string(g.arg)
			if at := strings.IndexByte(arg, '@'); at >= 0 {
				s.user = arg[:at]
			}
			if i := strings.Index(arg, " on "); i >= 0 {
				db := arg[i+4:]
				if j := strings.Index(db, " using "); j >= 0 {
					db = db[:j]
				}
				s.schema = strings.TrimSpace(db)
			}
		case "Init DB":
			r.session(g.id).schema = string(bytes.TrimSpace(g.arg))
		case "Quit":
			delete(r.sessions, g.id)
		case "Query", "Execute":
			s := r.session(g.id)
			if g.command == "Execute" && s.textExecute {
				s.textExecute = false
				break
			}
			s.textExecute = g.command == "Query" && isTextExecute(g.arg)
			st := &Statement{Session: g.id, Start: r.time, User: s.user, Schema: s.schema, Text: string(g.arg), Line: r.l.n}
			unknown(st)
			if db, ok := UseTarget(st.Text); ok {
				s.schema = db
			}
			r.pending = st
		}
		if out != nil {
			out.Text = strings.TrimSpace(out.Text)
			return out, nil
		}
	}
}

func isTextExecute(arg []byte) bool {
	a := bytes.TrimSpace(arg)
	return len(a) > 8 && bytes.EqualFold(a[:7], []byte("EXECUTE")) && (a[7] == ' ' || a[7] == '\t' || a[7] == '\n')
}

// UseTarget returns the database of a USE statement.
func UseTarget(sql string) (string, bool) {
	s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(sql), ";"))
	if len(s) < 4 || !strings.EqualFold(s[:3], "use") || (s[3] != ' ' && s[3] != '\t' && s[3] != '\n' && s[3] != '`') {
		return "", false
	}
	db := strings.TrimSpace(s[3:])
	if strings.HasPrefix(db, "`") && strings.HasSuffix(db, "`") && len(db) >= 2 {
		db = strings.ReplaceAll(db[1:len(db)-1], "``", "`")
	}
	return db, db != ""
}
