package target

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// ReplicaStatus is one row of SHOW REPLICA STATUS / SHOW SLAVE STATUS with MariaDB's and MySQL's
// spellings (Master_*/Slave_* and Source_*/Replica_*) folded together.
type ReplicaStatus struct {
	IORunning, SQLRunning string   // "Yes" / "No" / "Connecting" as reported
	LagSeconds            *float64 // nil when the server reports NULL (SQL thread stopped, not connected)
	SourceLogFile         string
	ReadSourceLogPos      int64
	RelaySourceLogFile    string
	ExecSourceLogPos      int64
	LastIOError           string
	LastSQLError          string
	Fields                map[string]string // every column as returned (NULL as "")
}

// Field returns a column by either spelling: Field("Seconds_Behind_Master") also finds
// Seconds_Behind_Source, and the other way round.
func (st ReplicaStatus) Field(name string) (string, bool) {
	for _, n := range spellings(name) {
		if v, ok := st.Fields[n]; ok {
			return v, true
		}
	}
	return "", false
}

// spellings returns name and its other-flavor spelling (Master<->Source, Slave<->Replica).
func spellings(name string) []string {
	alt := strings.NewReplacer("Master", "Source", "Slave", "Replica", "master", "source", "slave", "replica").Replace(name)
	if alt == name {
		alt = strings.NewReplacer("Source", "Master", "Replica", "Slave", "source", "master", "replica", "slave").Replace(name)
	}
	if alt == name {
		return []string{name}
	}
	return []string{name, alt}
}

// ReadReplicaStatus runs SHOW REPLICA STATUS (MariaDB 10.5+, MySQL 8.0.22+), falling back to SHOW SLAVE
// STATUS on older servers. ok is false when the server is not a replica (no row).
func ReadReplicaStatus(ctx context.Context, db *sql.DB) (st ReplicaStatus, ok bool, err error) {
	row, cols, err := showReplicaStatus(ctx, db, "SHOW REPLICA STATUS")
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1064 { // syntax error: a server older than the REPLICA keyword
		row, cols, err = showReplicaStatus(ctx, db, "SHOW SLAVE STATUS")
	}
	if err != nil || row == nil {
		return ReplicaStatus{}, false, err
	}
	st, err = ParseReplicaStatus(cols, row)
	return st, err == nil, err
}

// ParseReplicaStatus reads one row of SHOW REPLICA STATUS (or SHOW SLAVE STATUS) by its column
// names, MariaDB's Master_/Slave_ ones or MySQL 8.0.22+'s Source_/Replica_ ones.
func ParseReplicaStatus(cols []string, row []sql.NullString) (ReplicaStatus, error) {
	var st ReplicaStatus
	st.Fields = make(map[string]string, len(cols))
	var lag *float64
	for i, c := range cols {
		st.Fields[c] = row[i].String
		if (c == "Seconds_Behind_Master" || c == "Seconds_Behind_Source") && row[i].Valid {
			v, perr := strconv.ParseFloat(row[i].String, 64)
			if perr != nil {
				return ReplicaStatus{}, fmt.Errorf("replica status: %s=%q: %w", c, row[i].String, perr)
			}
			lag = &v
		}
	}
	get := func(name string) string { v, _ := st.Field(name); return v }
	num := func(name string) int64 { n, _ := strconv.ParseInt(get(name), 10, 64); return n }
	st.IORunning = get("Slave_IO_Running")
	st.SQLRunning = get("Slave_SQL_Running")
	st.LagSeconds = lag
	st.SourceLogFile = get("Master_Log_File")
	st.ReadSourceLogPos = num("Read_Master_Log_Pos")
	st.RelaySourceLogFile = get("Relay_Master_Log_File")
	st.ExecSourceLogPos = num("Exec_Master_Log_Pos")
	st.LastIOError = get("Last_IO_Error")
	st.LastSQLError = get("Last_SQL_Error")
	return st, nil
}

// BothSpellings are the columns under MariaDB's and MySQL's names alike, so that a wait on
// replica.Seconds_Behind_Master reads a MySQL 8 replica too (and replica.Seconds_Behind_Source
// a MariaDB one).
func (st ReplicaStatus) BothSpellings() map[string]string {
	out := make(map[string]string, 2*len(st.Fields))
	for k, v := range st.Fields {
		for _, n := range spellings(k) {
			if _, own := st.Fields[n]; n == k || !own {
				out[n] = v
			}
		}
	}
	return out
}

// showReplicaStatus returns the first row (nil when there is none) and the column names.
func showReplicaStatus(ctx context.Context, db *sql.DB, q string) ([]sql.NullString, []string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", q, err)
	}
	if !rows.Next() {
		return nil, cols, rows.Err()
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", q, err)
	}
	return vals, cols, rows.Err()
}
