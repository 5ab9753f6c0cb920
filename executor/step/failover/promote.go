package failover

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// replicaState is what SHOW SLAVE STATUS says of how far a replica has got.
type replicaState struct {
	s                  *sandbox.Server
	readFile, execFile string // the primary's binlog file the IO thread read up to, and the SQL thread applied up to
	readPos, execPos   int64
	ioRunning          string
	sqlRunning         string
	sqlError           string
	behind             string // Seconds_Behind_Master, "" when NULL
	masterPort         int    // the port of 127.0.0.1 it replicates from
	// MariaDB: the GTIDs of the last whole transactions received (Gtid_IO_Pos) and applied
	// (gtid_slave_pos); "" when the server has none to tell.
	gtidReceived, gtidApplied string
}

// caughtUp says the SQL thread applied all the IO thread received, or (MariaDB) every whole
// transaction it received: a network cut mid-transaction leaves the start of one in the
// relay log whose rest never comes, and applied positions never reach the read ones.
func (r replicaState) caughtUp() bool {
	if r.readFile == r.execFile && r.readPos == r.execPos {
		return true
	}
	return r.gtidReceived != "" && sameGTIDs(r.gtidReceived, r.gtidApplied)
}

// sameGTIDs says two GTID lists ("0-1-42,1-1-7") name the same positions, in any order.
func sameGTIDs(a, b string) bool {
	norm := func(s string) string {
		parts := strings.Split(strings.ReplaceAll(s, " ", ""), ",")
		slices.Sort(parts)
		return strings.Join(parts, ",")
	}
	return norm(a) == norm(b)
}

// ahead says r received more of the primary's binlog than o.
func (r replicaState) ahead(o replicaState) bool {
	if r.readFile != o.readFile {
		return r.readFile > o.readFile // binlog.000012 > binlog.000011: fixed-width numbers
	}
	return r.readPos > o.readPos
}

func stateOf(ctx context.Context, r *sandbox.Server) (replicaState, error) {
	db, err := r.Open()
	if err != nil {
		return replicaState{}, err
	}
	defer db.Close()
	m, err := firstRow(ctx, db, statusStatement(r))
	if err != nil {
		return replicaState{}, fmt.Errorf("%s: replica status: %w", r.Name(), err)
	}
	if m == nil {
		return replicaState{}, fmt.Errorf("%s replicates from nobody (its replica status is empty)", r.Name())
	}
	g := func(names ...string) string {
		for _, n := range names {
			if v, ok := m[n]; ok {
				return v
			}
		}
		return ""
	}
	st := replicaState{s: r,
		readFile: g("Master_Log_File", "Source_Log_File"), execFile: g("Relay_Master_Log_File", "Relay_Source_Log_File"),
		ioRunning: g("Slave_IO_Running", "Replica_IO_Running"), sqlRunning: g("Slave_SQL_Running", "Replica_SQL_Running"), sqlError: g("Last_SQL_Error"), behind: g("Seconds_Behind_Master", "Seconds_Behind_Source")}
	st.readPos, _ = strconv.ParseInt(g("Read_Master_Log_Pos", "Read_Source_Log_Pos"), 10, 64)
	st.execPos, _ = strconv.ParseInt(g("Exec_Master_Log_Pos", "Exec_Source_Log_Pos"), 10, 64)
	st.masterPort, _ = strconv.Atoi(g("Master_Port", "Source_Port"))
	if st.gtidReceived = g("Gtid_IO_Pos"); st.gtidReceived != "" {
		if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_slave_pos").Scan(&st.gtidApplied); err != nil {
			st.gtidReceived = "" // positions alone, then
		}
	}
	return st, nil
}

// promote picks the replica that received the most, waits until it has applied its relay
// log (catchup_timeout), makes it writable and a primary, and points the other replicas
// at it. On an error the servers are left as they are, running.
func (d *drill) promote(ctx context.Context, c *sandbox.Cluster, m map[string]float64) (*sandbox.Server, error) {
	var best replicaState
	for _, r := range c.Replicas {
		st, err := stateOf(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("failover: %w", err)
		}
		if best.s == nil || st.ahead(best) {
			best = st
		}
	}
	began := time.Now()
	if err := d.catchUp(ctx, best); err != nil {
		return nil, err
	}
	m[MetricCatchup] = time.Since(began).Seconds()
	p := best.s
	// STOP SLAVE first: its IO thread retries the dead primary every second.
	if err := p.Exec(ctx, "STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = OFF"); err != nil {
		return nil, fmt.Errorf("failover: promote %s: %w", p.Name(), err)
	}
	for _, r := range c.Replicas {
		if r == p {
			continue
		}
		if err := c.Repoint(ctx, r, p); err != nil {
			return nil, fmt.Errorf("failover: %s promoted, but pointing %s at it: %w", p.Name(), r.Name(), err)
		}
	}
	return p, nil
}

