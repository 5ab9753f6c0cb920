package sandbox

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// replUser is the account replicas connect to their primary with: replication only, from
// 127.0.0.1 only, with a random password of the cluster's.
const replUser = "quadrant_repl"

// replicaWait bounds how long Start waits for replicas to connect (IO and SQL threads running).
const replicaWait = 60 * time.Second

// semisyncOptions are the my.cnf lines that enable semi-sync at startup, so it survives restarts and is on
// before the replica's IO thread connects (no IO thread restart needed). MariaDB has it built in (10.3+);
// MySQL loads plugins, renamed source/replica in 8.0.26.
func semisyncOptions(b Binary, primary bool) []Option {
	if b.Flavor == FlavorMariaDB {
		if primary {
			return []Option{{Name: "rpl_semi_sync_master_enabled", Value: "ON"}}
		}
		return []Option{{Name: "rpl_semi_sync_slave_enabled", Value: "ON"}}
	}
	newNames := b.AtLeast(8, 0, 26)
	switch {
	case primary && newNames:
		return []Option{{Name: "plugin-load-add", Value: "semisync_source.so"}, {Name: "rpl_semi_sync_source_enabled", Value: "ON"}}
	case primary:
		return []Option{{Name: "plugin-load-add", Value: "semisync_master.so"}, {Name: "rpl_semi_sync_master_enabled", Value: "ON"}}
	case newNames:
		return []Option{{Name: "plugin-load-add", Value: "semisync_replica.so"}, {Name: "rpl_semi_sync_replica_enabled", Value: "ON"}}
	default:
		return []Option{{Name: "plugin-load-add", Value: "semisync_slave.so"}, {Name: "rpl_semi_sync_slave_enabled", Value: "ON"}}
	}
}

// attachReplica points r at primary, reached at port of 127.0.0.1 (the primary's own, or a
// link's in front of it), and starts replication as replUser.
// MariaDB uses GTIDs (slave_pos, empty on a fresh copy of the template, so it reads every binlog of
// the primary); MySQL uses the primary's current binlog position, taken before anything was written.
func attachReplica(ctx context.Context, primary, r *Server, port int) error {
	b := primary.bin
	var stmts []string
	if b.Flavor == FlavorMariaDB {
		stmts = []string{
			fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1", port, replUser, r.repl),
			"START SLAVE",
		}
	} else {
		file, pos, err := binlogPosition(ctx, primary)
		if err != nil {
			return err
		}
		if b.AtLeast(8, 0, 23) {
			stmts = []string{
				fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='%s', SOURCE_PASSWORD='%s', SOURCE_LOG_FILE='%s', SOURCE_LOG_POS=%d, SOURCE_CONNECT_RETRY=1, GET_SOURCE_PUBLIC_KEY=1", port, replUser, r.repl, file, pos),
				"START REPLICA",
			}
		} else {
			stmts = []string{
				fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_LOG_FILE='%s', MASTER_LOG_POS=%d, MASTER_CONNECT_RETRY=1, GET_MASTER_PUBLIC_KEY=1", port, replUser, r.repl, file, pos),
				"START SLAVE",
			}
		}
	}
	if r.tls != nil {
		// The primary refuses plaintext: the replica connects over TLS and checks the
		// primary's certificate with the cluster's CA.
		stmts[0] += fmt.Sprintf(", MASTER_SSL=1, MASTER_SSL_CA='%s', MASTER_SSL_VERIFY_SERVER_CERT=1", filepath.Join(r.tlsDir(), "ca.pem"))
		if strings.HasPrefix(stmts[0], "CHANGE REPLICATION SOURCE") {
			stmts[0] = strings.NewReplacer("MASTER_SSL=", "SOURCE_SSL=", "MASTER_SSL_CA=", "SOURCE_SSL_CA=", "MASTER_SSL_VERIFY_SERVER_CERT=", "SOURCE_SSL_VERIFY_SERVER_CERT=").Replace(stmts[0])
		}
	}
	if err := r.Exec(ctx, stmts...); err != nil {
		return fmt.Errorf("attach replica: %w", err)
	}
	return nil
}

// binlogPosition reads SHOW MASTER STATUS (SHOW BINARY LOG STATUS on MySQL 8.4+, where the old one is gone).
func binlogPosition(ctx context.Context, s *Server) (string, int64, error) {
	db, err := s.Open()
	if err != nil {
		return "", 0, err
	}
	defer db.Close()
	q := binlogStatusStatement(s.bin)
	rows, err := queryMaps(ctx, db, q)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %s: %w", s.name, q, err)
	}
	if len(rows) == 0 || rows[0]["File"] == "" {
		return "", 0, fmt.Errorf("%s: %s returned nothing: is the binary log on?", s.name, q)
	}
	var pos int64
	fmt.Sscan(rows[0]["Position"], &pos)
	return rows[0]["File"], pos, nil
}

