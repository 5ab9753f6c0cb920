package mysqlwatch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/executor/watch"
)

// ReplicationConfig is the replica to watch.
type ReplicationConfig struct {
	DSN string
}

// Replication columns. Positions are in the source's binary log; apply_backlog_bytes is how far the SQL
// thread trails the IO thread when both are in the same source log file (empty otherwise).
var replColumns = []watch.Column{
	{Name: "repl.lag_s", Kind: watch.Gauge},
	{Name: "repl.io_running", Kind: watch.Gauge},
	{Name: "repl.sql_running", Kind: watch.Gauge},
	{Name: "repl.read_pos", Kind: watch.Gauge},
	{Name: "repl.exec_pos", Kind: watch.Gauge},
	{Name: "repl.apply_backlog_bytes", Kind: watch.Gauge},
}

// Replication samples SHOW REPLICA STATUS (MariaDB and MySQL spellings, via target.ReadReplicaStatus). A
// server that is not (yet) a replica gives empty cells, not an error: a replica may be attached during the
// workload. lag_s is empty when the server reports NULL (SQL thread stopped). io_running and sql_running are
// 1 only for "Yes" ("Connecting" is 0).
type Replication struct {
	cfg    ReplicationConfig
	conn   *conn
	last   []float64
	outage watch.Outage
	// lastErr remembers the replication error text already reported, so a broken replica warns once per
	// distinct error instead of every tick.
	lastErr string
}

// NewReplication returns a sampler; nothing is opened until Start.
func NewReplication(cfg ReplicationConfig) *Replication {
	return &Replication{cfg: cfg, last: watch.Empty(len(replColumns))}
}

// Start connects and checks that the user may read replica status.
func (s *Replication) Start(ctx context.Context) error {
	c, err := openConn(ctx, "replication watch", s.cfg.DSN)
	if c != nil {
		s.conn = c // also when unavailable: the columns are fixed, a later tick reconnects
	}
	if err != nil {
		return err
	}
	err = retry(ctx, func() error { _, _, err := target.ReadReplicaStatus(ctx, c.db); return err })
	if errors.Is(err, watch.ErrUnavailable) {
		return fmt.Errorf("replication watch %s: %w", c.addr, err)
	}
	if err != nil {
		return fmt.Errorf("replication watch %s: %w (the user needs REPLICATION CLIENT or SLAVE MONITOR)", c.addr, err)
	}
	return nil
}

// Columns implements watch.Sampler.
func (s *Replication) Columns() []watch.Column { return replColumns }

// Baseline implements watch.Sampler: gauges need no starting point; the summary restarts.
func (s *Replication) Baseline(ctx context.Context) error {
	s.last = watch.Empty(len(replColumns))
	return nil
}

// Sample implements watch.Sampler. Besides outages, a new Last_IO_Error/Last_SQL_Error text is returned as a
// warning once.
func (s *Replication) Sample(ctx context.Context, at time.Time) (watch.Sample, error) {
	if s.conn == nil {
		return watch.Sample{At: at, Values: watch.Empty(len(replColumns))}, errNotStarted
	}
	out := watch.Sample{At: at, Values: watch.Empty(len(replColumns))}
	st, ok, err := target.ReadReplicaStatus(ctx, s.conn.db)
	if err != nil {
		return out, s.outage.Fail(time.Now(), watch.Unavailable("replication watch "+s.conn.addr, err))
	}
	s.outage.OK(time.Now())
	if !ok {
		return out, nil
	}
	v := out.Values
	if st.LagSeconds != nil {
		v[0] = *st.LagSeconds
	}
	v[1], v[2] = yes(st.IORunning), yes(st.SQLRunning)
	v[3], v[4] = float64(st.ReadSourceLogPos), float64(st.ExecSourceLogPos)
	if st.SourceLogFile != "" && st.SourceLogFile == st.RelaySourceLogFile && st.ReadSourceLogPos >= st.ExecSourceLogPos {
		v[5] = float64(st.ReadSourceLogPos - st.ExecSourceLogPos)
	}
	for i, x := range v {
		if !math.IsNaN(x) {
			s.last[i] = x
		}
	}
	return out, s.replError(st)
}

func (s *Replication) replError(st target.ReplicaStatus) error {
	var parts []string
	if st.LastIOError != "" {
		parts = append(parts, "IO thread: "+st.LastIOError)
	}
	if st.LastSQLError != "" {
		parts = append(parts, "SQL thread: "+st.LastSQLError)
	}
	msg := strings.Join(parts, "; ")
	if msg == s.lastErr {
		return nil
	}
	s.lastErr = msg
	if msg == "" {
		return nil
	}
	return errors.New("replication watch " + s.conn.addr + ": replica error: " + msg)
}

func yes(s string) float64 {
	if strings.EqualFold(s, "Yes") {
		return 1
	}
	return 0
}

// Rebase implements watch.Sampler: every column is a gauge, summarised by its last value.
func (s *Replication) Rebase() {}

// Summary implements watch.Sampler: the last value of each column.
func (s *Replication) Summary() map[string]float64 {
	return watch.LastValues(replColumns, s.last)
}

// Close implements watch.Sampler.
func (s *Replication) Close() error { return s.conn.close() }

// Down implements watch.Health: the source has not answered since the outage's warning.
func (s *Replication) Down() bool { return s.outage.Down() }