// catchUp waits until r's SQL thread has applied all its IO thread received, at most
// catchup_timeout.
func (d *drill) catchUp(ctx context.Context, r replicaState) error {
	deadline := time.Now().Add(d.b.CatchupTimeout)
	st := r
	for !st.caughtUp() {
		if time.Now().After(deadline) {
			why := ""
			if st.sqlRunning != "Yes" {
				why = fmt.Sprintf("; its SQL thread is not running (Slave_SQL_Running=%s, last error %q)", st.sqlRunning, st.sqlError)
			}
			return fmt.Errorf("failover: replica %s did not apply its relay log within catchup_timeout %s: applied %s:%d of %s:%d received%s; it is left unpromoted, the old primary is started again", r.s.Name(), d.b.CatchupTimeout, st.execFile, st.execPos, st.readFile, st.readPos, why)
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
		var err error
		if st, err = stateOf(ctx, r.s); err != nil {
			return fmt.Errorf("failover: %w", err)
		}
	}
	return nil
}

// lag is how far behind the replicas were just before the fault.
type lag struct {
	seconds float64
	rows    int64 // acknowledged ledger rows the most behind replica had not applied
	bytes   int64 // of the primary's binary log the most behind replica had not received; -1 unknown
}

// measureLag reads, just before the fault, each replica's Seconds_Behind_Master, how many
// acknowledged ledger rows it lacks and how much of the primary's binary log it has not
// received (what a crash of the primary takes with it); the worst of each. A reading that
// fails is left out: the lag is context, the drill goes on.
func measureLag(ctx context.Context, p *sandbox.Server, replicas []*sandbox.Server, l *ledger) lag {
	acked := int64(len(l.ackedBefore(time.Now())))
	out := lag{bytes: -1}
	file, pos := binlogEnd(ctx, p)
	for _, r := range replicas {
		if st, err := stateOf(ctx, r); err == nil {
			if st.behind != "" {
				v, _ := strconv.ParseFloat(st.behind, 64)
				out.seconds = max(out.seconds, v)
			}
			if file != "" && st.readFile == file {
				out.bytes = max(out.bytes, pos-st.readPos, 0)
			}
		}
		db, err := r.Open()
		if err != nil {
			continue
		}
		var n int64 // 0 too while the replica has not applied the ledger's CREATE yet
		db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+ledgerTable).Scan(&n)
		out.rows = max(out.rows, acked-n, 0)
		db.Close()
	}
	return out
}

// binlogEnd is where the primary's binary log ends ("" when it cannot tell). It waits
// briefly: while a semi-synchronous commit waits for a replica's acknowledgement (a cut
// link), SHOW MASTER STATUS waits behind it on MariaDB, as long as the commit does.
func binlogEnd(ctx context.Context, p *sandbox.Server) (string, int64) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	db, err := p.Open()
	if err != nil {
		return "", 0
	}
	defer db.Close()
	q := "SHOW MASTER STATUS"
	if b := p.Binary(); b.Flavor == sandbox.FlavorMySQL && b.AtLeast(8, 2, 0) {
		q = "SHOW BINARY LOG STATUS"
	}
	m, err := firstRow(ctx, db, q)
	if err != nil || m == nil {
		return "", 0
	}
	pos, _ := strconv.ParseInt(m["Position"], 10, 64)
	return m["File"], pos
}

func statusStatement(s *sandbox.Server) string {
	b := s.Binary()
	if b.Flavor == sandbox.FlavorMySQL && b.AtLeast(8, 0, 22) {
		return "SHOW REPLICA STATUS"
	}
	return "SHOW SLAVE STATUS"
}

// firstRow is q's first row as column -> value (NULL as ""), nil when it has none.
func firstRow(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || !rows.Next() {
		return nil, err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	m := map[string]string{}
	for i, c := range cols {
		m[strings.TrimSpace(c)] = vals[i].String
	}
	return m, rows.Err()
}