// pollServer opens a pool to s and calls check every 100 ms until it reports done, fails, or
// replicaWait passes; then the error is timeout(), which describes the last state seen.
func pollServer(ctx context.Context, s *Server, check func(db *sql.DB) (bool, error), timeout func() error) error {
	db, err := s.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(replicaWait)
	for {
		done, err := check(db)
		if err != nil || done {
			return err
		}
		if time.Now().After(deadline) {
			return timeout()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitReplicaRunning waits until both replication threads of r report Yes; the error carries the last IO/SQL error.
func waitReplicaRunning(ctx context.Context, r *Server) error {
	q := replicaStatusStatement(r.bin)
	var last map[string]string
	io := func() string { return field(last, "Slave_IO_Running", "Replica_IO_Running") }
	sqlThread := func() string { return field(last, "Slave_SQL_Running", "Replica_SQL_Running") }
	return pollServer(ctx, r, func(db *sql.DB) (bool, error) {
		rows, err := queryMaps(ctx, db, q)
		if err != nil {
			return false, fmt.Errorf("%s: %s: %w", r.name, q, err)
		}
		if len(rows) > 0 {
			last = rows[0]
		}
		return io() == "Yes" && sqlThread() == "Yes", nil
	}, func() error {
		return fmt.Errorf("%s: replication not running after %s: IO=%s SQL=%s, last IO error %q, last SQL error %q",
			r.name, replicaWait, io(), sqlThread(), field(last, "Last_IO_Error"), field(last, "Last_SQL_Error"))
	})
}

// waitSemisyncClients waits until the primary counts n semi-sync replicas, so a benchmark's first
// commit is already semi-synchronous.
func waitSemisyncClients(ctx context.Context, p *Server, n int) error {
	const q = "SHOW GLOBAL STATUS WHERE Variable_name IN ('Rpl_semi_sync_master_clients','Rpl_semi_sync_source_clients')"
	var v int
	return pollServer(ctx, p, func(db *sql.DB) (bool, error) {
		var name string
		err := db.QueryRowContext(ctx, q).Scan(&name, &v)
		if err != nil && err != sql.ErrNoRows {
			return false, fmt.Errorf("%s: semi-sync status: %w", p.name, err)
		}
		return err == nil && v >= n, nil
	}, func() error {
		return fmt.Errorf("%s: %d of %d replicas connected semi-synchronously after %s; error log:\n%s", p.name, v, n, replicaWait, p.ErrorLogTail(10))
	})
}

// waitDumpThreads waits until n replicas are connected to the primary (one binlog dump thread each).
func waitDumpThreads(ctx context.Context, p *Server, n int) error {
	var v int
	return pollServer(ctx, p, func(db *sql.DB) (bool, error) {
		err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.processlist WHERE command LIKE 'Binlog Dump%'").Scan(&v)
		if err != nil {
			return false, fmt.Errorf("%s: count replica connections: %w", p.name, err)
		}
		return v >= n, nil
	}, func() error {
		return fmt.Errorf("%s: %d of %d replicas reconnected after %s", p.name, v, n, replicaWait)
	})
}

func field(m map[string]string, names ...string) string {
	for _, n := range names {
		if v, ok := m[n]; ok {
			return v
		}
	}
	return ""
}

// queryMaps returns every row as column -> value (NULL as "").
func queryMaps(ctx context.Context, db *sql.DB, q string) ([]map[string]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		m := make(map[string]string, len(cols))
		for i, c := range cols {
			m[strings.TrimSpace(c)] = vals[i].String
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// binlogStatusStatement: MySQL 8.2 renamed SHOW MASTER STATUS, and 8.4 removed the old name.
func binlogStatusStatement(b Binary) string {
	if b.Flavor == FlavorMySQL && b.AtLeast(8, 2, 0) {
		return "SHOW BINARY LOG STATUS"
	}
	return "SHOW MASTER STATUS"
}

// replicaStatusStatement: MySQL 8.0.22 added SHOW REPLICA STATUS, and 8.4 removed SHOW SLAVE STATUS.
func replicaStatusStatement(b Binary) string {
	if b.Flavor == FlavorMySQL && b.AtLeast(8, 0, 22) {
		return "SHOW REPLICA STATUS"
	}
	return "SHOW SLAVE STATUS"
}

// Repoint makes replica r replicate from p, a replica a failover drill promoted: p gets the
// replication account (a replica has none), and r goes on from its own GTID position. Only
// MariaDB (GTIDs), and p needs a binary log, which a sandbox's replicas have only when
// their config gives them one (log_bin, log_slave_updates).
func (c *Cluster) Repoint(ctx context.Context, r, p *Server) error {
	if p.bin.Flavor != FlavorMariaDB {
		return fmt.Errorf("repoint %s: only MariaDB sandboxes are repointed (by GTID)", r.name)
	}
	var binlog int
	if err := p.queryInt(ctx, "SELECT @@log_bin", &binlog); err != nil {
		return fmt.Errorf("repoint %s: %w", r.name, err)
	}
	if binlog == 0 {
		return fmt.Errorf("%s has no binary log, so %s cannot replicate from it: give the sandbox's servers log_bin and log_slave_updates in its config", p.name, r.name)
	}
	if err := p.Exec(ctx, "SET sql_log_bin = 0",
		fmt.Sprintf("CREATE USER IF NOT EXISTS '%s'@'127.0.0.1' IDENTIFIED BY '%s'", replUser, r.repl),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'127.0.0.1'", replUser)); err != nil {
		return fmt.Errorf("repoint %s: the replication account on %s: %s", r.name, p.name, p.redact(err.Error()))
	}
	err := r.Exec(ctx, "STOP SLAVE",
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1", p.Port(), replUser, r.repl),
		"START SLAVE")
	if err != nil {
		return fmt.Errorf("repoint %s at %s: %s", r.name, p.name, r.redact(err.Error()))
	}
	return waitReplicaRunning(ctx, r)
}

func (s *Server) queryInt(ctx context.Context, q string, v *int) error {
	db, err := s.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, q).Scan(v); err != nil {
		return fmt.Errorf("%s: %s: %w", s.name, q, err)
	}
	return nil
}
